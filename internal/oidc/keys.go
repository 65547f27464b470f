package oidc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// issuerKeys caches one issuer's JWKS location and signing keys.
//
// Reads are lock-free. Fetches are serialised per issuer and rate-limited:
// at most one attempt (successful or not) per refresh interval, whether it
// is due to an expired cache or to a key id the cache does not know. That
// bounds the traffic a flood of forged tokens with random kids can cause.
// Expired keys are never used: when the refresh fails, verification fails
// with ErrDiscovery, because a key removed from the JWKS may be a revoked one.
type issuerKeys struct {
	issuer       string
	discoveryURL string // empty when the JWKS location is configured
	client       *http.Client
	clock        func() time.Time
	timing       cacheTiming

	static bool // keys configured, never fetched

	cached atomic.Pointer[cachedKeys]
	fetch  chan struct{} // a one-slot semaphore; waiting for it honours the context

	// Guarded by fetch.
	jwksURL       string
	jwksURLExpiry time.Time // zero when configured: never expires
	lastAttempt   time.Time
	lastErr       error
}

type cachedKeys struct {
	set     *keySet
	expires time.Time // unused for static keys
}

func (c *cachedKeys) setOrNil() *keySet {
	if c == nil {
		return nil
	}
	return c.set
}

// cacheTiming bounds how often an issuer is asked and how long answers live.
type cacheTiming struct {
	refreshInterval time.Duration // minimum time between two fetch attempts
	defaultAge      time.Duration // cache lifetime without a Cache-Control max-age
	maxAge          time.Duration // cap on any max-age
}

// lifetime clamps a response's max-age into [refreshInterval, maxAge].
func (t cacheTiming) lifetime(f fetched) time.Duration {
	age := t.defaultAge
	if f.hasMaxAge {
		age = f.maxAge
	}
	return min(max(age, t.refreshInterval), t.maxAge)
}

func newIssuerKeys(iss Issuer, client *http.Client, clock func() time.Time, timing cacheTiming) (*issuerKeys, error) {
	k := &issuerKeys{
		issuer: iss.URL,
		client: client,
		clock:  clock,
		timing: timing,
		fetch:  make(chan struct{}, 1),
	}
	switch {
	case iss.JWKS != nil:
		set, err := parseJWKS(iss.JWKS)
		if err != nil {
			return nil, fmt.Errorf("issuer %q: %w", iss.URL, err)
		}
		k.static = true
		k.cached.Store(&cachedKeys{set: set})
	case iss.JWKSURL != "":
		k.jwksURL = iss.JWKSURL
	default:
		k.discoveryURL = strings.TrimSuffix(iss.URL, "/") + "/.well-known/openid-configuration"
	}
	return k, nil
}

// key returns the verification key for a token header's kid and alg,
// fetching the issuer's keys when the cache is empty, expired or does not
// know the kid.
func (k *issuerKeys) key(ctx context.Context, kid, alg string) (verificationKey, error) {
	cur := k.cached.Load()
	if cur != nil && (k.static || k.clock().Before(cur.expires)) {
		if key, ok := cur.set.find(kid, alg); ok {
			return key, nil
		}
	}
	set := cur.setOrNil()
	if !k.static {
		var err error
		if set, err = k.refresh(ctx, cur); err != nil {
			return verificationKey{}, err
		}
	}
	if key, ok := set.find(kid, alg); ok {
		return key, nil
	}
	if kid == "" {
		return verificationKey{}, fmt.Errorf("%w: token has no kid and %s does not publish exactly one %s key", ErrUnknownKey, k.issuer, alg)
	}
	return verificationKey{}, fmt.Errorf("%w: %s publishes no %s key with kid %q", ErrUnknownKey, k.issuer, alg, truncate(kid))
}

// refresh fetches the keys unless another caller did so since seen was
// loaded or the rate limit forbids it; then it returns the freshest set it
// has, or the error of the last attempt.
func (k *issuerKeys) refresh(ctx context.Context, seen *cachedKeys) (*keySet, error) {
	select {
	case k.fetch <- struct{}{}:
		defer func() { <-k.fetch }()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for keys of %s: %v", ErrDiscovery, k.issuer, ctx.Err())
	}
	now := k.clock()
	cur := k.cached.Load()
	fresh := cur != nil && now.Before(cur.expires)
	if fresh && cur != seen {
		return cur.set, nil
	}
	if !k.lastAttempt.IsZero() && now.Sub(k.lastAttempt) < k.timing.refreshInterval {
		if k.lastErr != nil {
			return nil, fmt.Errorf("%w (next attempt after %s)", k.lastErr, k.lastAttempt.Add(k.timing.refreshInterval).UTC().Format(time.RFC3339))
		}
		if fresh {
			return cur.set, nil
		}
	}
	previousAttempt := k.lastAttempt
	k.lastAttempt = now
	set, lifetime, err := k.download(ctx, now)
	if err != nil {
		if ctx.Err() != nil {
			// One caller giving up must not lock every other caller out.
			k.lastAttempt = previousAttempt
			return nil, fmt.Errorf("%w: keys of %s: %v", ErrDiscovery, k.issuer, ctx.Err())
		}
		k.lastErr = fmt.Errorf("%w: %s: %v", ErrDiscovery, k.issuer, err)
		return nil, k.lastErr
	}
	k.lastErr = nil
	k.cached.Store(&cachedKeys{set: set, expires: now.Add(lifetime)})
	return set, nil
}

// download fetches the JWKS (after the discovery document, when its
// location is unknown or expired) and parses it.
func (k *issuerKeys) download(ctx context.Context, now time.Time) (*keySet, time.Duration, error) {
	jwksURL, err := k.locateJWKS(ctx, now)
	if err != nil {
		return nil, 0, err
	}
	doc, err := getDocument(ctx, k.client, jwksURL, maxJWKSBytes)
	if err != nil {
		return nil, 0, err
	}
	set, err := parseJWKS(doc.body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", jwksURL, err)
	}
	return set, k.timing.lifetime(doc), nil
}

func (k *issuerKeys) locateJWKS(ctx context.Context, now time.Time) (string, error) {
	if k.discoveryURL == "" || (k.jwksURL != "" && now.Before(k.jwksURLExpiry)) {
		return k.jwksURL, nil
	}
	doc, err := getDocument(ctx, k.client, k.discoveryURL, maxDiscoveryBytes)
	if err != nil {
		return "", err
	}
	jwksURL, err := parseDiscovery(doc.body, k.issuer)
	if err != nil {
		return "", fmt.Errorf("%s: %w", k.discoveryURL, err)
	}
	k.jwksURL, k.jwksURLExpiry = jwksURL, now.Add(k.timing.lifetime(doc))
	return jwksURL, nil
}

// parseDiscovery returns the jwks_uri of an OpenID Provider Configuration
// document after checking that it describes the expected issuer (OpenID
// Connect Discovery 1.0 §4.3), so that one provider cannot vouch for keys
// of another.
func parseDiscovery(body []byte, issuer string) (string, error) {
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("discovery document is not JSON: %w", err)
	}
	if doc.Issuer != issuer {
		return "", fmt.Errorf("discovery document names issuer %q, want %q", truncate(doc.Issuer), issuer)
	}
	if doc.JWKSURI == "" {
		return "", fmt.Errorf("discovery document has no jwks_uri")
	}
	if _, err := parseFetchURL(doc.JWKSURI); err != nil {
		return "", fmt.Errorf("jwks_uri: %w", err)
	}
	return doc.JWKSURI, nil
}
