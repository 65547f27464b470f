package webhook

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a Turnkey-style delivery, as Turnkey documents them
// (https://docs.turnkey.com/features/webhooks/overview, "Delivery contract").
// Only the signature contract fields and the raw body are signed; the
// organization id and event type are routing metadata.
const (
	HeaderOrganizationID     = "X-Turnkey-Organization-Id"
	HeaderEventType          = "X-Turnkey-Event-Type"
	HeaderTimestamp          = "X-Turnkey-Timestamp" // Unix milliseconds of the attempt
	HeaderWebhookVersion     = "X-Turnkey-Webhook-Version"
	HeaderEventID            = "X-Turnkey-Event-Id" // stable across retries
	HeaderSignatureKeyID     = "X-Turnkey-Signature-Key-Id"
	HeaderSignatureAlgorithm = "X-Turnkey-Signature-Algorithm"
	HeaderSignatureVersion   = "X-Turnkey-Signature-Version"
	HeaderSignature          = "X-Turnkey-Signature" // hex Ed25519 signature
)

// The values of the contract's version headers.
const (
	WebhookVersion     = "1"
	SignatureAlgorithm = "ed25519"
	SignatureVersion   = "v1"
)

// Why Verify refused a delivery. The texts are the reasons @turnkey/crypto's
// verifyTurnkeyWebhookSignature returns, so a receiver can log either.
var (
	ErrMissingHeader                 = errors.New("missing_header")
	ErrInvalidTimestamp              = errors.New("invalid_timestamp")
	ErrStaleTimestamp                = errors.New("stale_timestamp")
	ErrUnsupportedSignatureVersion   = errors.New("unsupported_signature_version")
	ErrUnsupportedSignatureAlgorithm = errors.New("unsupported_signature_algorithm")
	ErrMissingKey                    = errors.New("missing_key")
	ErrInvalidVerificationKey        = errors.New("invalid_verification_key")
	ErrInvalidSignature              = errors.New("invalid_signature")
	ErrInvalidMaxTimestampAge        = errors.New("invalid_max_timestamp_age")
)

// Meta is what a delivery's headers say besides its signature.
type Meta struct {
	EventID        string // stable across retries of one event
	EventType      string // e.g. ACTIVITY_UPDATES
	OrganizationID string
}

// Signer signs Turnkey-style deliveries with one Ed25519 key.
type Signer struct {
	KeyID string // the JWK's kid, sent as X-Turnkey-Signature-Key-Id
	Key   ed25519.PrivateKey
}

// NewSigner checks the key id and key. A key id is printable ASCII without
// '.', the separator of the signed message, so that no two (key id, event
// id, body) triples sign the same bytes.
func NewSigner(keyID string, key ed25519.PrivateKey) (*Signer, error) {
	if err := checkToken("signing key id", keyID); err != nil {
		return nil, err
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("webhook: signing key is %d bytes, not an Ed25519 private key", len(key))
	}
	return &Signer{KeyID: keyID, Key: key}, nil
}

// VerificationKey is the public half of a signing key.
func (s *Signer) VerificationKey() VerificationKey {
	return VerificationKey{KeyID: s.KeyID, PublicKey: s.Key.Public().(ed25519.PublicKey)}
}

// SignedInput is the message a delivery's signature covers:
// v1.ed25519.<keyID>.<timestampMs>.<eventID>.<body>.
func SignedInput(keyID, timestampMs, eventID string, body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(SignatureVersion) + len(SignatureAlgorithm) + len(keyID) + len(timestampMs) + len(eventID) + 5 + len(body))
	for _, part := range []string{SignatureVersion, SignatureAlgorithm, keyID, timestampMs, eventID} {
		b.WriteString(part)
		b.WriteByte('.')
	}
	b.Write(body)
	return b.Bytes()
}

// Headers returns the headers of one attempt to deliver body, signed at at.
// Each attempt gets a fresh timestamp and signature; m.EventID stays the same.
// Content-Type is set to application/json.
func (s *Signer) Headers(m Meta, body []byte, at time.Time) (http.Header, error) {
	if len(s.Key) != ed25519.PrivateKeySize {
		return nil, errors.New("webhook: signer has no Ed25519 private key")
	}
	if err := checkToken("signing key id", s.KeyID); err != nil {
		return nil, err
	}
	if err := checkToken("event id", m.EventID); err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"event type": m.EventType, "organization id": m.OrganizationID} {
		if !headerSafe(v) {
			return nil, fmt.Errorf("webhook: %s %q cannot be sent in a header", name, v)
		}
	}
	ts := strconv.FormatInt(at.UnixMilli(), 10)
	sig := ed25519.Sign(s.Key, SignedInput(s.KeyID, ts, m.EventID, body))
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if m.OrganizationID != "" {
		h.Set(HeaderOrganizationID, m.OrganizationID)
	}
	if m.EventType != "" {
		h.Set(HeaderEventType, m.EventType)
	}
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderWebhookVersion, WebhookVersion)
	h.Set(HeaderEventID, m.EventID)
	h.Set(HeaderSignatureKeyID, s.KeyID)
	h.Set(HeaderSignatureAlgorithm, SignatureAlgorithm)
	h.Set(HeaderSignatureVersion, SignatureVersion)
	h.Set(HeaderSignature, hex.EncodeToString(sig))
	return h, nil
}

// checkToken accepts a non-empty run of printable ASCII without '.' or
// spaces, at most 255 bytes.
func checkToken(what, v string) error {
	if v == "" || len(v) > 255 {
		return fmt.Errorf("webhook: %s must be 1 to 255 characters", what)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f || c == '.' {
			return fmt.Errorf("webhook: %s %q must be printable ASCII without spaces or '.'", what, v)
		}
	}
	return nil
}

// headerSafe accepts printable ASCII (and the empty string).
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// VerificationKey is an Ed25519 public key receivers check signatures with.
type VerificationKey struct {
	KeyID     string
	PublicKey ed25519.PublicKey
}

// JWK is one key of the webhook JSON Web Key Set, in the shape of
// https://docs.turnkey.com/api-reference/queries/get-webhook-jwks.
type JWK struct {
	Kid                       string `json:"kid"`
	Kty                       string `json:"kty"` // OKP
	Crv                       string `json:"crv"` // Ed25519
	Alg                       string `json:"alg"` // EdDSA
	Use                       string `json:"use"` // sig
	X                         string `json:"x"`   // base64url (unpadded) public key
	TurnkeySignatureAlgorithm string `json:"turnkey_signature_algorithm"`
	TurnkeySignatureVersion   string `json:"turnkey_signature_version"`
}

// JWKSet is the body of GET /public/v1/discovery/webhooks/jwks.
type JWKSet struct {
	Keys []JWK `json:"keys"`
}

// JWKSCacheControl is the Cache-Control Turnkey documents for its JWKS.
const JWKSCacheControl = "public, max-age=86400, s-maxage=86400, stale-if-error=604800"

// JWKS renders keys as the webhook JSON Web Key Set. During a rotation it
// lists both the new and the old key.
func JWKS(keys ...VerificationKey) JWKSet {
	set := JWKSet{Keys: make([]JWK, 0, len(keys))}
	for _, k := range keys {
		set.Keys = append(set.Keys, JWK{
			Kid: k.KeyID, Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig",
			X:                         base64.RawURLEncoding.EncodeToString(k.PublicKey),
			TurnkeySignatureAlgorithm: SignatureAlgorithm,
			TurnkeySignatureVersion:   SignatureVersion,
		})
	}
	return set
}

// ParseJWKS reads a webhook JSON Web Key Set, keeping the Ed25519 keys of
// signature version v1 and skipping others. x may be padded or not.
func ParseJWKS(data []byte) ([]VerificationKey, error) {
	var set JWKSet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("webhook: JWKS: %w", err)
	}
	var keys []VerificationKey
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || (k.Use != "" && k.Use != "sig") ||
			(k.TurnkeySignatureAlgorithm != "" && k.TurnkeySignatureAlgorithm != SignatureAlgorithm) ||
			(k.TurnkeySignatureVersion != "" && k.TurnkeySignatureVersion != SignatureVersion) {
			continue
		}
		pub, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("webhook: JWKS key %q: x is not a base64url Ed25519 public key", k.Kid)
		}
		keys = append(keys, VerificationKey{KeyID: k.Kid, PublicKey: pub})
	}
	return keys, nil
}

// Verified is what Verify learnt from an authentic delivery.
type Verified struct {
	EventID        string
	KeyID          string
	Timestamp      time.Time
	EventType      string // unsigned routing metadata
	OrganizationID string // unsigned routing metadata
}

// Verify checks a Turnkey-style delivery as a receiver: every signature
// header is present, the timestamp is within maxAge of now (either way), the
// version and algorithm are v1 and ed25519, the key id names one of keys, and
// the hex signature is an Ed25519 signature of SignedInput over the raw body.
// It checks in the order @turnkey/crypto's verifyTurnkeyWebhookSignature
// does, and its errors wrap the same reasons (ErrMissingHeader, ...).
func Verify(h http.Header, body []byte, keys []VerificationKey, maxAge time.Duration, now time.Time) (Verified, error) {
	if maxAge < 0 {
		return Verified{}, ErrInvalidMaxTimestampAge
	}
	var v [6]string
	for i, name := range []string{HeaderTimestamp, HeaderEventID, HeaderSignatureKeyID,
		HeaderSignatureAlgorithm, HeaderSignatureVersion, HeaderSignature} {
		if v[i] = h.Get(name); v[i] == "" {
			return Verified{}, fmt.Errorf("%w: %s", ErrMissingHeader, name)
		}
	}
	tsText, eventID, keyID, alg, version, sigHex := v[0], v[1], v[2], v[3], v[4], v[5]
	ms, err := parseDigits(tsText)
	if err != nil {
		return Verified{}, fmt.Errorf("%w: %s %q", ErrInvalidTimestamp, HeaderTimestamp, tsText)
	}
	ts := time.UnixMilli(ms)
	if age := now.Sub(ts); age > maxAge || -age > maxAge {
		return Verified{}, fmt.Errorf("%w: signed at %s, %s from now (limit %s)", ErrStaleTimestamp,
			ts.UTC().Format(time.RFC3339Nano), age.Abs(), maxAge)
	}
	if version != SignatureVersion {
		return Verified{}, fmt.Errorf("%w: %q", ErrUnsupportedSignatureVersion, version)
	}
	if alg != SignatureAlgorithm {
		return Verified{}, fmt.Errorf("%w: %q", ErrUnsupportedSignatureAlgorithm, alg)
	}
	var pub ed25519.PublicKey
	found := false
	for _, k := range keys {
		if k.KeyID == keyID {
			pub, found = k.PublicKey, true
			break
		}
	}
	if !found {
		return Verified{}, fmt.Errorf("%w: no key %q", ErrMissingKey, keyID)
	}
	if len(pub) != ed25519.PublicKeySize {
		return Verified{}, fmt.Errorf("%w: key %q is %d bytes", ErrInvalidVerificationKey, keyID, len(pub))
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Verified{}, fmt.Errorf("%w: %s is not a hex Ed25519 signature", ErrInvalidSignature, HeaderSignature)
	}
	if !ed25519.Verify(pub, SignedInput(keyID, tsText, eventID, body), sig) {
		return Verified{}, ErrInvalidSignature
	}
	return Verified{
		EventID: eventID, KeyID: keyID, Timestamp: ts,
		EventType: h.Get(HeaderEventType), OrganizationID: h.Get(HeaderOrganizationID),
	}, nil
}

// parseDigits reads a run of ASCII digits that fits a safe JavaScript
// integer, as the official verifier requires of the timestamp.
func parseDigits(s string) (int64, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("not digits")
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > 1<<53-1 {
		return 0, errors.New("out of range")
	}
	return n, nil
}
