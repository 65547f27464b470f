// Package oidctest runs a real OpenID Connect / OAuth 2.0 provider on
// loopback for tests: discovery, JWKS, an authorization endpoint that
// approves at once, a token endpoint that checks PKCE (S256) and client
// authentication, and user-info endpoints shaped like OIDC's, X's and
// Discord's. It mints ID tokens with any claims and headers, including
// forged ones, rotates its keys on demand, counts requests and can be
// switched off.
package oidctest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// The client registered by New.
const (
	ClientID       = "sigil-test-client"
	ClientSecret   = "sigil-test-client-secret"
	PublicClientID = "sigil-test-public-client" // a PKCE client without a secret
)

// Defaults of minted tokens and authorizations.
const (
	DefaultSubject = "test-user-1"
	DefaultEmail   = "test-user-1@example.com"
)

// Paths served.
const (
	DiscoveryPath       = "/.well-known/openid-configuration"
	JWKSPath            = "/jwks"
	AuthorizationPath   = "/authorize"
	TokenPath           = "/token"
	UserInfoPath        = "/userinfo"      // {"sub": ..., "email": ...}
	XUserInfoPath       = "/2/users/me"    // {"data": {"id": ..., ...}}
	DiscordUserInfoPath = "/api/users/@me" // {"id": ..., ...}
)

// MetadataMaxAge is the Cache-Control max-age of the discovery document and
// the JWKS.
const MetadataMaxAge = 5 * time.Minute

// codeLifetime and tokenLifetime bound authorization codes and access tokens.
const (
	codeLifetime  = time.Minute
	tokenLifetime = time.Hour
)

// Provider is a running test provider. Its methods are safe for concurrent
// use, also while requests are being served.
type Provider struct {
	server *httptest.Server

	mu         sync.Mutex
	clock      func() time.Time
	down       bool
	generation int
	rsaKey     *rsa.PrivateKey
	rsaKID     string
	ecKey      *ecdsa.PrivateKey
	ecKID      string
	clients    map[string]string // client id → secret ("" for a public client)
	codes      map[string]grant
	tokens     map[string]grant
	requests   map[string]int
	total      int
}

// New starts a provider on a loopback port with fresh RSA and P-256 keys and
// the clients ClientID (confidential) and PublicClientID registered. Close it
// when done.
func New() *Provider {
	p := &Provider{
		clock:    time.Now,
		clients:  map[string]string{ClientID: ClientSecret, PublicClientID: ""},
		codes:    make(map[string]grant),
		tokens:   make(map[string]grant),
		requests: make(map[string]int),
	}
	p.RotateKeys()
	p.server = httptest.NewServer(p.routes())
	return p
}

// Close shuts the server down.
func (p *Provider) Close() { p.server.Close() }

// Issuer is the provider's issuer identifier and base URL.
func (p *Provider) Issuer() string { return p.server.URL }

// URLs of the endpoints.
func (p *Provider) TokenURL() string           { return p.server.URL + TokenPath }
func (p *Provider) AuthorizationURL() string   { return p.server.URL + AuthorizationPath }
func (p *Provider) UserInfoURL() string        { return p.server.URL + UserInfoPath }
func (p *Provider) XUserInfoURL() string       { return p.server.URL + XUserInfoPath }
func (p *Provider) DiscordUserInfoURL() string { return p.server.URL + DiscordUserInfoPath }
func (p *Provider) JWKSURL() string            { return p.server.URL + JWKSPath }

// SetClock replaces time.Now for minted tokens and code and token expiry.
func (p *Provider) SetClock(now func() time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clock = now
}

func (p *Provider) now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clock()
}

// SetDown makes every endpoint answer 503 (true) or serve again (false).
// Requests are still counted while down.
func (p *Provider) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
}

// Requests counts the requests received for path, or for all paths when
// path is "".
func (p *Provider) Requests(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if path == "" {
		return p.total
	}
	return p.requests[path]
}

// RegisterClient adds or replaces a client; an empty secret makes it a
// public client, which must use PKCE and sends no secret.
func (p *Provider) RegisterClient(id, secret string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[id] = secret
}

// RotateKeys replaces the signing keys by new ones with new key ids; the old
// keys disappear from the JWKS at once.
func (p *Provider) RotateKeys() {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(fmt.Sprintf("oidctest: generating an RSA key: %v", err))
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("oidctest: generating a P-256 key: %v", err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.generation++
	p.rsaKey, p.rsaKID = rsaKey, fmt.Sprintf("rsa-%d", p.generation)
	p.ecKey, p.ecKID = ecKey, fmt.Sprintf("ec-%d", p.generation)
}

// KeyIDs are the key ids of the current RSA and P-256 signing keys.
func (p *Provider) KeyIDs() (rsaKID, ecKID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rsaKID, p.ecKID
}

// jwks is the published key set: the current keys only.
func (p *Provider) jwks() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	point := p.ecKey.PublicKey
	raw, err := point.Bytes() // 0x04 ‖ x ‖ y
	if err != nil {
		panic(fmt.Sprintf("oidctest: encoding the P-256 key: %v", err))
	}
	return map[string]any{"keys": []map[string]any{
		{
			"kty": "RSA", "kid": p.rsaKID, "use": "sig", "alg": "RS256",
			"n": b64(p.rsaKey.N.Bytes()),
			"e": b64(big.NewInt(int64(p.rsaKey.E)).Bytes()),
		},
		{
			"kty": "EC", "kid": p.ecKID, "use": "sig", "alg": "ES256", "crv": "P-256",
			"x": b64(raw[1:33]), "y": b64(raw[33:65]),
		},
	}}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// randomToken returns 32 random bytes in hex, for codes and access tokens.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("oidctest: random: %v", err))
	}
	return hex.EncodeToString(b)
}

func (p *Provider) discovery() map[string]any {
	base := p.server.URL
	return map[string]any{
		"issuer":                                base,
		"authorization_endpoint":                base + AuthorizationPath,
		"token_endpoint":                        base + TokenPath,
		"userinfo_endpoint":                     base + UserInfoPath,
		"jwks_uri":                              base + JWKSPath,
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"grant_types_supported":                 []string{"authorization_code"},
	}
}

func (p *Provider) routes() http.Handler {
	mux := http.NewServeMux()
	cached := fmt.Sprintf("public, max-age=%d", int(MetadataMaxAge/time.Second))
	mux.HandleFunc("GET "+DiscoveryPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cached)
		writeJSON(w, http.StatusOK, p.discovery())
	})
	mux.HandleFunc("GET "+JWKSPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cached)
		writeJSON(w, http.StatusOK, p.jwks())
	})
	mux.HandleFunc("GET "+AuthorizationPath, p.handleAuthorize)
	mux.HandleFunc("POST "+TokenPath, p.handleToken)
	mux.HandleFunc("GET "+UserInfoPath, p.userInfo(oidcUserInfo))
	mux.HandleFunc("GET "+XUserInfoPath, p.userInfo(xUserInfo))
	mux.HandleFunc("GET "+DiscordUserInfoPath, p.userInfo(discordUserInfo))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.total++
		p.requests[r.URL.Path]++
		down := p.down
		p.mu.Unlock()
		if down {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{
				"error": "temporarily_unavailable", "error_description": "the test provider is switched off",
			})
			return
		}
		mux.ServeHTTP(w, r)
	})
}
