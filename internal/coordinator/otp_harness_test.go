package coordinator_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
)

// clock is a settable test clock shared by the coordinator and its clients.
type clock struct {
	mu sync.Mutex
	t  time.Time
	n  int
}

func newClock() *clock { return &clock{t: time.Now().UTC()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Stamp is the time clients put in timestampMs: the clock plus one more millisecond per call, so that two requests
// with the same parameters are two activities, not one (an identical body is the same activity).
func (c *clock) Stamp() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.t.Add(time.Duration(c.n) * time.Millisecond)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// otpEnv is a coordinator configured by a test, served together with its JWKS and the dev outbox as `sigil up`
// serves them, with a root organization and its client.
type otpEnv struct {
	store  *store.Store
	coord  *coordinator.Coordinator
	srv    *httptest.Server
	boot   *coordinator.Bootstrap
	root   *client.Client
	clock  *clock
	outbox *notify.Outbox
	cfg    coordinator.Config // the coordinator's configuration
}

// startOTPEnv starts an otpEnv; e-mail and SMS go to a dev outbox unless cfg names other senders.
func startOTPEnv(tb testing.TB, b testdb.Backend, cfg coordinator.Config) *otpEnv {
	tb.Helper()
	s, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	clk := newClock()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	outbox, err := notify.OpenOutbox(tb.TempDir(), quiet, clk.Now)
	if err != nil {
		tb.Fatal(err)
	}
	if cfg.Email == nil {
		cfg.Email = outbox
	}
	if cfg.SMS == nil {
		cfg.SMS = outbox
	}
	if cfg.Keyring == nil {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Keyring = ring
	}
	cfg.Logger, cfg.Now = quiet, clk.Now
	cfg.EmailFrom = "otp@sigil.test"
	coord := coordinator.New(s, cfg)
	mux := http.NewServeMux()
	mux.Handle("GET /.well-known/jwks.json", coord.JWKSHandler())
	mux.Handle("GET /dev/outbox", outbox)
	mux.Handle("/", coord.Handler())
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	boot, err := coord.CreateRootOrganization(context.Background(), "Acme", "root")
	if err != nil {
		tb.Fatal(err)
	}
	root := client.New(srv.URL, boot.APIKey)
	root.PollInterval, root.Now = 10*time.Millisecond, clk.Stamp
	return &otpEnv{store: s, coord: coord, srv: srv, boot: boot, root: root, clock: clk, outbox: outbox, cfg: cfg}
}

// process is another coordinator process of the same deployment, over the same database, master key, senders and
// clock, with the settings of change: as a process started with other flags.
func (e *otpEnv) process(tb testing.TB, change coordinator.Config) *stack {
	tb.Helper()
	cfg := e.cfg
	cfg.EmailSenderDomains = change.EmailSenderDomains
	coord := coordinator.New(e.store, cfg)
	if err := coord.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	tb.Cleanup(srv.Close)
	return &stack{t: tb, store: e.store, coord: coord, srv: srv, boot: e.boot, clock: e.clock, stamps: &stampClock{}, ring: cfg.Keyring}
}

// subOrgWithUser creates a sub-organization whose root user has the e-mail address and phone number, and returns
// the sub-organization's and the user's ids.
func (e *otpEnv) subOrgWithUser(tb testing.TB, email, phone string) (string, string) {
	tb.Helper()
	k, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		tb.Fatal(err)
	}
	params := api.APIKeyParamsV2{APIKeyName: "key", PublicKey: k.PublicKeyHex(), CurveType: string(stamp.CurveP256)}
	one := int32(1)
	res, _, err := e.root.CreateSubOrganization(context.Background(), e.boot.OrganizationID, api.CreateSubOrganizationIntentV8{
		SubOrganizationName: "sub " + email, RootQuorumThreshold: &one,
		RootUsers: []api.RootUserParamsV5{{UserName: "end user", UserEmail: email, UserPhoneNumber: phone,
			APIKeys: []api.APIKeyParamsV2{params}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return res.SubOrganizationID, res.RootUserIDs[0]
}

// tokenKey is the coordinator's published token key, read from its JWKS.
func (e *otpEnv) tokenKey(tb testing.TB) *ecdsa.PublicKey {
	tb.Helper()
	set, err := e.coord.JWKS(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	pub, err := jwkKey(set.Keys[0])
	if err != nil {
		tb.Fatal(err)
	}
	return pub
}

// otpStack is an otpEnv with the coordinator tests' stack helpers.
type otpStack struct {
	*stack
	env    *otpEnv
	clock  *clock
	outbox *notify.Outbox
}

func newOTPStack(t *testing.T, b testdb.Backend, cfg coordinator.Config) *otpStack {
	t.Helper()
	e := startOTPEnv(t, b, cfg)
	st := &stack{t: t, store: e.store, coord: e.coord, srv: e.srv, boot: e.boot, root: e.root, stamps: &stampClock{}}
	return &otpStack{stack: st, env: e, clock: e.clock, outbox: e.outbox}
}

func (s *otpStack) subOrgWithUser(email, phone string) (string, string) {
	s.t.Helper()
	return s.env.subOrgWithUser(s.t, email, phone)
}

func (s *otpStack) tokenKey() *ecdsa.PublicKey { return s.env.tokenKey(s.t) }

func (s *otpStack) clientFor(st stamp.Stamper) *client.Client {
	c := s.client(st)
	c.Now = s.clock.Stamp
	return c
}

var codePattern = regexp.MustCompile(`verification code is ([0-9A-Z]+)`)

// lastCode reads the code of the newest outbox message to the contact.
func (s *otpStack) lastCode(to string) string {
	s.t.Helper()
	entries := s.outbox.Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.To != to {
			continue
		}
		text := e.Subject
		if e.Kind == "sms" {
			text = e.Text
		}
		if m := codePattern.FindStringSubmatch(text); m != nil {
			return m[1]
		}
		if m := regexp.MustCompile(`code is ([0-9A-Z]+)`).FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	s.t.Fatalf("no code sent to %s (outbox has %d messages)", to, len(entries))
	return ""
}

func newP256(t testing.TB) (*ecdsa.PrivateKey, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := tokens.CompressedPublicKeyHex(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return k, pub
}

// sessionStamper turns a P-256 key into an API-key stamper, as the SDKs stamp with a session key.
func sessionStamper(t testing.TB, k *ecdsa.PrivateKey) *stamp.APIKey {
	t.Helper()
	sk, err := stamp.ParseAPIKey(stamp.CurveP256, hexScalar(k))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}
