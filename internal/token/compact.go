package token

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
)

// Errors returned by the verify functions. They are wrapped with a message
// that says what exactly was wrong; test with errors.Is.
var (
	// ErrMalformed: the token is not three base64url segments of JSON, or a
	// claim has the wrong type.
	ErrMalformed = errors.New("malformed token")
	// ErrAlgorithm: the header names another algorithm or type than the one
	// this kind of token is issued with (this also refuses "none").
	ErrAlgorithm = errors.New("unexpected token algorithm")
	// ErrSignature: the signature does not verify with the expected key.
	ErrSignature = errors.New("invalid token signature")
	// ErrExpired: the token's expiry is not after the current time.
	ErrExpired = errors.New("token expired")
	// ErrMissingClaim: a required claim is absent or empty.
	ErrMissingClaim = errors.New("missing required claim")
)

// maxTokenLength bounds the input to the parsers; real tokens are < 1 KiB.
const maxTokenLength = 16 << 10

// Headers in the byte order the reference shows for each kind of token. The
// order does not matter to a JSON parser, but it makes our tokens look like
// the ones the SDKs' tests were written against.
const (
	verificationHeader = `{"typ":"JWT","alg":"ES256"}`
	sessionHeader      = `{"alg":"ES256","typ":"JWT"}`
)

// encodeSegment marshals v to JSON and base64url-encodes it so that the result
// contains neither '-' nor '_'. The SDKs decode our payloads with atob, which
// rejects those two characters.
//
// A base64 sextet is 62 or 63 only when the byte feeding its low six bits is
// one of '>', '?', '~' or 0x7f, or when a byte is >= 0x80. Every such byte can
// only occur inside a JSON string, where it may be written as a \u escape
// instead; encoding/json already escapes '>', so this escapes the rest.
func encodeSegment(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(asciiSafeJSON(raw)), nil
}

// asciiSafeJSON rewrites the string contents of compact JSON so that every
// byte is printable ASCII other than '?', '~' and DEL.
func asciiSafeJSON(raw []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(raw) + 16)
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		raw = raw[size:]
		switch {
		case r == '?' || r == '~' || r == 0x7f:
			fmt.Fprintf(&out, `\u%04x`, r)
		case r < utf8.RuneSelf:
			out.WriteByte(byte(r))
		case r > 0xffff:
			r1, r2 := surrogates(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes()
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// splitToken splits a compact JWS, decodes its header and payload and checks
// the header against the expected algorithm. It returns the signing input,
// the decoded payload and the decoded signature.
func splitToken(tok string) (signingInput string, payload, sig []byte, err error) {
	if len(tok) > maxTokenLength {
		return "", nil, nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxTokenLength)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", nil, nil, fmt.Errorf("%w: want 3 dot-separated parts, got %d", ErrMalformed, len(parts))
	}
	headerJSON, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return "", nil, nil, fmt.Errorf("%w: header is not base64url: %v", ErrMalformed, err)
	}
	var header struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	if err := json.Unmarshal(headerJSON, &header); err != nil {
		return "", nil, nil, fmt.Errorf("%w: header is not a JSON object: %v", ErrMalformed, err)
	}
	if header.Alg != "ES256" || header.Typ != "JWT" {
		return "", nil, nil, fmt.Errorf("%w: header has alg %q typ %q, want ES256 JWT", ErrAlgorithm, header.Alg, header.Typ)
	}
	if payload, err = base64.RawURLEncoding.DecodeString(parts[1]); err != nil {
		return "", nil, nil, fmt.Errorf("%w: payload is not base64url: %v", ErrMalformed, err)
	}
	if sig, err = base64.RawURLEncoding.DecodeString(parts[2]); err != nil {
		return "", nil, nil, fmt.Errorf("%w: signature is not base64url: %v", ErrMalformed, err)
	}
	if len(sig) != 64 {
		return "", nil, nil, fmt.Errorf("%w: signature is %d bytes, want 64 (r||s)", ErrSignature, len(sig))
	}
	return parts[0] + "." + parts[1], payload, sig, nil
}

// signRaw signs a 32-byte digest and returns the 64-byte r||s form.
func signRaw(key *ecdsa.PrivateKey, digest []byte) ([]byte, error) {
	r, s, err := ecdsa.Sign(rand.Reader, key, digest)
	if err != nil {
		return nil, fmt.Errorf("signing token: %w", err)
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out, nil
}

// verifyRaw checks a 64-byte r||s signature over a digest.
func verifyRaw(pub *ecdsa.PublicKey, digest, sig []byte) bool {
	if pub == nil || len(sig) != 64 {
		return false
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:])
	return ecdsa.Verify(pub, digest, r, s)
}

func sha256Sum(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}

// checkKey refuses keys that are not on P-256, the only curve ES256 allows.
func checkKey(key *ecdsa.PrivateKey) error {
	if key == nil {
		return errors.New("token: no signing key configured")
	}
	if key.Curve != elliptic.P256() {
		return fmt.Errorf("token: signing key is on %s, want P-256", key.Curve.Params().Name)
	}
	return nil
}

// ParseP256PublicKey reads a hex-encoded SEC1 P-256 public key, compressed
// (33 bytes, as the SDKs send session and API keys) or uncompressed (65 bytes).
func ParseP256PublicKey(hexKey string) (*ecdsa.PublicKey, error) {
	raw, err := hex.DecodeString(hexKey)
	if err != nil {
		return nil, fmt.Errorf("public key is not hex: %w", err)
	}
	switch len(raw) {
	case 33:
		var ok bool
		if raw, ok = decompressP256(raw); !ok {
			return nil, errors.New("public key is not a compressed P-256 point")
		}
	case 65:
	default:
		return nil, fmt.Errorf("public key is %d bytes, want 33 (compressed) or 65 (uncompressed) P-256", len(raw))
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return nil, fmt.Errorf("public key is not a P-256 point: %w", err)
	}
	return pub, nil
}

// sameKeyHex reports whether two hex public keys denote the same point; they
// may differ in case or in compression.
func sameKeyHex(a, b string) bool {
	if strings.EqualFold(a, b) {
		return a != ""
	}
	pa, err := ParseP256PublicKey(a)
	if err != nil {
		return false
	}
	pb, err := ParseP256PublicKey(b)
	if err != nil {
		return false
	}
	return pa.Equal(pb)
}

// decompressP256 expands a 33-byte SEC1 compressed P-256 point to its
// 65-byte uncompressed form (crypto/ecdh and ecdsa.ParseUncompressedPublicKey
// take only the latter). The result is checked on the curve by the caller's
// parser.
func decompressP256(raw []byte) ([]byte, bool) {
	if len(raw) != 33 || (raw[0] != 2 && raw[0] != 3) {
		return nil, false
	}
	params := elliptic.P256().Params()
	p := params.P
	x := new(big.Int).SetBytes(raw[1:])
	if x.Cmp(p) >= 0 {
		return nil, false
	}
	// y² = x³ - 3x + b (mod p)
	y2 := new(big.Int).Mul(x, x)
	y2.Mul(y2, x)
	y2.Sub(y2, new(big.Int).Mul(x, big.NewInt(3)))
	y2.Add(y2, params.B)
	y2.Mod(y2, p)
	y := new(big.Int).ModSqrt(y2, p)
	if y == nil {
		return nil, false
	}
	if y.Bit(0) != uint(raw[0]&1) {
		y.Sub(p, y)
	}
	out := make([]byte, 65)
	out[0] = 4
	x.FillBytes(out[1:33])
	y.FillBytes(out[33:])
	return out, true
}
