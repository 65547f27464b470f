package stack_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/stack"
)

// The frames listen apart from every other service, are framed by the origins the coordinator allows (never "*"), and
// carry the signer key the coordinator publishes; with no embedder they are not served.
func TestFramesServed(t *testing.T) {
	t.Parallel()
	s, err := stack.Start(context.Background(), stack.Config{Dir: t.TempDir(), NoDevChain: true, AllowedOrigins: []string{"*", "http://localhost:*"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.Bootstrap()
	if b.FramesURL == "" || b.FramesURL == b.CoordinatorURL || b.FramesURL == b.DashboardURL {
		t.Fatalf("frames at %q (coordinator %s, dashboard %s)", b.FramesURL, b.CoordinatorURL, b.DashboardURL)
	}
	res, err := http.Get(b.FramesURL + "/export")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "frame-ancestors http://localhost:*") {
		t.Errorf("CSP %q", csp)
	}
	doc, err := http.Get(b.CoordinatorURL + "/.well-known/sigil-signer.json")
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Body.Close()
	var signer struct{ PublicKey string }
	if err := json.NewDecoder(doc.Body).Decode(&signer); err != nil {
		t.Fatal(err)
	}
	page, err := http.Get(b.FramesURL + "/import")
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	body, err := io.ReadAll(page.Body)
	if err != nil || !strings.Contains(string(body), `data-signer-public-key="`+signer.PublicKey+`"`) {
		t.Errorf("the import frame does not carry the signer key %s: %v", signer.PublicKey, err)
	}

	alone, err := stack.Start(context.Background(), stack.Config{Dir: t.TempDir(), NoDevChain: true, AllowedOrigins: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	if u := alone.Bootstrap().FramesURL; u != "" {
		t.Errorf("frames served at %s with no embedder", u)
	}
}
