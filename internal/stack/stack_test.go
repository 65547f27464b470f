package stack_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/yield/yieldtest"
)

// start starts a stack for one test, closed when it ends.
func start(t *testing.T, cfg stack.Config) *stack.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start the stack: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// get answers a GET with its status and body.
func get(t *testing.T, rawURL string) (int, []byte) {
	t.Helper()
	res, err := http.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

// checkServices asks each service of the stack its health or root endpoint, and the coordinator who the root key is.
func checkServices(t *testing.T, s *stack.Stack) {
	t.Helper()
	b := s.Bootstrap()
	for _, u := range []string{b.CoordinatorURL + "/healthz", b.CoordinatorURL + "/readyz", b.DevOutboxURL, b.YieldURL + "/health", b.AuthProxyURL + "/healthz",
		b.DashboardURL + "/"} {
		if code, body := get(t, u); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", u, code, body)
		}
	}
	if code, body := get(t, b.DashboardURL+"/config.json"); code != http.StatusOK || !strings.Contains(string(body), b.OrganizationID) {
		t.Errorf("the dashboard's config.json: %d %s", code, body)
	}
	res, err := http.Post(b.ChainRPCURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		t.Fatalf("the dev chain: %v", err)
	}
	var rpc struct{ Result string }
	err = json.NewDecoder(res.Body).Decode(&rpc)
	res.Body.Close()
	if err != nil || rpc.Result != "0x539" {
		t.Errorf("eth_chainId on the dev chain: %q, %v", rpc.Result, err)
	}

	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	who, err := client.New(b.CoordinatorURL, key).Whoami(context.Background(), b.OrganizationID)
	if err != nil || who.Username != "root" {
		t.Errorf("whoami with the bootstrap key: %+v, %v", who, err)
	}
	proxy := client.NewProxy(b.AuthProxyURL, b.AuthProxyConfigID)
	var out map[string]any
	err = proxy.Call(context.Background(), "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: "stack@example.com"}, &out)
	if err != nil {
		t.Errorf("OTP through the auth proxy of the root organization: %v", err)
	} else if _, body := get(t, b.DevOutboxURL); !strings.Contains(string(body), "stack@example.com") {
		t.Errorf("the dev outbox lacks the OTP e-mail the proxy asked for: %s", body)
	}

	var names []string
	for _, svc := range s.Services() {
		names = append(names, svc.Name)
		if !strings.HasPrefix(svc.URL, "http://127.0.0.1:") {
			t.Errorf("%s listens at %s", svc.Name, svc.URL)
		}
	}
	if want := []string{"coordinator", "yield service", "auth proxy", "dashboard", "dev chain", "solana dev"}; !slices.Equal(names, want) {
		t.Errorf("services %v, want %v", names, want)
	}
}

// lockedBuffer is an audit stream the test reads while the stack writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// checkTelemetry checks, after checkServices, that every HTTP service serves the stack's one set of series at /metrics
// and that the audit stream recorded the OTP login the auth proxy forwarded.
func checkTelemetry(t *testing.T, s *stack.Stack, audit *lockedBuffer) {
	t.Helper()
	b := s.Bootstrap()
	for _, u := range []string{b.CoordinatorURL, b.AuthProxyURL, b.YieldURL} {
		code, body := get(t, u+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("GET %s/metrics: %d", u, code)
		}
		for _, series := range []string{`sigil_http_requests_total{method="POST",route="POST /v1/{name}",service="authproxy",status="200"}`,
			`sigil_activities_total{status="ACTIVITY_STATUS_COMPLETED",type="ACTIVITY_TYPE_INIT_OTP_V2"}`,
			`sigil_store_commit_seconds_count`} {
			if !strings.Contains(string(body), series) {
				t.Errorf("%s/metrics lacks %s", u, series)
			}
		}
	}
	if !strings.Contains(audit.String(), "ACTIVITY_TYPE_INIT_OTP_V2") {
		t.Errorf("the audit stream lacks the OTP login: %q", audit.String())
	}
}

// released fails the test unless every address the stack listened on is free again.
func released(t *testing.T, services []stack.Service) {
	t.Helper()
	for _, svc := range services {
		u, err := url.Parse(svc.URL)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", u.Host)
		if err != nil {
			t.Errorf("%s still holds %s after Close: %v", svc.Name, u.Host, err)
			continue
		}
		ln.Close()
	}
}

// A whole stack on SQLite, every service on a port the system picks: each answers, bootstrap.json records it, and a
// second start on the same directory keeps the root organization, its proxy configuration and its yield keys.
func TestStackSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var audit lockedBuffer
	s := start(t, stack.Config{Dir: dir, Audit: &audit})
	checkServices(t, s)
	checkSolanaBalances(t, s)
	checkDashboardChains(t, s)
	checkTelemetry(t, s, &audit)
	first := s.Bootstrap()
	fi, err := os.Stat(stack.BootstrapPath(dir))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("bootstrap.json: %v, %v; want mode 0600", fi, err)
	}
	if onDisk, err := stack.ReadBootstrap(dir); err != nil || !jsonEqual(*onDisk, first) {
		t.Fatalf("bootstrap.json %+v, %v; the stack says %+v", onDisk, err, first)
	}
	if first.APIPrivateKey == "" || first.YieldAPIKey == "" || first.YieldAPIKey20 == "" || first.YieldAPIKey == first.YieldAPIKey20 ||
		first.AuthProxyConfigID == "" || first.Contracts["USDC"] == "" || first.Network == "" || first.Solana == nil ||
		first.Solana.CAIP2 != "solana:"+first.Solana.GenesisHash[:32] {
		t.Fatalf("bootstrap record lacks a part: %+v", first)
	}
	// One yield key per fee set.
	if fees := yieldtest.AllocatorFees(t, first.YieldURL, first.YieldAPIKey); !slices.Equal(fees, []string{"10.00"}) {
		t.Fatalf("yieldApiKey sees allocator vaults with fees %v, want the 10%% set's", fees)
	}
	if fees := yieldtest.AllocatorFees(t, first.YieldURL, first.YieldAPIKey20); !slices.Equal(fees, []string{"20.00"}) {
		t.Fatalf("yieldApiKey20 sees allocator vaults with fees %v, want the 20%% set's", fees)
	}
	services := s.Services()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	released(t, services)

	// A file written when there was only the 10% key gets the other on the next start.
	edited := first
	edited.YieldAPIKey20 = ""
	if err := stack.WriteBootstrap(dir, &edited); err != nil {
		t.Fatal(err)
	}
	again := start(t, stack.Config{Dir: dir})
	checkServices(t, again)
	second := again.Bootstrap()
	if second.OrganizationID != first.OrganizationID || second.APIPrivateKey != first.APIPrivateKey ||
		second.AuthProxyConfigID != first.AuthProxyConfigID || second.YieldAPIKey != first.YieldAPIKey {
		t.Fatalf("the second start replaced what the first created:\n%+v\n%+v", first, second)
	}
	if second.YieldAPIKey20 == "" || second.YieldAPIKey20 == first.YieldAPIKey20 {
		t.Fatalf("the second start did not create the missing 20%% key: %q", second.YieldAPIKey20)
	}
	if second.Contracts["USDC"] != first.Contracts["USDC"] {
		t.Fatal("the dev chain in the data directory was deployed again")
	}
	if second.Solana == nil || second.Solana.GenesisHash != first.Solana.GenesisHash {
		t.Fatalf("the Solana dev node's ledger in the data directory was not kept: %+v, was %+v", second.Solana, first.Solana)
	}
}

// A whole stack on PostgreSQL, with the dev chain in memory.
func TestStackPostgres(t *testing.T) {
	t.Parallel()
	db := testdb.Postgres(t)
	s := start(t, stack.Config{Dir: db.Dir, DatabaseURL: db.URL, ChainEphemeral: true})
	checkServices(t, s)
	if s.Backend() != "postgres" {
		t.Fatalf("backend %q", s.Backend())
	}
	services := s.Services()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	released(t, services)
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// A start that fails midway (the yield service's port is taken, after the coordinator and the dev chain started)
// closes what it started: its listeners are free, and a stack starts on the same directory, whose dev chain the first
// attempt had opened.
func TestStartFailureClosesWhatStarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := stack.ReadBootstrap(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("bootstrap.json of an empty directory: %v", err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := stack.Config{Dir: dir, Listen: freeAddr(t), DashboardListen: freeAddr(t), YieldListen: taken.Addr().String()}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if s, err := stack.Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), "yield service") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("start with the yield service's port taken: %v", err)
	}
	released(t, []stack.Service{{Name: "coordinator", URL: "http://" + cfg.Listen}, {Name: "dashboard", URL: "http://" + cfg.DashboardListen}})
	// The root organization the failed start created was recorded, and is the next start's.
	boot, err := stack.ReadBootstrap(dir)
	if err != nil || boot.OrganizationID == "" {
		t.Fatalf("bootstrap.json after the failed start: %+v, %v", boot, err)
	}
	s := start(t, stack.Config{Dir: dir})
	if s.Bootstrap().OrganizationID != boot.OrganizationID {
		t.Fatal("the next start created another root organization")
	}
	if _, err := stack.Start(ctx, stack.Config{}); err == nil {
		t.Fatal("a stack without a directory started")
	}
}

// StartCoordinator serves a coordinator alone; StartServer serves one handler.
func TestStartCoordinatorAndServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := stack.StartCoordinator(ctx, stack.CoordinatorConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	boot, err := s.Coordinator().CreateRootOrganization(ctx, "alone", "root")
	if err != nil {
		t.Fatal(err)
	}
	svc := s.Services()
	if len(svc) != 1 || svc[0].Name != "coordinator" {
		t.Fatalf("services %+v", svc)
	}
	if _, _, err := client.New(svc[0].URL, boot.APIKey).UpdateOrganizationName(ctx, boot.OrganizationID,
		api.UpdateOrganizationNameIntent{OrganizationName: "renamed"}); err != nil {
		t.Fatal(err)
	}

	one, err := stack.StartServer("hello", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, one.Services()[0].URL); code != 200 || string(body) != "hello" {
		t.Fatalf("GET: %d %s", code, body)
	}
	waited := make(chan error, 1)
	waitCtx, cancel := context.WithCancel(ctx)
	go func() { waited <- one.Wait(waitCtx) }()
	cancel()
	if err := <-waited; err != nil {
		t.Fatalf("Wait after its context ended: %v", err)
	}
	if err := one.Close(); err != nil || one.Close() != nil {
		t.Fatalf("close twice: %v", err)
	}
	released(t, one.Services())
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A listen address beyond loopback is refused unless the stack is exposed on purpose; an exposed stack neither serves
// nor logs the OTP codes of its dev outbox.
func TestExposedStack(t *testing.T) {
	t.Parallel()
	_, err := stack.Start(context.Background(), stack.Config{Dir: t.TempDir(), ChainEphemeral: true, YieldListen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "yield-listen 0.0.0.0:0 is beyond loopback") {
		t.Fatalf("start on 0.0.0.0 = %v, want a refusal naming the flag", err)
	}

	var logs lockedBuffer
	s := start(t, stack.Config{Dir: t.TempDir(), ChainEphemeral: true, Listen: "0.0.0.0:0", Exposed: true,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	b := s.Bootstrap()
	if b.DevOutboxURL != "" {
		t.Errorf("an exposed stack records its dev outbox at %s", b.DevOutboxURL)
	}
	if code, _ := get(t, b.CoordinatorURL+stack.DevOutboxPath); code != http.StatusNotFound {
		t.Errorf("GET %s on an exposed stack: %d, want 404", stack.DevOutboxPath, code)
	}
	proxy := client.NewProxy(b.AuthProxyURL, b.AuthProxyConfigID)
	var out map[string]any
	err = proxy.Call(context.Background(), "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: "exposed@example.com"}, &out)
	if err != nil {
		t.Fatalf("OTP through the proxy of an exposed stack: %v", err)
	}
	if !strings.Contains(logs.String(), "exposed@example.com") || strings.Contains(logs.String(), `"text"`) {
		t.Errorf("an exposed stack's outbox should log the message without its text:\n%s", logs.String())
	}
}

// A configuration Start cannot honour is refused before anything starts or is written: no data directory named, or
// webhook deliveries left to another process that no shared database lets exist.
func TestStartRefusesAConfigurationItCannotHonour(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  stack.Config
		want string
	}{
		{"no directory", stack.Config{}, "Config.Dir is required"},
		{"deliveries left to no one", stack.Config{Dir: t.TempDir(), NoWebhookDeliveries: true}, "needs a PostgreSQL database"},
	} {
		s, err := stack.Start(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("%s: Start = %v, want an error saying %q", c.name, err, c.want)
		}
		if c.cfg.Dir != "" {
			if entries, _ := os.ReadDir(c.cfg.Dir); len(entries) != 0 {
				t.Errorf("%s: the refused start left %d files in the data directory", c.name, len(entries))
			}
		}
	}
}

// A deployment leaves the dev chain out: no chain, no yield service on it, the rest as usual.
func TestStackWithoutDevChain(t *testing.T) {
	t.Parallel()
	s := start(t, stack.Config{Dir: t.TempDir(), NoDevChain: true})
	b := s.Bootstrap()
	if b.ChainRPCURL != "" || b.YieldURL != "" {
		t.Errorf("bootstrap names a dev chain %q or a yield service %q", b.ChainRPCURL, b.YieldURL)
	}
	for _, svc := range s.Services() {
		if svc.Name == "dev chain" || svc.Name == "yield service" {
			t.Errorf("service %s runs", svc.Name)
		}
	}
	for _, u := range []string{b.CoordinatorURL + "/readyz", b.AuthProxyURL + "/healthz", b.DashboardURL + "/"} {
		if code, body := get(t, u); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", u, code, body)
		}
	}
}

// sigil up --chain-rpc: the stack's dev chain is an existing node; the fixtures, the yield service's catalogue and the
// faucet are on it.
func TestStackOnAnExistingNode(t *testing.T) {
	t.Parallel()
	node, err := chain.Start(context.Background(), chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	s := start(t, stack.Config{Dir: t.TempDir(), ChainRPC: node.RPCURL()})
	b := s.Bootstrap()
	if b.ChainRPCURL != node.RPCURL() || b.FaucetURL == node.FaucetURL() {
		t.Fatalf("bootstrap names the chain %q and the faucet %q", b.ChainRPCURL, b.FaucetURL)
	}
	code, err := node.Client().CodeAt(context.Background(), common.HexToAddress(b.Contracts["USDC"]), nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("the stack's USDC %s is not on the node: %v", b.Contracts["USDC"], err)
	}
	if fees := yieldtest.AllocatorFees(t, b.YieldURL, b.YieldAPIKey); !slices.Equal(fees, []string{"10.00"}) {
		t.Errorf("the yield service on the node lists allocator fees %v", fees)
	}
}

// A second stack on a running stack's directory is refused, and changes nothing there.
func TestDataDirectoryLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := start(t, stack.Config{Dir: dir, NoDevChain: true})
	before, err := os.ReadFile(stack.BootstrapPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = stack.Start(context.Background(), stack.Config{Dir: dir, NoDevChain: true})
	if err == nil || !strings.Contains(err.Error(), "in use by another sigil up") {
		t.Fatalf("second start: %v", err)
	}
	after, _ := os.ReadFile(stack.BootstrapPath(dir))
	if !bytes.Equal(before, after) {
		t.Error("the refused start rewrote bootstrap.json")
	}
	first.Close()
	again := start(t, stack.Config{Dir: dir, NoDevChain: true}) // released on Close
	if again.Bootstrap().OrganizationID != first.Bootstrap().OrganizationID {
		t.Error("the restarted stack has another root organization")
	}
}

// A port in use names the service and the flag that moves it.
func TestPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = stack.Start(context.Background(), stack.Config{Dir: t.TempDir(), NoDevChain: true, DashboardListen: ln.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "dashboard") || !strings.Contains(err.Error(), "--dashboard-listen") {
		t.Fatalf("got %v", err)
	}
}

// Production mode: no dev chain, no dev outbox, OTP text messages through Twilio (here a fake speaking its protocol),
// e-mail refused without an SMTP server; and no start at all on dev defaults.
func TestProductionMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	keyFile := filepath.Join(t.TempDir(), "master.key")
	if _, err := seal.CreateKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []url.Values
	twilio := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if r.URL.Path != "/2010-04-01/Accounts/AC123/Messages.json" || user != "AC123" || pass != "token" || r.ParseForm() != nil {
			http.Error(w, `{"code":20003,"message":"Authenticate"}`, http.StatusUnauthorized)
			return
		}
		mu.Lock()
		sent = append(sent, r.PostForm)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"sid":"SM1","status":"queued"}`))
	}))
	defer twilio.Close()
	delivery := stack.Delivery{Twilio: &notify.TwilioConfig{BaseURL: twilio.URL, AccountSID: "AC123", AuthToken: "token", From: "+15005550006"}}

	for _, tc := range []struct {
		name string
		cfg  stack.Config
		msg  string
	}{
		{"no master key of its own", stack.Config{Delivery: delivery}, "needs a master key you keep"},
		{"no OTP sender", stack.Config{MasterKeyFile: keyFile}, "configure SMTP"},
	} {
		tc.cfg.Dir, tc.cfg.Production = t.TempDir(), true
		if _, err := stack.Start(ctx, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}

	// Transactions are sent on a configured node (here a dev chain of its own standing in for one).
	node, err := chain.Start(ctx, chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	network := "eip155:" + node.ChainID().String()
	s := start(t, stack.Config{Dir: t.TempDir(), Production: true, MasterKeyFile: keyFile, Delivery: delivery,
		SendNetworks: []send.Network{{CAIP2: network, Name: "a configured node", RPCURL: node.RPCURL(), PollInterval: 20 * time.Millisecond}}})
	b := s.Bootstrap()
	if b.DevOutboxURL != "" || b.ChainRPCURL != "" {
		t.Errorf("production bootstrap names a dev outbox %q or chain %q", b.DevOutboxURL, b.ChainRPCURL)
	}
	if code, _ := get(t, b.CoordinatorURL+stack.DevOutboxPath); code != http.StatusNotFound {
		t.Errorf("dev outbox served in production: %d", code)
	}
	ring, err := seal.LoadKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := b.OpenRootKey(ring)
	if err != nil {
		t.Fatal(err)
	}
	root := client.New(b.CoordinatorURL, key)
	if _, _, err := root.InitOtp(ctx, b.OrganizationID, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+14155550123", AppName: "Prod"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(sent) != 1 || sent[0].Get("To") != "+14155550123" || sent[0].Get("From") != "+15005550006" || !strings.Contains(sent[0].Get("Body"), "Prod") {
		t.Errorf("Twilio got %v", sent)
	}
	mu.Unlock()
	if _, _, err := root.InitOtp(ctx, b.OrganizationID, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "ops@example.com"}); err == nil {
		t.Error("an OTP e-mail was accepted with no SMTP server configured")
	}

	w, _, err := root.CreateWallet(ctx, b.OrganizationID, api.CreateWalletIntent{WalletName: "prod", Accounts: []api.WalletAccountParams{{
		Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Faucet().Fund(ctx, common.HexToAddress(w.Addresses[0]), big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	res, _, err := root.EthSendTransaction(ctx, b.OrganizationID, api.EthSendTransactionIntentV2{From: w.Addresses[0], Caip2: network,
		Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000c0de", Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := root.WaitForSendTransaction(ctx, b.OrganizationID, res.SendTransactionStatusID, 30*time.Second); err != nil || st.TxStatus != api.TxStatusIncluded {
		t.Fatalf("a send on the configured node in production: %+v %v", st, err)
	}
}

// Production mode keeps the private keys of DIR/bootstrap.json (the root user's API key) and DIR/authproxy.json (the
// proxy's keys) sealed under the master key: whoever reads the data directory finds no key in clear. A directory
// started in dev mode first has its keys sealed in place at the first production start; later starts open them, and
// the sealed root key still signs for the organization.
func TestProductionKeepsPrivateKeysSealed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	keyFile := filepath.Join(t.TempDir(), "master.key")
	ring, err := seal.CreateKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dev := start(t, stack.Config{Dir: dir, NoDevChain: true, MasterKeyFile: keyFile})
	devBoot := dev.Bootstrap()
	if devBoot.APIPrivateKey == "" || devBoot.APIPrivateKeySealed != "" {
		t.Fatalf("dev mode's bootstrap record: the key in clear %t, sealed %t", devBoot.APIPrivateKey != "", devBoot.APIPrivateKeySealed != "")
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}

	delivery := stack.Delivery{Twilio: &notify.TwilioConfig{BaseURL: "http://127.0.0.1:1", AccountSID: "AC123", AuthToken: "token", From: "+15005550006"}}
	for round := range 2 {
		s := start(t, stack.Config{Dir: dir, Production: true, MasterKeyFile: keyFile, Delivery: delivery})
		b := s.Bootstrap()
		if b.OrganizationID != devBoot.OrganizationID || b.APIPublicKey != devBoot.APIPublicKey {
			t.Fatalf("start %d: another root organization or key: %+v", round, b)
		}
		proxy, err := authproxy.LoadIdentity(filepath.Join(dir, stack.AuthProxyIdentityFile), ring)
		if err != nil {
			t.Fatal(err)
		}
		secrets := map[string]string{"the root user's private key": devBoot.APIPrivateKey,
			"the proxy's service key": proxy.ServiceKey.PrivateKeyHex(), "the proxy's encryption key": hex.EncodeToString(proxy.EncryptionKey.Bytes())}
		for _, file := range []string{stack.BootstrapFile, stack.AuthProxyIdentityFile} {
			path := filepath.Join(dir, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for name, secret := range secrets {
				if strings.Contains(strings.ToLower(string(data)), strings.ToLower(secret)) {
					t.Errorf("start %d: %s holds %s in clear", round, file, name)
				}
			}
			if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("start %d: %s has mode %v (%v)", round, file, info.Mode(), err)
			}
		}
		if _, err := b.RootKey(); !errors.Is(err, stack.ErrRootKeySealed) {
			t.Errorf("start %d: the root key without the master key: %v", round, err)
		}
		if _, err := authproxy.LoadIdentity(filepath.Join(dir, stack.AuthProxyIdentityFile), nil); !errors.Is(err, authproxy.ErrSealed) {
			t.Errorf("start %d: the proxy's keys without the master key: %v", round, err)
		}
		key, err := b.OpenRootKey(ring)
		if err != nil {
			t.Fatal(err)
		}
		if who, err := client.New(b.CoordinatorURL, key).Whoami(ctx, b.OrganizationID); err != nil || who.UserID != b.UserID {
			t.Fatalf("start %d: whoami with the sealed root key: %+v %v", round, who, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Closing under load (what SIGTERM does) loses nothing acknowledged: every activity a client got an answer for is in
// the database afterwards. Requests that arrive meanwhile are refused or cut, never half-recorded.
func TestCloseUnderLoadLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := stack.Start(context.Background(), stack.Config{Dir: dir, NoDevChain: true})
	if err != nil {
		t.Fatal(err)
	}
	b := s.Bootstrap()
	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var acknowledged []string
	var wg sync.WaitGroup
	started := make(chan struct{}, 4)
	for i := range 4 {
		wg.Go(func() {
			c := client.New(b.CoordinatorURL, key)
			for n := 0; ; n++ {
				_, a, err := c.UpdateOrganizationName(context.Background(), b.OrganizationID,
					api.UpdateOrganizationNameIntent{OrganizationName: fmt.Sprintf("load %d-%d", i, n)})
				if err != nil {
					return // the stack is going away
				}
				mu.Lock()
				acknowledged = append(acknowledged, a.ID)
				mu.Unlock()
				if n == 3 {
					started <- struct{}{}
				}
			}
		})
	}
	for range 4 {
		<-started
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	st, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range acknowledged {
		if _, err := st.ActivityByID(context.Background(), b.OrganizationID, id); err != nil {
			t.Errorf("acknowledged activity %s: %v", id, err)
		}
	}
	if len(acknowledged) < 16 {
		t.Fatalf("only %d activities acknowledged", len(acknowledged))
	}
}
