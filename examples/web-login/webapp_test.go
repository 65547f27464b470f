package weblogin

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

var devConfig = Config{
	CoordinatorURL:    "http://127.0.0.1:8081",
	AuthProxyURL:      "http://127.0.0.1:8082/",
	AuthProxyConfigID: "8302a01c-c321-47dc-9767-1348d0d5dedd",
	DevOutboxURL:      "http://127.0.0.1:8081/dev/outbox",
}

func TestValidate(t *testing.T) {
	with := func(change func(*Config)) Config {
		c := devConfig
		change(&c)
		return c
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // empty: valid
	}{
		{"a development stack", devConfig, ""},
		{"no dev outbox", with(func(c *Config) { c.DevOutboxURL = "" }), ""},
		{"https", with(func(c *Config) { c.CoordinatorURL = "https://sigil.example.com" }), ""},
		{"no auth proxy", with(func(c *Config) { c.AuthProxyURL = "" }), "no auth proxy is configured"},
		{"no configuration id", with(func(c *Config) { c.AuthProxyConfigID = "" }), "no auth proxy is configured"},
		{"no coordinator", with(func(c *Config) { c.CoordinatorURL = "" }), "coordinatorUrl"},
		{"a relative coordinator URL", with(func(c *Config) { c.CoordinatorURL = "/api" }), "coordinatorUrl"},
		{"a proxy URL of another scheme", with(func(c *Config) { c.AuthProxyURL = "javascript:alert(1)" }), "authProxyUrl"},
		{"a malformed dev outbox URL", with(func(c *Config) { c.DevOutboxURL = "http://[::1" }), "devOutboxUrl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
	if _, err := Handler(Config{}); err == nil {
		t.Fatal("Handler accepted an empty configuration")
	}
}

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := Handler(devConfig)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func TestHandlerServesTheApp(t *testing.T) {
	srv := newServer(t)
	tests := []struct {
		path, status, contentType, contains string
	}{
		{"/", "200 OK", "text/html", `<script type="module" src="app.js">`},
		{"/index.html", "301 Moved Permanently", "", ""}, // the file server's canonical "/"
		{"/app.js", "200 OK", "text/javascript", `from "./sigil.js"`},
		{"/sigil.js", "200 OK", "text/javascript", "export class AuthProxy"},
		{"/style.css", "200 OK", "text/css", ".card"},
		{"/config.json", "200 OK", "application/json", `"authProxyConfigId":"8302a01c-c321-47dc-9767-1348d0d5dedd"`},
		{"/webapp.go", "404 Not Found", "", ""}, // only the page's own files are embedded
		{"/bootstrap.json", "404 Not Found", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := client.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.Status != tt.status {
				t.Fatalf("status %s, want %s", res.Status, tt.status)
			}
			if !strings.HasPrefix(res.Header.Get("Content-Type"), tt.contentType) {
				t.Errorf("Content-Type %q, want %s", res.Header.Get("Content-Type"), tt.contentType)
			}
			if !strings.Contains(string(body), tt.contains) {
				t.Errorf("body does not contain %q", tt.contains)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}
		})
	}

	res, err := http.Post(srv.URL+"/config.json", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /config.json: status %d, want 405", res.StatusCode)
	}
}

func TestConfigJSONIsThePublicConfig(t *testing.T) {
	srv := newServer(t)
	_, body := get(t, srv.URL+"/config.json")
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"coordinatorUrl": devConfig.CoordinatorURL, "authProxyUrl": devConfig.AuthProxyURL,
		"authProxyConfigId": devConfig.AuthProxyConfigID, "devOutboxUrl": devConfig.DevOutboxURL}
	if len(got) != len(want) {
		t.Fatalf("config.json = %v, want exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("config.json %s = %q, want %q", k, got[k], v)
		}
	}

	// A Config decoded from bootstrap.json keeps its public fields and drops the rest, the root key above all.
	var cfg Config
	bootstrap := `{"organizationId":"o","apiPrivateKey":"secret","coordinatorUrl":"http://c","authProxyUrl":"http://p","authProxyConfigId":"id"}`
	if err := json.Unmarshal([]byte(bootstrap), &cfg); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(cfg)
	if strings.Contains(string(out), "secret") || cfg.CoordinatorURL != "http://c" || cfg.AuthProxyConfigID != "id" {
		t.Errorf("config from bootstrap.json = %s", out)
	}
}

func TestContentSecurityPolicy(t *testing.T) {
	srv := newServer(t)
	res, _ := get(t, srv.URL+"/")
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{
		"default-src 'none'", "script-src 'self'",
		"connect-src 'self' http://127.0.0.1:8081 http://127.0.0.1:8082;", // origins: no path, no trailing slash
		"frame-ancestors 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy %q allows unsafe sources", csp)
	}
}

// Every file the page loads (index.html's src and href, app.js's imports) must be embedded, or the page breaks only
// in the browser.
func TestEveryReferencedFileIsServed(t *testing.T) {
	srv := newServer(t)
	_, index := get(t, srv.URL+"/")
	_, app := get(t, srv.URL+"/app.js")
	refs := regexp.MustCompile(`(?:src|href)="([^"#:]+)"`).FindAllStringSubmatch(index, -1)
	refs = append(refs, regexp.MustCompile(`from "\./([^"]+)"`).FindAllStringSubmatch(app, -1)...)
	if len(refs) < 3 {
		t.Fatalf("found only %d references; did the markup change?", len(refs))
	}
	for _, m := range refs {
		if res, _ := get(t, srv.URL+"/"+m[1]); res.StatusCode != http.StatusOK {
			t.Errorf("%s is referenced but answers %s", m[1], res.Status)
		}
	}
}
