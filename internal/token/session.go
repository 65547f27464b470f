package token

import (
	"crypto/ecdsa"
	"encoding/base64"
	"fmt"
	"time"
)

// DefaultSessionTTL is the session lifetime when a login names none.
const DefaultSessionTTL = 900 * time.Second

// Session types; a session profile's name may stand in their place.
const (
	SessionTypeReadWrite = "SESSION_TYPE_READ_WRITE"
	SessionTypeReadOnly  = "SESSION_TYPE_READ_ONLY"
)

// SessionClaims are the claims of a session JWT, the result of OTP_LOGIN,
// OAUTH_LOGIN and STAMP_LOGIN.
type SessionClaims struct {
	// ExpiresAt is carried in whole seconds (truncated).
	ExpiresAt time.Time
	// PublicKey is the session key (compressed P-256 hex) the client stamps
	// later requests with.
	PublicKey      string
	SessionType    string
	UserID         string
	OrganizationID string
	// SessionProfileID and Scope are set only for sessions made from a
	// session profile.
	SessionProfileID string
	Scope            string
}

// sessionPayload is the wire form, in the reference's claim order.
type sessionPayload struct {
	Exp              int64  `json:"exp"`
	PublicKey        string `json:"public_key"`
	SessionType      string `json:"session_type"`
	UserID           string `json:"user_id"`
	OrganizationID   string `json:"organization_id"`
	SessionProfileID string `json:"session_profile_id,omitempty"`
	Scope            string `json:"scope,omitempty"`
}

// IssueSession signs a session JWT. As the SDK's verifySessionJwtSignature
// expects, the ECDSA signature is over SHA-256(SHA-256("header.payload")).
func IssueSession(key *ecdsa.PrivateKey, c SessionClaims) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if err := c.check(); err != nil {
		return "", fmt.Errorf("issuing session: %w", err)
	}
	payload, err := encodeSegment(sessionPayload{
		Exp: c.ExpiresAt.Unix(), PublicKey: c.PublicKey, SessionType: c.SessionType,
		UserID: c.UserID, OrganizationID: c.OrganizationID,
		SessionProfileID: c.SessionProfileID, Scope: c.Scope,
	})
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString([]byte(sessionHeader)) + "." + payload
	sig, err := signRaw(key, sha256Sum(sha256Sum([]byte(input))))
	if err != nil {
		return "", err
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func (c SessionClaims) check() error {
	for name, v := range map[string]string{
		"public_key": c.PublicKey, "session_type": c.SessionType,
		"user_id": c.UserID, "organization_id": c.OrganizationID,
	} {
		if v == "" {
			return fmt.Errorf("%w: %s", ErrMissingClaim, name)
		}
	}
	if c.ExpiresAt.Unix() <= 0 {
		return fmt.Errorf("%w: exp", ErrMissingClaim)
	}
	return nil
}

// VerifySession checks a session JWT's header, its double-hash signature by
// pub and its expiry against now, and returns its claims.
func VerifySession(tok string, pub *ecdsa.PublicKey, now time.Time) (SessionClaims, error) {
	input, payload, sig, err := splitToken(tok)
	if err != nil {
		return SessionClaims{}, err
	}
	if !verifyRaw(pub, sha256Sum(sha256Sum([]byte(input))), sig) {
		return SessionClaims{}, fmt.Errorf("%w: session is not signed by this coordinator's session key", ErrSignature)
	}
	var p sessionPayload
	if err := decodeStrings(payload, &p); err != nil {
		return SessionClaims{}, err
	}
	c := SessionClaims{
		ExpiresAt: time.Unix(p.Exp, 0).UTC(), PublicKey: p.PublicKey, SessionType: p.SessionType,
		UserID: p.UserID, OrganizationID: p.OrganizationID,
		SessionProfileID: p.SessionProfileID, Scope: p.Scope,
	}
	if err := c.check(); err != nil {
		return SessionClaims{}, err
	}
	if !now.Before(c.ExpiresAt) {
		return SessionClaims{}, fmt.Errorf("%w: session expired at %s", ErrExpired, c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return c, nil
}
