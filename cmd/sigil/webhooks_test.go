package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/testwait"
)

// syncBuffer is a bytes.Buffer a command writes to while the test reads it; wrote is signalled after each write.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits until the buffer holds want; it fails the test after a while.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.wrote:
		case <-deadline:
			t.Fatalf("output lacks %q:\n%s", want, s.String())
		}
	}
}

// sigil webhooks listen registers itself, prints verified deliveries, and deletes its endpoint when stopped.
func TestWebhooksListen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, boot, url := coordinatorStack(t, stack.CoordinatorConfig{
		Webhooks: coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}})
	listenCtx, stop := context.WithCancel(ctx)
	out, errs := newSyncBuffer(), newSyncBuffer()
	code := make(chan int, 1)
	go func() { code <- run(listenCtx, []string{"webhooks", "listen", "--dir", dir}, out, errs, nil) }()
	out.waitFor(t, "registered endpoint")

	c := client.New(url, boot.APIKey)
	_, act, err := c.UpdateOrganizationName(ctx, boot.OrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "Renamed"})
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, act.ID+" ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME ACTIVITY_STATUS_COMPLETED")
	if !strings.Contains(out.String(), "ACTIVITY_UPDATES "+act.ID+":ACTIVITY_STATUS_COMPLETED (verified, key sigil-webhook-") {
		t.Errorf("output:\n%s", out.String())
	}
	// A delivery that is not signed is refused and said so.
	line := out.String()[strings.Index(out.String(), "receiving on ")+len("receiving on "):]
	resp, err := http.Post(line[:strings.Index(line, ";")], "application/json", strings.NewReader(`{"id":"forged"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unsigned delivery: %s", resp.Status)
	}
	out.waitFor(t, "refused a delivery: missing_header")
	stop()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d\n%s%s", c, out.String(), errs.String())
	}
	if list, err := c.ListWebhookEndpoints(ctx, boot.OrganizationID); err != nil || len(list.WebhookEndpoints) != 0 {
		t.Fatalf("after listen stopped: %+v %v", list, err)
	}
}

// sigil webhooks deliveries lists an endpoint's dead letters and sigil webhooks replay sends them again, under the
// same event id.
func TestWebhooksReplayCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, boot, url := coordinatorStack(t, stack.CoordinatorConfig{
		Webhooks: coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}})
	var accept atomic.Bool
	received := make(chan string, 10)
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !accept.Load() {
			http.Error(w, "gone", http.StatusGone) // terminal: dead at the first attempt
			return
		}
		received <- r.Header.Get("X-Turnkey-Event-Id")
	}))
	t.Cleanup(rx.Close)
	c := client.New(url, boot.APIKey)
	ep, _, err := c.CreateWebhookEndpoint(ctx, boot.OrganizationID, api.CreateWebhookEndpointIntent{URL: rx.URL, Name: "replayed",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates, FiltersJSON: `{"activityTypes":["ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"]}`}}})
	if err != nil {
		t.Fatal(err)
	}
	_, act, err := c.UpdateOrganizationName(ctx, boot.OrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "Renamed"})
	if err != nil {
		t.Fatal(err)
	}
	sigil := func(args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(ctx, append(args, "--dir", dir), &out, &errs, nil); code != 0 {
			t.Fatalf("sigil %v: exit %d\n%s%s", args, code, out.String(), errs.String())
		}
		return out.String()
	}
	var dead []api.WebhookDelivery
	testwait.Until(t, "the delivery to die", func() bool {
		if err := json.Unmarshal([]byte(sigil("webhooks", "deliveries", "--endpoint", ep.EndpointID, "--state", "dead")), &dead); err != nil {
			t.Fatal(err)
		}
		return len(dead) > 0
	})
	if dead[0].EventID != act.ID+":"+api.StatusCompleted || !strings.Contains(dead[0].LastError, "HTTP 410") {
		t.Fatalf("dead letter %+v", dead[0])
	}
	accept.Store(true)
	out := sigil("webhooks", "replay", "--endpoint", ep.EndpointID, "--delivery", dead[0].DeliveryID)
	if !strings.Contains(out, dead[0].DeliveryID) {
		t.Errorf("replay printed %s", out)
	}
	select {
	case id := <-received:
		if id != dead[0].EventID {
			t.Errorf("replayed as event %s, died as %s", id, dead[0].EventID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the replayed delivery never arrived")
	}
	var errs bytes.Buffer
	if code := run(ctx, []string{"webhooks", "replay", "--dir", dir}, &bytes.Buffer{}, &errs, nil); code == 0 || !strings.Contains(errs.String(), "--endpoint is required") {
		t.Errorf("replay without --endpoint: exit %d, %s", code, errs.String())
	}
}
