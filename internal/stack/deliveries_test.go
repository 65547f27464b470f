package stack_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
)

// sigil up --no-webhook-deliveries: the process writes its webhook deliveries to the outbox and posts none; another
// process over the same PostgreSQL database (and master key) posts them. On SQLite, where no other process could, it
// is refused.
func TestStackPostingNoWebhookDeliveries(t *testing.T) {
	t.Parallel()
	_, err := stack.Start(context.Background(), stack.Config{Dir: t.TempDir(), NoDevChain: true, NoWebhookDeliveries: true})
	if err == nil || !strings.Contains(err.Error(), "needs a PostgreSQL database") {
		t.Fatalf("on SQLite: %v", err)
	}

	db := testdb.Postgres(t)
	signing := start(t, stack.Config{Dir: db.Dir, DatabaseURL: db.URL, NoDevChain: true, NoWebhookDeliveries: true})
	b := signing.Bootstrap()
	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root := client.New(b.CoordinatorURL, key)
	var posted atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		posted.Add(1)
	}))
	defer receiver.Close()
	endpoint, _, err := root.CreateWebhookEndpoint(ctx, b.OrganizationID, api.CreateWebhookEndpointIntent{URL: receiver.URL, Name: "elsewhere",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := root.UpdateOrganizationName(ctx, b.OrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "renamed"}); err != nil {
		t.Fatal(err)
	}
	pending := func() int {
		t.Helper()
		res, err := root.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: b.OrganizationID,
			EndpointID: endpoint.EndpointID, State: api.WebhookDeliveryPending})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Deliveries)
	}
	// A process that posts is handed its new deliveries as they commit, and posts them at once: a second is ample for
	// one to have (this only ever fails when one did).
	if testwait.Within(time.Second, func() bool { return posted.Load() > 0 }) {
		t.Fatalf("the process posting no deliveries posted %d", posted.Load())
	}
	if waiting := pending(); waiting == 0 {
		t.Fatal("no delivery waits in the outbox")
	}

	// The other process serves the same root organization: its data directory has the first start's records.
	other := t.TempDir()
	for _, name := range []string{stack.BootstrapFile, stack.AuthProxyIdentityFile} {
		data, err := os.ReadFile(filepath.Join(db.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	start(t, stack.Config{Dir: other, DatabaseURL: db.URL, NoDevChain: true, MasterKeyFile: filepath.Join(db.Dir, "master.key")})
	testwait.Until(t, "the other process to post every delivery", func() bool { return posted.Load() > 0 && pending() == 0 })
}
