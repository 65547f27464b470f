package authproxy_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
)

// ownIssuer is the issuer of the OIDC tokens the coordinator issues after an OAuth 2.0 code exchange.
const ownIssuer = "https://sigil.test/oidc"

// clock is the proxy's settable clock (rate limits).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

// env is a real coordinator (real database, dev outbox, a local OIDC provider it trusts) on an HTTP server, and a
// proxy in front of it, each on its own loopback server, as `sigil up` runs them.
type env struct {
	t        testing.TB
	store    *store.Store
	coord    *coordinator.Coordinator
	coordSrv *httptest.Server
	outbox   *notify.Outbox
	id       *authproxy.Identity
	proxySrv *httptest.Server
	clock    *clock
	idp      *oidctest.Provider
	logs     *syncBuffer // the coordinator's and the proxy's logs
}

// tenant is a root organization with its proxy configuration.
type tenant struct {
	orgID    string
	root     *client.Client
	configID string
}

func newEnv(t testing.TB, b testdb.Backend, proxyCfg authproxy.Config) *env {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	outbox, err := notify.OpenOutbox(t.TempDir(), logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: master})
	if err != nil {
		t.Fatal(err)
	}
	id, err := authproxy.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	idp := oidctest.New()
	t.Cleanup(idp.Close)
	verifier, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: idp.Issuer(), Audiences: []string{oidctest.ClientID}}}})
	if err != nil {
		t.Fatal(err)
	}
	coord := coordinator.New(s, coordinator.Config{Logger: logger, Keyring: ring, Email: outbox, SMS: outbox, EmailFrom: "otp@sigil.test",
		OIDC: verifier, OIDCIssuerURL: ownIssuer,
		OAuth2Providers: map[string]oidc.Provider{api.Oauth2ProviderX: {TokenURL: idp.TokenURL(), UserInfoURL: idp.XUserInfoURL(),
			ClientAuth: oidc.ClientSecretBasic, SubjectField: "data.id"}},
		AuthProxy: &coordinator.AuthProxyService{EncryptionKey: id.EncryptionPublicKey(), ServiceKey: id.ServicePublicKey()}})
	if err := coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	coordSrv := httptest.NewServer(coord.Handler())
	t.Cleanup(coordSrv.Close)
	clk := &clock{t: time.Now()}
	proxyCfg.CoordinatorURL, proxyCfg.Identity, proxyCfg.Logger = coordSrv.URL, id, logger
	if proxyCfg.Now == nil {
		proxyCfg.Now = clk.Now
	}
	if proxyCfg.ConfigTTL == 0 {
		proxyCfg.ConfigTTL = -1 // every request reads its configuration; TestConfigCache tests the cache
	}
	if proxyCfg.IPRate == 0 {
		proxyCfg.IPRate = -1 // tests send many requests from one address; TestRateLimits sets its own
	}
	proxy, err := authproxy.New(proxyCfg)
	if err != nil {
		t.Fatal(err)
	}
	proxySrv := httptest.NewServer(proxy.Handler())
	t.Cleanup(proxySrv.Close)
	return &env{t: t, store: s, coord: coord, coordSrv: coordSrv, outbox: outbox, id: id, proxySrv: proxySrv, clock: clk, idp: idp, logs: logs}
}

// tenant creates a root organization and enables its proxy with the settings.
func (e *env) tenant(name string, settings api.UpdateAuthProxyConfigIntent) *tenant {
	e.t.Helper()
	ctx := context.Background()
	boot, err := e.coord.CreateRootOrganization(ctx, name, "root")
	if err != nil {
		e.t.Fatal(err)
	}
	root := client.New(e.coordSrv.URL, boot.APIKey)
	root.PollInterval = 10 * time.Millisecond
	enabled, _, err := root.EnableAuthProxy(ctx, boot.OrganizationID)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, _, err := root.UpdateAuthProxyConfig(ctx, boot.OrganizationID, settings); err != nil {
		e.t.Fatal(err)
	}
	return &tenant{orgID: boot.OrganizationID, root: root, configID: enabled.ConfigID}
}

// proxy is a proxy client for a configuration, from an origin ("" for none).
func (e *env) proxy(configID, origin string) *client.Proxy {
	p := client.NewProxy(e.proxySrv.URL, configID)
	p.Origin = origin
	return p
}

var codePattern = regexp.MustCompile(`code is ([0-9A-Za-z]+)`)

// lastCode reads the newest code the outbox sent to contact.
func (e *env) lastCode(to string) string {
	e.t.Helper()
	entries := e.outbox.Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].To != to {
			continue
		}
		text := entries[i].Subject + " " + entries[i].Text
		if m := codePattern.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	e.t.Fatalf("no code sent to %s", to)
	return ""
}

// tokenKey is the coordinator's token key, as it tells the proxy.
func (e *env) tokenKey(configID string) *ecdsa.PublicKey {
	e.t.Helper()
	res, err := client.New(e.coordSrv.URL, e.id.ServiceKey).ResolveAuthProxyConfig(context.Background(), configID)
	if err != nil {
		e.t.Fatal(err)
	}
	pub, err := token.ParseP256PublicKey(res.TokenPublicKey)
	if err != nil {
		e.t.Fatal(err)
	}
	return pub
}

// proxyPrivateKey opens a configuration's proxy key as only the proxy can, for the leak scan.
func (e *env) proxyPrivateKey(configID string) string {
	e.t.Helper()
	svc := client.New(e.coordSrv.URL, e.id.ServiceKey)
	res, err := svc.ResolveAuthProxyConfig(context.Background(), configID)
	if err != nil {
		e.t.Fatal(err)
	}
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(res.EncryptedProxyKey), &ct); err != nil {
		e.t.Fatal(err)
	}
	raw, err := bundle.Open(e.id.EncryptionKey, ct)
	if err != nil {
		e.t.Fatal(err)
	}
	var p api.AuthProxyKeyPlaintext
	_ = json.Unmarshal(raw, &p)
	return p.PrivateKey
}

// clientKey is an end user's P-256 key pair, as @turnkey/core generates one per login.
type clientKey struct {
	priv *ecdsa.PrivateKey
	pub  string // compressed hex
}

func newClientKey(t testing.TB) clientKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := stamp.P256PublicKeyHex(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return clientKey{priv: k, pub: pub}
}

// stamper stamps with the key, as a session key stamps after a login.
func (k clientKey) stamper(t testing.TB) *stamp.APIKey {
	t.Helper()
	raw, err := k.priv.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s, err := stamp.ParseAPIKey(stamp.CurveP256, hex.EncodeToString(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// raw posts a body as a browser would, with the headers given, and returns the status, headers and body.
func (e *env) raw(method, path string, body []byte, header map[string]string) (int, http.Header, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.proxySrv.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, data
}

// proxyKeyStamper stamps with a configuration's proxy key, as the proxy does (the benchmark's direct path).
func (e *env) proxyKeyStamper(configID string) *stamp.APIKey {
	e.t.Helper()
	k, err := stamp.ParseAPIKey(stamp.CurveP256, e.proxyPrivateKey(configID))
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}
