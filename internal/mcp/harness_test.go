package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	sigilmcp "github.com/sigil/sigil/internal/mcp"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// One stack per database backend serves the package's tests: a whole sigil up (dev chain, yield service,
// coordinator) in a temporary directory, on SQLite, and on PostgreSQL when SIGIL_TEST_POSTGRES_URL names a server.
type sharedStack struct {
	once sync.Once
	s    *stack.Stack
	err  error
	dir  string
	drop func() error // the PostgreSQL database's
}

var stacks = map[string]*sharedStack{"sqlite": {}, "postgres": {}}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, st := range stacks {
		if st.s != nil {
			st.s.Close()
		}
		if st.drop != nil {
			_ = st.drop()
		}
		if st.dir != "" {
			os.RemoveAll(st.dir)
		}
	}
	os.Exit(code)
}

// eachBackend runs fn once per database backend, each on its backend's stack. PostgreSQL is skipped when
// SIGIL_TEST_POSTGRES_URL is not set, and a failure under CI.
func eachBackend(t *testing.T, fn func(t *testing.T, b stack.Bootstrap)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, theStack(t, "sqlite")) })
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv("SIGIL_TEST_POSTGRES_URL") == "" {
			if os.Getenv("CI") != "" {
				t.Fatal("SIGIL_TEST_POSTGRES_URL is not set: under CI both database backends must be tested")
			}
			t.Skip("SIGIL_TEST_POSTGRES_URL is not set")
		}
		fn(t, theStack(t, "postgres"))
	})
}

// theStack is the backend's stack, started by the first test that asks for it.
func theStack(t testing.TB, backend string) stack.Bootstrap {
	t.Helper()
	st := stacks[backend]
	st.once.Do(func() {
		if st.dir, st.err = os.MkdirTemp("", "sigil-mcp-test"); st.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cfg := stack.Config{Dir: st.dir, ChainEphemeral: true}
		if backend == "postgres" {
			if cfg.DatabaseURL, st.drop, st.err = store.ScratchPostgres(ctx, os.Getenv("SIGIL_TEST_POSTGRES_URL"), "sigil_mcp_test"); st.err != nil {
				return
			}
		}
		st.s, st.err = stack.Start(ctx, cfg)
	})
	if st.err != nil {
		t.Fatal(st.err)
	}
	return st.s.Bootstrap()
}

// agent is a non-root user with an API key, a funded wallet account and the specification's three policies for the
// USDC vault, and an MCP session acting as that user.
type agent struct {
	t        testing.TB
	boot     stack.Bootstrap
	root     *client.Client
	userID   string
	key      *stamp.APIKey
	address  string
	walletID string
	yieldID  string
	token    string // USDC's address
	vault    string
	server   *sigilmcp.Server
	http     *httptest.Server // the server's HTTP transport, once a session has used it
	session  *mcp.ClientSession
}

// newAgent makes the agent's user, wallet and policies with the root key, and connects an MCP client over the
// transport to a server acting as the agent, configured as sigil mcp configures one (change adjusts the configuration).
func newAgent(t testing.TB, b stack.Bootstrap, over string, change func(*sigilmcp.Config)) *agent {
	t.Helper()
	ctx := context.Background()
	rootKey, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, boot: b, root: client.New(b.CoordinatorURL, rootKey)}
	a.root.PollInterval = 50 * time.Millisecond
	if a.key, err = stamp.GenerateAPIKey(stamp.CurveP256); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("mcp-agent-%d", time.Now().UnixNano())
	users, _, err := a.root.CreateUsers(ctx, b.OrganizationID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name,
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "agent", PublicKey: a.key.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		t.Fatal(err)
	}
	a.userID = users.UserIDs[0]
	w, _, err := a.root.CreateWallet(ctx, b.OrganizationID, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{{
		Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		t.Fatal(err)
	}
	a.address, a.walletID = w.Addresses[0], w.WalletID
	a.fund("1", "1000")
	a.findVault()
	// Each agent's policies are its wallet's, so that the agents of the package's tests, in one organization, do not
	// see each other's.
	mine := "wallet.id == '" + w.WalletID + "'"
	consensus := "approvers.any(user, user.id == '" + a.userID + "')"
	policy := func(label, to, selector string) api.CreatePolicyIntentV3 {
		return api.CreatePolicyIntentV3{PolicyName: label + " " + a.userID[:8], Effect: api.EffectAllow, Consensus: consensus,
			Condition: mine + " && eth.tx.to == '" + strings.ToLower(to) + "' && eth.tx.data[0..10] == '" + selector + "'"}
	}
	// The fourth policy lets the agent transfer USDC only with a root user's approval as well: a human in the loop.
	gated := api.CreatePolicyIntentV3{PolicyName: "transfer USDC with approval " + a.userID[:8], Effect: api.EffectAllow,
		Consensus: consensus + " && approvers.any(user, user.id == '" + b.UserID + "')",
		Condition: mine + " && eth.tx.to == '" + strings.ToLower(a.token) + "' && eth.tx.data[0..10] == '0xa9059cbb'"}
	if _, _, err := a.root.CreatePolicies(ctx, b.OrganizationID, api.CreatePoliciesIntent{Policies: []api.CreatePolicyIntentV3{
		policy("approve USDC", a.token, "0x095ea7b3"), policy("deposit into the vault", a.vault, "0x6e553f65"),
		policy("withdraw from the vault", a.vault, "0xba087652"), gated}}); err != nil {
		t.Fatal(err)
	}
	cfg := sigilmcp.Config{Coordinator: client.New(b.CoordinatorURL, a.key), OrganizationID: b.OrganizationID, YieldURL: b.YieldURL,
		YieldAPIKey: b.YieldAPIKey, DashboardURL: b.DashboardURL, PollInterval: 50 * time.Millisecond,
		RateLimit: 100000} // the tests poll through tools; the rate limit has its own test
	cfg.Coordinator.PollInterval = 50 * time.Millisecond
	for _, c := range b.Chains {
		cfg.Networks = append(cfg.Networks, sigilmcp.Network{ChainID: c.ChainID, RPCURL: c.RPCURL})
	}
	if change != nil {
		change(&cfg)
	}
	if a.server, err = sigilmcp.New(cfg); err != nil {
		t.Fatal(err)
	}
	a.session = a.connect(over)
	return a
}

// The transports a test's client reaches the server over: stdio (as an agent host that starts sigil mcp) and
// Streamable HTTP (as a remote agent, through the bearer-token handler sigil mcp --http serves).
const (
	overStdio = "stdio"
	overHTTP  = "http"
)

var transports = []string{overStdio, overHTTP}

// testToken is the HTTP transport's bearer token in tests.
const testToken = "test-token-0123456789abcdef"

// connect opens another session with the agent's server, over the transport.
func (a *agent) connect(over string) *mcp.ClientSession {
	a.t.Helper()
	var ct mcp.Transport
	switch over {
	case overStdio:
		hostIn, serverOut := io.Pipe()
		serverIn, hostOut := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.server.ServeStdio(ctx, serverIn, serverOut) }()
		a.t.Cleanup(func() {
			cancel()
			hostOut.Close()
			serverOut.Close()
			if err := <-done; err != nil {
				a.t.Errorf("ServeStdio: %v", err)
			}
		})
		ct = &mcp.IOTransport{Reader: hostIn, Writer: hostOut}
	case overHTTP:
		ct = &mcp.StreamableClientTransport{Endpoint: a.httpURL() + sigilmcp.MCPPath,
			HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1}
	default:
		a.t.Fatalf("no transport %q", over)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { cs.Close() })
	return cs
}

// httpURL is the agent's server over Streamable HTTP, started on first use.
func (a *agent) httpURL() string {
	a.t.Helper()
	if a.http == nil {
		h, err := a.server.HTTPHandler(sigilmcp.HTTPConfig{Token: testToken, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			a.t.Fatal(err)
		}
		a.http = httptest.NewServer(h)
		a.t.Cleanup(a.http.Close)
	}
	return a.http.URL
}

// bearer sends the HTTP transport's token with each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (a *agent) fund(eth, usdc string) {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"address": a.address, "eth": eth, "tokens": map[string]string{"USDC": usdc}})
	res, err := http.Post(a.boot.FaucetURL, "application/json", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		a.t.Fatalf("faucet: %d", res.StatusCode)
	}
}

// findVault reads the USDC vault's yield straight from the yield service: the tests compare the tools with it.
func (a *agent) findVault() {
	a.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, a.boot.YieldURL+"/v1/yields?"+url.Values{"network": {a.boot.Network}, "token": {"USDC"},
		"types": {"vault"}, "providers": {"sigil"}}.Encode(), nil)
	req.Header.Set("X-API-KEY", a.boot.YieldAPIKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Items []struct {
			ID          string `json:"id"`
			Token       struct{ Address string }
			OutputToken struct{ Address string }
		} `json:"items"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		a.t.Fatal(err)
	}
	for _, y := range page.Items {
		if strings.HasSuffix(y.ID, "-4626-vault") && strings.Contains(y.ID, "-usdc-") {
			a.yieldID, a.token, a.vault = y.ID, y.Token.Address, y.OutputToken.Address
			return
		}
	}
	a.t.Fatalf("no USDC vault among %+v", page.Items)
}

// call calls a tool and returns its result; a protocol error fails the test.
func (a *agent) call(name string, args map[string]any) *mcp.CallToolResult {
	a.t.Helper()
	res, err := a.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content.
func (a *agent) ok(name string, args map[string]any) map[string]any {
	a.t.Helper()
	res := a.call(name, args)
	if res.IsError {
		a.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return structured(a.t, res)
}

func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	return m
}

// text is a result's text content, every block.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// path reads a value at a dotted path of maps and lists ("sigil.transactions.0.amounts.0.amount").
func path(v any, p string) any {
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, p string) string { s, _ := path(v, p).(string); return s }
