package token

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Verification token lifetimes (VERIFY_OTP expirationSeconds).
const (
	DefaultVerificationTTL = time.Hour
	MaxVerificationTTL     = 24 * time.Hour
)

// VerificationClaims are the claims of a verification token, the proof that
// someone read the OTP sent to Contact.
type VerificationClaims struct {
	// ID is unique per token; clientSignature messages name it as tokenId,
	// and the coordinator records it when the token is consumed.
	ID string
	// ExpiresAt is carried with millisecond precision.
	ExpiresAt time.Time
	// VerificationType is the OTP type: OTP_TYPE_EMAIL or OTP_TYPE_SMS.
	VerificationType string
	Contact          string
	// OrganizationID is the organization that issued the token.
	OrganizationID string
	// PublicKey is the client key bound at verification time (compressed
	// P-256 hex). Empty only for legacy VERIFY_OTP without a publicKey; the
	// claim is then left out of the token, and @turnkey/crypto's
	// verifyOtpVerificationToken and @turnkey/core's clientSignature helpers
	// refuse such a token, as they would refuse an empty string.
	PublicKey string
}

// verificationPayload is the wire form, in the claim order of the
// reference's example.
type verificationPayload struct {
	Exp              string `json:"exp"`
	ID               string `json:"id"`
	OrganizationID   string `json:"organization_id"`
	VerificationType string `json:"verification_type"`
	Contact          string `json:"contact"`
	PublicKey        string `json:"public_key,omitempty"`
}

// IssueVerificationToken signs a verification token with the coordinator's
// ES256 key: signature r||s over SHA-256 of "header.payload".
func IssueVerificationToken(key *ecdsa.PrivateKey, c VerificationClaims) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if err := c.check(); err != nil {
		return "", fmt.Errorf("issuing verification token: %w", err)
	}
	payload, err := encodeSegment(verificationPayload{
		Exp:              strconv.FormatInt(c.ExpiresAt.UnixMilli(), 10),
		ID:               c.ID,
		OrganizationID:   c.OrganizationID,
		VerificationType: c.VerificationType,
		Contact:          c.Contact,
		PublicKey:        c.PublicKey,
	})
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString([]byte(verificationHeader)) + "." + payload
	sig, err := jwt.SigningMethodES256.Sign(input, key)
	if err != nil {
		return "", fmt.Errorf("signing verification token: %w", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func (c VerificationClaims) check() error {
	for name, v := range map[string]string{
		"id": c.ID, "verification_type": c.VerificationType,
		"contact": c.Contact, "organization_id": c.OrganizationID,
	} {
		if v == "" {
			return fmt.Errorf("%w: %s", ErrMissingClaim, name)
		}
	}
	if c.ExpiresAt.IsZero() {
		return fmt.Errorf("%w: exp", ErrMissingClaim)
	}
	return nil
}

// VerifyVerificationToken checks a verification token's header (ES256, JWT),
// its signature by pub and its expiry against now, and returns its claims.
func VerifyVerificationToken(tok string, pub *ecdsa.PublicKey, now time.Time) (VerificationClaims, error) {
	input, payload, sig, err := splitToken(tok)
	if err != nil {
		return VerificationClaims{}, err
	}
	if err := jwt.SigningMethodES256.Verify(input, sig, pub); err != nil {
		return VerificationClaims{}, fmt.Errorf("%w: verification token is not signed by this coordinator's token key", ErrSignature)
	}
	var p verificationPayload
	if err := decodeStrings(payload, &p); err != nil {
		return VerificationClaims{}, err
	}
	expMs, err := strconv.ParseInt(p.Exp, 10, 64)
	if err != nil || expMs <= 0 {
		return VerificationClaims{}, fmt.Errorf("%w: exp %q is not a millisecond timestamp string", ErrMalformed, p.Exp)
	}
	c := VerificationClaims{
		ID: p.ID, ExpiresAt: time.UnixMilli(expMs).UTC(), VerificationType: p.VerificationType,
		Contact: p.Contact, OrganizationID: p.OrganizationID, PublicKey: p.PublicKey,
	}
	if err := c.check(); err != nil {
		return VerificationClaims{}, err
	}
	if !now.Before(c.ExpiresAt) {
		return VerificationClaims{}, fmt.Errorf("%w: verification token expired at %s", ErrExpired, c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// decodeStrings decodes a claims object whose fields are all strings, with an
// error that names the claim of the wrong type.
func decodeStrings(payload []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return fmt.Errorf("%w: claim %q is a JSON %s, want %s", ErrMalformed, te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("%w: payload is not a JSON object: %v", ErrMalformed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the payload object", ErrMalformed)
	}
	return nil
}
