package oidctest

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Algorithms IDToken can sign with. AlgNone and AlgHS256 forge tokens the
// way attackers do: unsigned, or HMAC-signed with the provider's public RSA
// key (PEM) as the secret, both naming the current RSA key id.
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
	AlgNone  = "none"
	AlgHS256 = "HS256"
)

// TokenOption changes how IDToken signs.
type TokenOption func(*tokenSpec)

type tokenSpec struct {
	alg    string
	header map[string]any
}

// WithAlg signs with alg (AlgRS256 by default).
func WithAlg(alg string) TokenOption {
	return func(s *tokenSpec) { s.alg = alg }
}

// WithHeader sets a JOSE header field after signing-method selection, e.g.
// WithHeader("kid", "unknown") or a lying "alg"; a nil value removes it.
func WithHeader(name string, value any) TokenOption {
	return func(s *tokenSpec) { s.header[name] = value }
}

// DefaultClaims are the claims of a valid ID token for ClientID issued now:
// iss, sub, aud, iat, exp (in an hour), email and email_verified.
func (p *Provider) DefaultClaims() map[string]any {
	now := p.now()
	return map[string]any{
		"iss":            p.Issuer(),
		"sub":            DefaultSubject,
		"aud":            ClientID,
		"iat":            now.Unix(),
		"exp":            now.Add(time.Hour).Unix(),
		"email":          DefaultEmail,
		"email_verified": true,
	}
}

// IDToken mints a token with DefaultClaims overridden by claims (a nil value
// removes a default claim). It panics on an unknown algorithm: that is a
// mistake in the test, not a case to handle.
func (p *Provider) IDToken(claims map[string]any, opts ...TokenOption) string {
	all := p.DefaultClaims()
	for name, value := range claims {
		if value == nil {
			delete(all, name)
		} else {
			all[name] = value
		}
	}
	spec := tokenSpec{alg: AlgRS256, header: map[string]any{}}
	for _, opt := range opts {
		opt(&spec)
	}
	method, key, kid := p.signer(spec.alg)
	token := jwt.NewWithClaims(method, jwt.MapClaims(all))
	token.Header["kid"] = kid
	for name, value := range spec.header {
		if value == nil {
			delete(token.Header, name)
		} else {
			token.Header[name] = value
		}
	}
	signed, err := token.SignedString(key)
	if err != nil {
		panic(fmt.Sprintf("oidctest: signing a %s token: %v", spec.alg, err))
	}
	return signed
}

// signer returns the signing method, key and key id for alg.
func (p *Provider) signer(alg string) (jwt.SigningMethod, any, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch alg {
	case AlgRS256:
		return jwt.SigningMethodRS256, p.rsaKey, p.rsaKID
	case AlgES256:
		return jwt.SigningMethodES256, p.ecKey, p.ecKID
	case AlgNone:
		return jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, p.rsaKID
	case AlgHS256:
		der, err := x509.MarshalPKIXPublicKey(&p.rsaKey.PublicKey)
		if err != nil {
			panic(fmt.Sprintf("oidctest: encoding the RSA public key: %v", err))
		}
		return jwt.SigningMethodHS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), p.rsaKID
	default:
		panic(fmt.Sprintf("oidctest: unknown algorithm %q", alg))
	}
}
