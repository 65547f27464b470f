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

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/internal/testdb"
	"sigil/notify"
	"sigil/stamp"
	"sigil/store"
	tokens "sigil/token"
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

// otpStack is a stack whose coordinator delivers OTPs: to a dev outbox unless cfg names other senders.
type otpStack struct {
	*stack
	clock  *clock
	outbox *notify.Outbox
}

// newOTPStack starts a coordinator configured by cfg (Email defaults to a dev outbox), served together with its JWKS
// and the outbox as `sigil up` serves them.
func newOTPStack(t *testing.T, b testdb.Backend, cfg coordinator.Config) *otpStack {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	clk := newClock()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	outbox, err := notify.OpenOutbox(t.TempDir(), quiet, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Email == nil {
		cfg.Email = outbox
	}
	if cfg.SMS == nil {
		cfg.SMS = outbox
	}
	cfg.Logger, cfg.Keyring, cfg.Now = quiet, testKeyring(t), clk.Now
	cfg.EmailFrom = "otp@sigil.test"
	coord := coordinator.New(s, cfg)
	mux := http.NewServeMux()
	mux.Handle("GET /.well-known/jwks.json", coord.JWKSHandler())
	mux.Handle("GET /dev/outbox", outbox)
	mux.Handle("/", coord.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	boot, err := coord.CreateRootOrganization(context.Background(), "Acme", "root")
	if err != nil {
		t.Fatal(err)
	}
	st := &stack{t: t, store: s, coord: coord, srv: srv, boot: boot}
	st.root = st.client(boot.APIKey)
	st.root.Now = clk.Stamp
	return &otpStack{stack: st, clock: clk, outbox: outbox}
}

func (s *otpStack) clientFor(st stamp.Stamper) *client.Client {
	c := s.client(st)
	c.Now = s.clock.Stamp
	return c
}

// subOrgWithUser creates a sub-organization whose root user has the e-mail address and phone number, and returns
// the sub-organization's and the user's ids.
func (s *otpStack) subOrgWithUser(email, phone string) (string, string) {
	s.t.Helper()
	_, params := newKey(s.t, stamp.CurveP256)
	one := int32(1)
	res, _, err := s.root.CreateSubOrganization(context.Background(), s.boot.OrganizationID, api.CreateSubOrganizationIntentV8{
		SubOrganizationName: "sub " + email, RootQuorumThreshold: &one,
		RootUsers: []api.RootUserParamsV5{{UserName: "end user", UserEmail: email, UserPhoneNumber: phone,
			APIKeys: []api.APIKeyParamsV2{params}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.SubOrganizationID, res.RootUserIDs[0]
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

// tokenKey is the coordinator's published token key, read from its JWKS.
func (s *otpStack) tokenKey() *ecdsa.PublicKey {
	s.t.Helper()
	set, err := s.coord.JWKS(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	pub, err := jwkKey(set.Keys[0])
	if err != nil {
		s.t.Fatal(err)
	}
	return pub
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
