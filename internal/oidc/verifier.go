package oidc

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults of Config.
const (
	DefaultClockSkew       = time.Minute
	DefaultRefreshInterval = 30 * time.Second
	DefaultCacheAge        = time.Hour
	DefaultMaxCacheAge     = 24 * time.Hour
)

// maxTokenBytes bounds the work an oversized token can cause; real ID
// tokens are one or two KiB.
const maxTokenBytes = 16 << 10

// Config configures a Verifier. Zero durations take the defaults above.
type Config struct {
	Issuers    []Issuer
	HTTPClient *http.Client     // nil: NewHTTPClient()
	Clock      func() time.Time // nil: time.Now
	// ClockSkew is the tolerance on exp, iat and nbf.
	ClockSkew time.Duration
	// RefreshInterval is the minimum time between two fetches of one
	// issuer's keys, also when a token names an unknown key id.
	RefreshInterval time.Duration
	// DefaultCacheAge is how long keys live when the JWKS response has no
	// Cache-Control max-age; MaxCacheAge caps any max-age. The lifetime
	// is never below RefreshInterval.
	DefaultCacheAge time.Duration
	MaxCacheAge     time.Duration
}

// Verifier verifies ID tokens of a fixed set of trusted issuers. It is safe
// for concurrent use.
type Verifier struct {
	byIss  map[string]*trustedIssuer
	parser *jwt.Parser
	skew   time.Duration
	clock  func() time.Time
}

type trustedIssuer struct {
	Issuer
	audiences map[string]bool
	keys      *issuerKeys
}

// NewVerifier checks the configuration and returns a Verifier. It makes no
// network call: keys are fetched when the first token of an issuer arrives.
// Issuers are fixed for the Verifier's life; to change them (or a static
// JWKS), build a new Verifier.
func NewVerifier(cfg Config) (*Verifier, error) {
	if len(cfg.Issuers) == 0 {
		return nil, errors.New("oidc: no trusted issuers configured")
	}
	if cfg.ClockSkew < 0 || cfg.RefreshInterval < 0 || cfg.DefaultCacheAge < 0 || cfg.MaxCacheAge < 0 {
		return nil, errors.New("oidc: negative duration in verifier configuration")
	}
	client := cfg.HTTPClient
	if client == nil {
		client = NewHTTPClient()
	}
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	skew := orDefault(cfg.ClockSkew, DefaultClockSkew)
	timing := cacheTiming{
		refreshInterval: orDefault(cfg.RefreshInterval, DefaultRefreshInterval),
		defaultAge:      orDefault(cfg.DefaultCacheAge, DefaultCacheAge),
		maxAge:          orDefault(cfg.MaxCacheAge, DefaultMaxCacheAge),
	}
	timing.maxAge = max(timing.maxAge, timing.refreshInterval)

	v := &Verifier{
		byIss: make(map[string]*trustedIssuer),
		skew:  skew,
		clock: clock,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{algRS256, algES256}),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(skew),
			jwt.WithTimeFunc(clock),
		),
	}
	for _, iss := range cfg.Issuers {
		if err := iss.validate(); err != nil {
			return nil, fmt.Errorf("oidc: %w", err)
		}
		keys, err := newIssuerKeys(iss, client, clock, timing)
		if err != nil {
			return nil, fmt.Errorf("oidc: %w", err)
		}
		t := &trustedIssuer{
			Issuer:    iss,
			audiences: make(map[string]bool, len(iss.Audiences)),
			keys:      keys,
		}
		for _, aud := range iss.Audiences {
			t.audiences[aud] = true
		}
		for _, name := range append([]string{iss.URL}, iss.Aliases...) {
			if v.byIss[name] != nil {
				return nil, fmt.Errorf("oidc: issuer %q configured twice", name)
			}
			v.byIss[name] = t
		}
	}
	return v, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// VerifyOptions are per-call expectations.
type VerifyOptions struct {
	// Nonce, when not empty, must equal the token's nonce claim.
	Nonce string
}

// Claims are the verified claims of an ID token.
type Claims struct {
	Issuer        string // the configured issuer URL (an alias is reported as the URL)
	Subject       string
	Audience      []string
	Email         string
	EmailVerified bool // true for a JSON true or the string "true" (Apple)
	Nonce         string
	IssuedAt      time.Time
	ExpiresAt     time.Time
	// Raw is every claim as decoded from JSON (numbers are float64).
	Raw map[string]any
}

// Verify checks an ID token's signature, issuer, audience, lifetime and,
// when opts.Nonce is set, its nonce, and returns its claims. The errors wrap
// the Err* sentinels of this package.
func (v *Verifier) Verify(ctx context.Context, rawToken string, opts VerifyOptions) (*Claims, error) {
	if len(rawToken) > maxTokenBytes {
		return nil, fmt.Errorf("%w: token of %d bytes exceeds %d", ErrMalformed, len(rawToken), maxTokenBytes)
	}
	var (
		issuer *trustedIssuer
		keyErr error
	)
	raw := jwt.MapClaims{}
	token, err := v.parser.ParseWithClaims(rawToken, raw, func(t *jwt.Token) (any, error) {
		issuer, keyErr = v.issuerOf(raw)
		if keyErr != nil {
			return nil, keyErr
		}
		var key verificationKey
		key, keyErr = v.keyFor(ctx, issuer, t.Header)
		return key.key, keyErr
	})
	if keyErr != nil {
		return nil, keyErr
	}
	if err != nil {
		return nil, v.explain(token, raw, err)
	}
	claims, err := newClaims(issuer.URL, raw)
	if err != nil {
		return nil, err
	}
	if !issuer.AnyAudience && !issuer.acceptsAny(claims.Audience) {
		return nil, fmt.Errorf("%w: token is for %q, not a client id configured for %s", ErrWrongAudience, truncateAll(claims.Audience), issuer.URL)
	}
	if opts.Nonce != "" && subtle.ConstantTimeCompare([]byte(opts.Nonce), []byte(claims.Nonce)) != 1 {
		return nil, fmt.Errorf("%w: the token's nonce differs from the expected one", ErrNonceMismatch)
	}
	return claims, nil
}

// issuerOf reads the still unverified iss claim and refuses an untrusted
// issuer before anything is fetched.
func (v *Verifier) issuerOf(raw jwt.MapClaims) (*trustedIssuer, error) {
	iss, ok := raw["iss"].(string)
	if !ok || iss == "" {
		return nil, fmt.Errorf("%w: no iss claim", ErrMalformed)
	}
	issuer := v.byIss[iss]
	if issuer == nil {
		return nil, fmt.Errorf("%w: %q", ErrUntrustedIssuer, truncate(iss))
	}
	return issuer, nil
}

// keyFor checks the JOSE header and finds the key it names. The algorithm
// is fixed by the key, never chosen by the token: an RS256 key only
// verifies RS256, so alg confusion (HS256 keyed with a public key) fails.
func (v *Verifier) keyFor(ctx context.Context, issuer *trustedIssuer, header map[string]any) (verificationKey, error) {
	alg, _ := header["alg"].(string)
	if alg != algRS256 && alg != algES256 {
		return verificationKey{}, fmt.Errorf("%w: %q (accepted: RS256, ES256)", ErrUnsupportedAlg, truncate(alg))
	}
	if _, ok := header["crit"]; ok {
		return verificationKey{}, fmt.Errorf("%w: critical header extensions are not supported", ErrMalformed)
	}
	kid, ok := header["kid"].(string)
	if !ok && header["kid"] != nil {
		return verificationKey{}, fmt.Errorf("%w: kid is not a string", ErrMalformed)
	}
	return issuer.keys.key(ctx, kid, alg)
}

// explain turns an error of the JWT library into one of ours.
func (v *Verifier) explain(token *jwt.Token, raw jwt.MapClaims, err error) error {
	if token != nil && token.Header != nil {
		if alg, _ := token.Header["alg"].(string); alg != algRS256 && alg != algES256 {
			return fmt.Errorf("%w: %q (accepted: RS256, ES256)", ErrUnsupportedAlg, truncate(alg))
		}
	}
	now := v.clock()
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed), errors.Is(err, jwt.ErrTokenRequiredClaimMissing), errors.Is(err, jwt.ErrInvalidType):
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	case errors.Is(err, jwt.ErrTokenExpired):
		exp, _ := raw.GetExpirationTime()
		return fmt.Errorf("%w: expired at %s, now is %s (skew %s)", ErrExpired, stamp(exp), now.UTC().Format(time.RFC3339), v.skew)
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		iat, _ := raw.GetIssuedAt()
		return fmt.Errorf("%w: issued at %s, in the future of %s (skew %s)", ErrNotYetValid, stamp(iat), now.UTC().Format(time.RFC3339), v.skew)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		nbf, _ := raw.GetNotBefore()
		return fmt.Errorf("%w: not before %s, now is %s (skew %s)", ErrNotYetValid, stamp(nbf), now.UTC().Format(time.RFC3339), v.skew)
	default:
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
}

func stamp(t *jwt.NumericDate) string {
	if t == nil {
		return "?"
	}
	return t.UTC().Format(time.RFC3339)
}

func (t *trustedIssuer) acceptsAny(audiences []string) bool {
	for _, aud := range audiences {
		if t.audiences[aud] {
			return true
		}
	}
	return false
}

// newClaims extracts the claims every caller needs; sub, aud and iat are
// required by OpenID Connect Core §2.
func newClaims(issuer string, raw jwt.MapClaims) (*Claims, error) {
	c := &Claims{Issuer: issuer, Raw: raw}
	c.Subject, _ = raw["sub"].(string)
	if c.Subject == "" {
		return nil, fmt.Errorf("%w: no sub claim", ErrMalformed)
	}
	aud, err := raw.GetAudience()
	if err != nil || len(aud) == 0 {
		return nil, fmt.Errorf("%w: aud claim missing or not a string or array of strings", ErrMalformed)
	}
	c.Audience = aud
	iat, err := raw.GetIssuedAt()
	if err != nil || iat == nil {
		return nil, fmt.Errorf("%w: iat claim missing or not a number", ErrMalformed)
	}
	c.IssuedAt = iat.Time
	if exp, err := raw.GetExpirationTime(); err == nil && exp != nil {
		c.ExpiresAt = exp.Time
	}
	if _, present := raw["nonce"]; present {
		nonce, ok := raw["nonce"].(string)
		if !ok {
			return nil, fmt.Errorf("%w: nonce claim is not a string", ErrMalformed)
		}
		c.Nonce = nonce
	}
	c.Email, _ = raw["email"].(string)
	switch verified := raw["email_verified"].(type) {
	case bool:
		c.EmailVerified = verified
	case string:
		c.EmailVerified = verified == "true"
	}
	return c, nil
}
