package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(Handler(Config{CoordinatorURL: "http://127.0.0.1:8081", AuthProxyURL: "http://127.0.0.1:8082", OrganizationID: "org-1"}))
	defer srv.Close()
	for _, c := range []struct {
		path, contentType, contains string
	}{
		{"/", "text/html", `id="auth-form"`},
		{"/app.js", "text/javascript", "X-Stamp-WebAuthn"},
		{"/stamp.js", "text/javascript", "SIGNATURE_SCHEME_TK_API_P256"},
		{"/style.css", "text/css", "@media (max-width: 600px)"},
		{"/config.json", "application/json", `"coordinatorUrl":"http://127.0.0.1:8081"`},
	} {
		res, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), c.contentType) || !strings.Contains(string(body), c.contains) {
			t.Errorf("%s: %d %s %.80s", c.path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "connect-src 'self' http://127.0.0.1:8081;") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", c.path, csp)
		}
	}
	res, err := http.Get(srv.URL + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cfg Config
	if err := json.NewDecoder(res.Body).Decode(&cfg); err != nil || cfg.OrganizationID != "org-1" || cfg.AuthProxyURL != "http://127.0.0.1:8082" {
		t.Fatalf("config.json = %+v, %v", cfg, err)
	}
	if r, _ := http.Post(srv.URL+"/", "text/plain", nil); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", r.StatusCode)
	}
}
