package token

import (
	"crypto/ecdsa"
	"time"
)

// Issuer bundles the coordinator's token key with its clock, so activity
// code can issue and check tokens in one call.
type Issuer struct {
	key *ecdsa.PrivateKey
	now func() time.Time
	kid string
}

// NewIssuer returns an Issuer for a P-256 key; now defaults to time.Now.
func NewIssuer(key *ecdsa.PrivateKey, now func() time.Time) (*Issuer, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	kid, err := KeyID(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Issuer{key: key, now: now, kid: kid}, nil
}

// PublicKey is the key clients verify our tokens with.
func (i *Issuer) PublicKey() *ecdsa.PublicKey { return &i.key.PublicKey }

// KeyID is the RFC 7638 thumbprint of the key.
func (i *Issuer) KeyID() string { return i.kid }

// JWKS is the key set for /.well-known/jwks.json.
func (i *Issuer) JWKS() (JWKS, error) { return NewJWKS(i.PublicKey()) }

// VerificationToken issues a verification token expiring ttl from now.
func (i *Issuer) VerificationToken(c VerificationClaims, ttl time.Duration) (string, error) {
	c.ExpiresAt = i.now().Add(ttl)
	return IssueVerificationToken(i.key, c)
}

// VerifyVerificationToken verifies a token this issuer signed.
func (i *Issuer) VerifyVerificationToken(tok string) (VerificationClaims, error) {
	return VerifyVerificationToken(tok, i.PublicKey(), i.now())
}

// Session issues a session JWT expiring ttl from now.
func (i *Issuer) Session(c SessionClaims, ttl time.Duration) (string, error) {
	c.ExpiresAt = i.now().Add(ttl)
	return IssueSession(i.key, c)
}

// VerifySession verifies a session this issuer signed.
func (i *Issuer) VerifySession(tok string) (SessionClaims, error) {
	return VerifySession(tok, i.PublicKey(), i.now())
}

// IDToken issues an OIDC ID token, issued now and expiring ttl from now.
func (i *Issuer) IDToken(c IDClaims, ttl time.Duration) (string, error) {
	now := i.now()
	c.IssuedAt, c.ExpiresAt = now, now.Add(ttl)
	return IssueIDToken(i.key, c)
}
