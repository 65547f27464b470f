package oidc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
)

// clock is a settable clock shared by the verifier and the provider.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a provider and a verifier that trusts it for ClientID.
type fixture struct {
	provider *oidctest.Provider
	clock    *clock
	verifier *oidc.Verifier
}

func newFixture(t testing.TB, issuers ...oidc.Issuer) *fixture {
	t.Helper()
	p := oidctest.New()
	t.Cleanup(p.Close)
	c := newClock()
	p.SetClock(c.Now)
	if len(issuers) == 0 {
		issuers = []oidc.Issuer{{URL: p.Issuer(), Audiences: []string{oidctest.ClientID}}}
	}
	v, err := oidc.NewVerifier(oidc.Config{Issuers: issuers, Clock: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{provider: p, clock: c, verifier: v}
}

func (f *fixture) verify(token string, opts oidc.VerifyOptions) (*oidc.Claims, error) {
	return f.verifier.Verify(context.Background(), token, opts)
}

// fetches reports how often discovery and JWKS were requested.
func (f *fixture) fetches() (discovery, jwks int) {
	return f.provider.Requests(oidctest.DiscoveryPath), f.provider.Requests(oidctest.JWKSPath)
}

func TestVerifyAcceptsValidTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := f.clock.Now()
	tests := []struct {
		name   string
		claims map[string]any
		alg    string
		opts   oidc.VerifyOptions
		header []oidctest.TokenOption
	}{
		{name: "RS256", alg: oidctest.AlgRS256},
		{name: "ES256", alg: oidctest.AlgES256},
		{name: "nonce expected and present", alg: oidctest.AlgRS256, claims: map[string]any{"nonce": "n-123"}, opts: oidc.VerifyOptions{Nonce: "n-123"}},
		{name: "audience array", alg: oidctest.AlgES256, claims: map[string]any{"aud": []string{"other", oidctest.ClientID}}},
		{name: "expired within skew", alg: oidctest.AlgRS256, claims: map[string]any{"exp": now.Add(-30 * time.Second).Unix()}},
		{name: "issued in the future within skew", alg: oidctest.AlgRS256, claims: map[string]any{"iat": now.Add(30 * time.Second).Unix()}},
		{name: "no kid, one key of the algorithm", alg: oidctest.AlgES256, header: []oidctest.TokenOption{oidctest.WithHeader("kid", nil)}},
		{name: "Apple's string email_verified", alg: oidctest.AlgRS256, claims: map[string]any{"email_verified": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, err := f.verify(f.provider.IDToken(tt.claims, append(tt.header, oidctest.WithAlg(tt.alg))...), tt.opts)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if claims.Issuer != f.provider.Issuer() || claims.Subject != oidctest.DefaultSubject {
				t.Errorf("iss/sub = %q/%q, want %q/%q", claims.Issuer, claims.Subject, f.provider.Issuer(), oidctest.DefaultSubject)
			}
			if claims.Email != oidctest.DefaultEmail || !claims.EmailVerified {
				t.Errorf("email = %q verified=%v", claims.Email, claims.EmailVerified)
			}
			if claims.Nonce != tt.opts.Nonce {
				t.Errorf("nonce = %q, want %q", claims.Nonce, tt.opts.Nonce)
			}
			if !containsString(claims.Audience, oidctest.ClientID) {
				t.Errorf("aud = %v", claims.Audience)
			}
			if claims.Raw["sub"] != oidctest.DefaultSubject || claims.IssuedAt.IsZero() || claims.ExpiresAt.IsZero() {
				t.Errorf("raw/iat/exp not filled: %v %v %v", claims.Raw, claims.IssuedAt, claims.ExpiresAt)
			}
		})
	}
	if d, j := f.fetches(); d != 1 || j != 1 {
		t.Errorf("discovery fetched %d times and JWKS %d times, want once each", d, j)
	}
}

func TestVerifyRefusesBadTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.provider
	now := f.clock.Now()
	rsaKID, _ := p.KeyIDs()
	valid := p.IDToken(nil)
	parts := strings.Split(valid, ".")
	admin := strings.Split(p.IDToken(map[string]any{"sub": "admin"}), ".")
	forged := oidctest.New() // a stranger who knows our kid and issuer
	defer forged.Close()

	tests := []struct {
		name  string
		token string
		opts  oidc.VerifyOptions
		want  error
	}{
		{"wrong nonce", p.IDToken(map[string]any{"nonce": "abc"}), oidc.VerifyOptions{Nonce: "xyz"}, oidc.ErrNonceMismatch},
		{"nonce missing", p.IDToken(nil), oidc.VerifyOptions{Nonce: "xyz"}, oidc.ErrNonceMismatch},
		{"nonce not a string", p.IDToken(map[string]any{"nonce": 7}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"wrong audience", p.IDToken(map[string]any{"aud": "someone-else"}), oidc.VerifyOptions{}, oidc.ErrWrongAudience},
		{"wrong audiences", p.IDToken(map[string]any{"aud": []string{"a", "b"}}), oidc.VerifyOptions{}, oidc.ErrWrongAudience},
		{"no audience", p.IDToken(map[string]any{"aud": nil}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"expired", p.IDToken(map[string]any{"exp": now.Add(-2 * time.Minute).Unix()}), oidc.VerifyOptions{}, oidc.ErrExpired},
		{"issued in the future", p.IDToken(map[string]any{"iat": now.Add(2 * time.Minute).Unix()}), oidc.VerifyOptions{}, oidc.ErrNotYetValid},
		{"not before the future", p.IDToken(map[string]any{"nbf": now.Add(2 * time.Minute).Unix()}), oidc.VerifyOptions{}, oidc.ErrNotYetValid},
		{"no exp", p.IDToken(map[string]any{"exp": nil}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"exp not a number", p.IDToken(map[string]any{"exp": "tomorrow"}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"no iat", p.IDToken(map[string]any{"iat": nil}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"no sub", p.IDToken(map[string]any{"sub": nil}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"no iss", p.IDToken(map[string]any{"iss": nil}), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"alg none", p.IDToken(nil, oidctest.WithAlg(oidctest.AlgNone)), oidc.VerifyOptions{}, oidc.ErrUnsupportedAlg},
		{"HS256 keyed with the public key", p.IDToken(nil, oidctest.WithAlg(oidctest.AlgHS256)), oidc.VerifyOptions{}, oidc.ErrUnsupportedAlg},
		{"unknown alg", p.IDToken(nil, oidctest.WithHeader("alg", "XY999")), oidc.VerifyOptions{}, oidc.ErrUnsupportedAlg},
		{"RS512 claimed", p.IDToken(nil, oidctest.WithHeader("alg", "RS512")), oidc.VerifyOptions{}, oidc.ErrUnsupportedAlg},
		{"ES256 signature under an RS256 header", p.IDToken(nil, oidctest.WithAlg(oidctest.AlgES256), oidctest.WithHeader("alg", "RS256"), oidctest.WithHeader("kid", rsaKID)), oidc.VerifyOptions{}, oidc.ErrBadSignature},
		{"signed by another key under our kid", forged.IDToken(map[string]any{"iss": p.Issuer()}, oidctest.WithHeader("kid", rsaKID)), oidc.VerifyOptions{}, oidc.ErrBadSignature},
		{"payload changed after signing", parts[0] + "." + admin[1] + "." + parts[2], oidc.VerifyOptions{}, oidc.ErrBadSignature},
		{"ES256 under the RSA key's kid", p.IDToken(nil, oidctest.WithAlg(oidctest.AlgES256), oidctest.WithHeader("kid", rsaKID)), oidc.VerifyOptions{}, oidc.ErrUnknownKey},
		{"critical header", p.IDToken(nil, oidctest.WithHeader("crit", []string{"exp"})), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"kid not a string", p.IDToken(nil, oidctest.WithHeader("kid", 5)), oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"not a JWT", "not-a-token", oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"bad base64", "!!.!!.!!", oidc.VerifyOptions{}, oidc.ErrMalformed},
		{"oversized", p.IDToken(map[string]any{"pad": strings.Repeat("x", 20000)}), oidc.VerifyOptions{}, oidc.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, err := f.verify(tt.token, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, %v; want %v", claims, err, tt.want)
			}
			if claims != nil {
				t.Errorf("claims returned with an error")
			}
			t.Log(err)
		})
	}
}

func TestUntrustedIssuerIsRefusedWithoutAnyRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stranger := oidctest.New()
	defer stranger.Close()
	for _, iss := range []string{stranger.Issuer(), f.provider.Issuer() + "/", "https://accounts.google.com"} {
		token := stranger.IDToken(map[string]any{"iss": iss})
		if _, err := f.verify(token, oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrUntrustedIssuer) {
			t.Errorf("iss %q: err = %v, want ErrUntrustedIssuer", iss, err)
		}
	}
	if n, m := f.provider.Requests(""), stranger.Requests(""); n != 0 || m != 0 {
		t.Errorf("requests made: %d to the trusted provider, %d to the stranger; want none", n, m)
	}
}

func TestKeyRotationRefreshesOnceWithinTheRateLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.provider
	if _, err := f.verify(p.IDToken(nil), oidc.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(oidc.DefaultRefreshInterval)
	p.RotateKeys()

	// A token under the new kid: one refresh, then accepted.
	if _, err := f.verify(p.IDToken(nil), oidc.VerifyOptions{}); err != nil {
		t.Fatalf("token under the rotated key: %v", err)
	}
	if _, j := f.fetches(); j != 2 {
		t.Fatalf("JWKS fetched %d times, want 2", j)
	}
	// Another unknown kid inside the rate-limit window: refused, no fetch.
	for _, kid := range []string{"never-published", "also-unknown"} {
		if _, err := f.verify(p.IDToken(nil, oidctest.WithHeader("kid", kid)), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrUnknownKey) {
			t.Fatalf("kid %q: err = %v, want ErrUnknownKey", kid, err)
		}
	}
	if _, j := f.fetches(); j != 2 {
		t.Fatalf("JWKS fetched %d times within the rate-limit window, want still 2", j)
	}
	// Once the window has passed, an unknown kid triggers exactly one fetch.
	f.clock.Advance(oidc.DefaultRefreshInterval)
	if _, err := f.verify(p.IDToken(nil, oidctest.WithHeader("kid", "never-published")), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrUnknownKey) {
		t.Fatalf("err = %v, want ErrUnknownKey", err)
	}
	if d, j := f.fetches(); d != 1 || j != 3 {
		t.Fatalf("discovery %d, JWKS %d fetches; want 1 and 3", d, j)
	}
}

func TestKeysAreRefetchedWhenTheCacheExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.provider.IDToken(nil)
	for _, step := range []struct {
		advance         time.Duration
		discovery, jwks int
	}{
		{0, 1, 1},
		{oidctest.MetadataMaxAge - time.Second, 1, 1},
		{2 * time.Second, 2, 2}, // past max-age: discovery and JWKS again
		{time.Second, 2, 2},
	} {
		f.clock.Advance(step.advance)
		if _, err := f.verify(token, oidc.VerifyOptions{}); err != nil {
			t.Fatal(err)
		}
		if d, j := f.fetches(); d != step.discovery || j != step.jwks {
			t.Fatalf("after +%s: discovery %d, JWKS %d; want %d, %d", step.advance, d, j, step.discovery, step.jwks)
		}
	}
}

func TestDiscoveryDown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.provider.IDToken(nil)
	f.provider.SetDown(true)
	if _, err := f.verify(token, oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrDiscovery) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want ErrDiscovery naming HTTP 503", err)
	}
	// Back up, but the failed attempt is not repeated within the window.
	f.provider.SetDown(false)
	if _, err := f.verify(token, oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrDiscovery) {
		t.Fatalf("err = %v, want the remembered ErrDiscovery", err)
	}
	if n := f.provider.Requests(""); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	f.clock.Advance(oidc.DefaultRefreshInterval)
	if _, err := f.verify(token, oidc.VerifyOptions{}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestProviderGoneAfterCaching(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.provider.IDToken(nil)
	if _, err := f.verify(token, oidc.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	f.provider.Close()
	// Cached keys keep working while fresh...
	if _, err := f.verify(token, oidc.VerifyOptions{}); err != nil {
		t.Fatalf("with cached keys: %v", err)
	}
	// ...and once expired, the failure is reported, not hidden.
	f.clock.Advance(oidctest.MetadataMaxAge + time.Second)
	if _, err := f.verify(f.provider.IDToken(nil), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrDiscovery) {
		t.Fatalf("err = %v, want ErrDiscovery", err)
	}
}

func TestIssuerOptions(t *testing.T) {
	t.Parallel()
	t.Run("configured JWKS URL skips discovery", func(t *testing.T) {
		p := oidctest.New()
		defer p.Close()
		v, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: p.Issuer(), JWKSURL: p.JWKSURL(), Audiences: []string{oidctest.ClientID}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(context.Background(), p.IDToken(nil), oidc.VerifyOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := p.Requests(oidctest.DiscoveryPath); n != 0 {
			t.Errorf("discovery requested %d times", n)
		}
	})
	t.Run("static JWKS is never fetched", func(t *testing.T) {
		p := oidctest.New()
		defer p.Close()
		resp, err := http.Get(p.JWKSURL())
		if err != nil {
			t.Fatal(err)
		}
		jwks, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		v, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: p.Issuer(), JWKS: jwks, Audiences: []string{oidctest.ClientID}}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, alg := range []string{oidctest.AlgRS256, oidctest.AlgES256} {
			if _, err := v.Verify(context.Background(), p.IDToken(nil, oidctest.WithAlg(alg)), oidc.VerifyOptions{}); err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
		}
		if _, err := v.Verify(context.Background(), p.IDToken(nil, oidctest.WithHeader("kid", "rotated")), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrUnknownKey) {
			t.Fatalf("unknown kid: err = %v, want ErrUnknownKey", err)
		}
		if n := p.Requests(""); n != 1 {
			t.Errorf("%d requests, want only the test's own", n)
		}
	})
	t.Run("alias is reported as the issuer URL", func(t *testing.T) {
		f := newFixture(t)
		f2, err := oidc.NewVerifier(oidc.Config{Clock: f.clock.Now, Issuers: []oidc.Issuer{{URL: f.provider.Issuer(), Aliases: []string{"test-alias"}, AnyAudience: true}}})
		if err != nil {
			t.Fatal(err)
		}
		claims, err := f2.Verify(context.Background(), f.provider.IDToken(map[string]any{"iss": "test-alias", "aud": "anyone"}), oidc.VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if claims.Issuer != f.provider.Issuer() || claims.Raw["iss"] != "test-alias" {
			t.Errorf("issuer %q, raw %v", claims.Issuer, claims.Raw["iss"])
		}
	})
	t.Run("discovery naming another issuer", func(t *testing.T) {
		p := oidctest.New()
		defer p.Close()
		// A proxy that serves p's discovery document under another issuer.
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, p.Issuer()+r.URL.Path, http.StatusFound)
		}))
		defer proxy.Close()
		v, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: proxy.URL, AnyAudience: true}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), p.IDToken(map[string]any{"iss": proxy.URL}), oidc.VerifyOptions{})
		if !errors.Is(err, oidc.ErrDiscovery) || !strings.Contains(err.Error(), "names issuer") {
			t.Fatalf("err = %v, want ErrDiscovery about the issuer name", err)
		}
	})
	t.Run("oversized JWKS", func(t *testing.T) {
		p := oidctest.New()
		defer p.Close()
		big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys":[` + strings.Repeat(" ", 300<<10) + `]}`))
		}))
		defer big.Close()
		v, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: p.Issuer(), JWKSURL: big.URL, AnyAudience: true}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(context.Background(), p.IDToken(nil), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrDiscovery) || !strings.Contains(err.Error(), "too large") {
			t.Fatalf("err = %v, want ErrDiscovery about size", err)
		}
	})
}

func TestConcurrentColdCacheFetchesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tokens := []string{f.provider.IDToken(nil), f.provider.IDToken(nil, oidctest.WithAlg(oidctest.AlgES256))}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			_, err := f.verify(tokens[i%2], oidc.VerifyOptions{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d, j := f.fetches(); d != 1 || j != 1 {
		t.Errorf("discovery %d, JWKS %d fetches; want 1 each", d, j)
	}
}

func TestCancelledWaitDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.provider.SetDown(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.verifier.Verify(ctx, f.provider.IDToken(nil), oidc.VerifyOptions{}); !errors.Is(err, oidc.ErrDiscovery) {
		t.Fatalf("cancelled: err = %v, want ErrDiscovery", err)
	}
	// The cancelled attempt does not count against the rate limit.
	f.provider.SetDown(false)
	if _, err := f.verify(f.provider.IDToken(nil), oidc.VerifyOptions{}); err != nil {
		t.Fatalf("next caller: %v", err)
	}
}

func TestNewVerifierRefusesBadConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  oidc.Config
	}{
		{"no issuers", oidc.Config{}},
		{"no audiences", oidc.Config{Issuers: []oidc.Issuer{oidc.Google()}}},
		{"empty audience", oidc.Config{Issuers: []oidc.Issuer{oidc.Apple("")}}},
		{"plain http off loopback", oidc.Config{Issuers: []oidc.Issuer{{URL: "http://issuer.example", AnyAudience: true}}}},
		{"not a URL", oidc.Config{Issuers: []oidc.Issuer{{URL: "issuer", AnyAudience: true}}}},
		{"query in issuer", oidc.Config{Issuers: []oidc.Issuer{{URL: "https://issuer.example?x=1", AnyAudience: true}}}},
		{"plain http JWKS", oidc.Config{Issuers: []oidc.Issuer{{URL: "https://issuer.example", JWKSURL: "http://keys.example", AnyAudience: true}}}},
		{"issuer twice", oidc.Config{Issuers: []oidc.Issuer{oidc.Google("a"), {URL: "https://other.example", Aliases: []string{"accounts.google.com"}, AnyAudience: true}}}},
		{"static JWKS without usable key", oidc.Config{Issuers: []oidc.Issuer{{URL: "https://issuer.example", JWKS: []byte(`{"keys":[]}`), AnyAudience: true}}}},
		{"static JWKS and JWKS URL", oidc.Config{Issuers: []oidc.Issuer{{URL: "https://issuer.example", JWKS: []byte(`{}`), JWKSURL: "https://issuer.example/jwks", AnyAudience: true}}}},
		{"negative skew", oidc.Config{Issuers: []oidc.Issuer{oidc.Facebook("app")}, ClockSkew: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := oidc.NewVerifier(tt.cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if _, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{oidc.Google("g"), oidc.Apple("a"), oidc.Facebook("f")}}); err != nil {
		t.Fatalf("well-known issuers: %v", err)
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
