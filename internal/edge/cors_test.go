package edge_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/edge"
)

func corsService() *service {
	mux := http.NewServeMux()
	mux.Handle("GET /thing", edge.Func(func(*http.Request) (any, error) { return map[string]string{"ok": "yes"}, nil }))
	cors := &edge.CORS{Origins: []string{"https://app.example/"}, Methods: "GET, POST, OPTIONS", Headers: "Content-Type, X-Stamp"}
	return newService(edge.RPCStatus, 0, cors.Handler(mux))
}

func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	s := corsService()
	preflight := map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-stamp"}
	with := func(origin string) map[string]string {
		h := map[string]string{"Origin": origin}
		for k, v := range preflight {
			h[k] = v
		}
		return h
	}

	rec := s.do("OPTIONS", "/thing", "", with("https://APP.example"))
	h := rec.Header()
	if rec.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "https://APP.example" || h.Get("Vary") != "Origin" ||
		h.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-Stamp") ||
		h.Get("Access-Control-Max-Age") != "600" {
		t.Fatalf("allowed preflight: %d %v", rec.Code, h)
	}

	rec = s.do("OPTIONS", "/thing", "", with("https://evil.example"))
	var b apierr.Body
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code != http.StatusForbidden || b.Code != apierr.PermissionDenied ||
		!strings.Contains(b.Message, "origin https://evil.example is not allowed") || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("denied preflight: %d %s %v", rec.Code, rec.Body, rec.Header())
	}

	// A real request: readable by an allowed origin only; one without an Origin is served as it is.
	if rec := s.do("GET", "/thing", "", map[string]string{"Origin": "https://app.example"}); rec.Code != 200 ||
		rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("allowed origin: %d %v", rec.Code, rec.Header())
	}
	if rec := s.do("GET", "/thing", "", map[string]string{"Origin": "https://evil.example"}); rec.Code != 200 ||
		rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("other origin: %d %v", rec.Code, rec.Header())
	}
	if rec := s.do("GET", "/thing", "", nil); rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("no origin: %d %v", rec.Code, rec.Header())
	}
}

func TestOriginAllowed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		allowed []string
		origin  string
		want    bool
	}{
		{[]string{"*"}, "", true},
		{[]string{"*"}, "https://any.example", true},
		{[]string{"https://app.example"}, "https://app.example", true},
		{[]string{"https://app.example"}, "https://APP.example/", true},
		{[]string{"https://app.example/"}, "https://app.example", true},
		{[]string{"https://app.example"}, "", false},
		{[]string{"https://app.example"}, "http://app.example", false},
		{[]string{"https://app.example"}, "https://app.example.evil", false},
		{[]string{"https://app.example"}, "https://app.example:8443", false},
		{[]string{}, "https://app.example", false},
		{nil, "", false},
		// Any port of a host, as the dev stack allows loopback pages.
		{[]string{"http://127.0.0.1:*"}, "http://127.0.0.1:9000", true},
		{[]string{"http://localhost:*"}, "http://LOCALHOST:3000", true},
		{[]string{"http://127.0.0.1:*"}, "http://127.0.0.1", false},
		{[]string{"http://127.0.0.1:*"}, "https://127.0.0.1:9000", false},
		{[]string{"http://127.0.0.1:*"}, "http://127.0.0.1.evil:9000", false},
		{[]string{"http://127.0.0.1:*"}, "http://127.0.0.1:90x0", false},
		{[]string{"http://127.0.0.1:*"}, "http://127.0.0.1:123456", false},
	} {
		if got := edge.OriginAllowed(c.allowed, c.origin); got != c.want {
			t.Errorf("OriginAllowed(%v, %q) = %t", c.allowed, c.origin, got)
		}
	}
}
