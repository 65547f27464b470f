package tracing_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/tracing"
)

// receiver is an in-process OTLP/HTTP trace receiver: it keeps the names of the spans it is sent.
type receiver struct {
	mu    sync.Mutex
	names []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req collector.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				rc.names = append(rc.names, s.Name)
			}
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(nil)
}

// A coordinator's activity is traced, once tracing is set up: a span for the HTTP request and one per phase, exported
// over OTLP to a receiver.
func TestActivitySpansReachAnOTLPReceiver(t *testing.T) {
	rc := &receiver{}
	collectorSrv := httptest.NewServer(rc)
	defer collectorSrv.Close()
	shutdown, err := tracing.Setup(context.Background(), collectorSrv.URL, "sigil-test")
	if err != nil {
		t.Fatal(err)
	}

	b := testdb.SQLite(t)
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, _ := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	coord := coordinator.New(st, coordinator.Config{Keyring: ring, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	defer srv.Close()
	boot, err := coord.CreateRootOrganization(context.Background(), "Acme", "root")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.New(srv.URL, boot.APIKey).UpdateOrganizationName(context.Background(), boot.OrganizationID,
		api.UpdateOrganizationNameIntent{OrganizationName: "traced"}); err != nil {
		t.Fatal(err)
	}
	if err := shutdown(context.Background()); err != nil { // flushes the batch
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, want := range []string{"POST /public/v1/submit/{name}", "activity.authenticate", "activity.run", "activity.decide", "activity.execute"} {
		if !slices.Contains(rc.names, want) {
			t.Errorf("no span %q among %v", want, rc.names)
		}
	}
}

func TestSetupRefusesABadEndpoint(t *testing.T) {
	if _, err := tracing.Setup(context.Background(), "localhost:4318", "x"); err == nil {
		t.Error("an endpoint without a scheme was accepted")
	}
	shutdown, err := tracing.Setup(context.Background(), "", "x")
	if err != nil || shutdown(context.Background()) != nil {
		t.Errorf("no endpoint: %v", err)
	}
}
