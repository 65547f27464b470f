package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// TestRelay passes on the reads a balance needs to the chain's node, and nothing else: a write, another contract
// call, an unknown chain or an oversized batch never reaches the node.
func TestRelay(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x2a"}`))
	}))
	defer node.Close()
	srv := httptest.NewServer(Handler(Config{CoordinatorURL: "http://127.0.0.1:8081",
		Chains: []Chain{{CAIP2: "eip155:1337", Name: "dev", RPCURL: node.URL, Tokens: []string{"0x5FbDB2315678afecb367f032d93F642f64180aa3"}}}}))
	defer srv.Close()
	post := func(path, body string) (int, string) {
		res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}
	balanceOf := `{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","data":"0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},"latest"]}`
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","latest"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},` + balanceOf + `]`,
	} {
		if code, out := post("/rpc/eip155:1337", body); code != 200 || !strings.Contains(out, `"0x2a"`) {
			t.Errorf("%s: %d %s", body, code, out)
		}
	}
	if n := reached.Load(); n != 2 {
		t.Fatalf("the node got %d requests, want 2", n)
	}
	transfer := strings.Replace(balanceOf, "0x70a08231", "0xa9059cbb", 1)
	for _, c := range []struct{ path, body, want string }{
		{"/rpc/eip155:1337", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x02"]}`, "is not relayed"},
		{"/rpc/eip155:1337", transfer, "balanceOf, decimals and symbol only"},
		{"/rpc/eip155:1337", `[` + strings.Repeat(balanceOf+",", 100) + balanceOf + `]`, "1 to 100 calls"},
		{"/rpc/eip155:1337", `[]`, "1 to 100 calls"},
		{"/rpc/eip155:1337", `{"method":`, "not a JSON-RPC call"},
		{"/rpc/eip155:1", balanceOf, `no chain`},
	} {
		code, out := post(c.path, c.body)
		if code < 400 || !strings.Contains(out, c.want) {
			t.Errorf("%.60s: %d %s, want an error saying %q", c.body, code, out, c.want)
		}
	}
	if n := reached.Load(); n != 2 {
		t.Errorf("a refused request reached the node: %d requests", n)
	}
	res, err := http.Get(srv.URL + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	cfg, _ := io.ReadAll(res.Body)
	if strings.Contains(string(cfg), node.URL) || !strings.Contains(string(cfg), `"caip2":"eip155:1337"`) {
		t.Errorf("config.json names the chain but not its node: %s", cfg)
	}
}

// TestYieldRelay passes the page's yield reads on with the page's API key, and no other path of the service.
func TestYieldRelay(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-API-KEY"))
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`{"message":"from the service"}`))
	}))
	defer svc.Close()
	srv := httptest.NewServer(Handler(Config{CoordinatorURL: "http://127.0.0.1:8081", YieldURL: svc.URL}))
	defer srv.Close()
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/yield/v1/yields?limit=100", "GET /v1/yields?limit=100 k1"},
		{"GET", "/yield/v1/yields/y-1/share-prices?days=7", "GET /v1/yields/y-1/share-prices?days=7 k1"},
		{"POST", "/yield/v1/yields/balances", "POST /v1/yields/balances k1"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{}`))
		req.Header.Set("X-API-KEY", "k1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusTeapot || !strings.Contains(string(body), "from the service") || seen.Load() != c.want {
			t.Errorf("%s %s: %d %s, the service saw %v", c.method, c.path, res.StatusCode, body, seen.Load())
		}
	}
	seen.Store("")
	for _, c := range []struct{ method, path string }{{"POST", "/yield/v1/actions/enter"}, {"GET", "/yield/v1/actions"}, {"PUT", "/yield/v1/transactions/t/submit-hash"}} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{}`))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode < 400 || seen.Load() != "" {
			t.Errorf("%s %s: %d, the service saw %v", c.method, c.path, res.StatusCode, seen.Load())
		}
	}
}
