package stamp

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	k1ecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Header names of the three stamps. Header lookups are case-insensitive; these are the spellings the SDKs send.
const (
	HeaderAPIKey   = "X-Stamp"
	HeaderWebAuthn = "X-Stamp-Webauthn"
	HeaderAttested = "X-Stamp-Attested"
)

// Stamper signs a request body and returns the header that authenticates it.
type Stamper interface {
	Stamp(body []byte) (header, value string, err error)
}

// APIKey is an API key pair that stamps requests (X-Stamp). Its String method never shows the private key.
type APIKey struct {
	curve     Curve
	publicHex string
	p256      *ecdsa.PrivateKey
	k1        *secp256k1.PrivateKey
	ed        ed25519.PrivateKey
}

var _ Stamper = (*APIKey)(nil)

// GenerateAPIKey makes a new random key on curve.
func GenerateAPIKey(curve Curve) (*APIKey, error) {
	switch curve {
	case CurveP256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate P-256 key: %w", err)
		}
		return newP256Key(k)
	case CurveSecp256k1:
		k, err := secp256k1.GeneratePrivateKey()
		if err != nil {
			return nil, fmt.Errorf("generate secp256k1 key: %w", err)
		}
		return newSecp256k1Key(k), nil
	case CurveEd25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate Ed25519 key: %w", err)
		}
		return newEd25519Key(k), nil
	default:
		return nil, fmt.Errorf("unknown API key curve %q", curve)
	}
}

// ParseAPIKey reads a private key in the SDKs' hex form: for P-256 and secp256k1 a 32-byte scalar (64 hex
// characters, 0 < d < n); for Ed25519 either the 32-byte seed or the 64-byte seed||public key of the Go SDK (whose
// public half must match the seed). Error messages never include the key.
func ParseAPIKey(curve Curve, privateHex string) (*APIKey, error) {
	raw, err := hex.DecodeString(privateHex)
	if err != nil {
		return nil, fmt.Errorf("%s private key is not hex", curve)
	}
	switch curve {
	case CurveP256:
		if len(raw) != 32 {
			return nil, fmt.Errorf("%s private key must be 32 bytes (64 hex characters), got %d bytes", curve, len(raw))
		}
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
		if err != nil {
			return nil, fmt.Errorf("%s private key is not a valid scalar (zero or not below the group order)", curve)
		}
		return newP256Key(k)
	case CurveSecp256k1:
		if len(raw) != 32 {
			return nil, fmt.Errorf("%s private key must be 32 bytes (64 hex characters), got %d bytes", curve, len(raw))
		}
		var d secp256k1.ModNScalar
		if overflow := d.SetByteSlice(raw); overflow || d.IsZero() {
			return nil, fmt.Errorf("%s private key is not a valid scalar (zero or not below the group order)", curve)
		}
		return newSecp256k1Key(secp256k1.NewPrivateKey(&d)), nil
	case CurveEd25519:
		switch len(raw) {
		case ed25519.SeedSize:
			return newEd25519Key(ed25519.NewKeyFromSeed(raw)), nil
		case ed25519.PrivateKeySize:
			k := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
			if !k.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(raw[ed25519.SeedSize:])) {
				return nil, fmt.Errorf("%s private key: the public half does not match the seed", curve)
			}
			return newEd25519Key(k), nil
		default:
			return nil, fmt.Errorf("%s private key must be a 32-byte seed or 64 bytes (seed and public key), got %d bytes", curve, len(raw))
		}
	default:
		return nil, fmt.Errorf("unknown API key curve %q", curve)
	}
}

// ParseAPIKeyString reads a private key in the Go SDK's stored form: hex, optionally followed by ":secp256k1" or
// ":ed25519" (or ":p256"); without a suffix the key is P-256. The hex part is read as ParseAPIKey reads it.
func ParseAPIKeyString(s string) (*APIKey, error) {
	privateHex, suffix, found := strings.Cut(s, ":")
	curve := CurveP256
	if found {
		switch strings.ToLower(suffix) {
		case "p256":
		case "secp256k1":
			curve = CurveSecp256k1
		case "ed25519":
			curve = CurveEd25519
		default:
			return nil, fmt.Errorf("unknown API key curve suffix %q: want p256, secp256k1 or ed25519", truncate(suffix, 20))
		}
	}
	return ParseAPIKey(curve, privateHex)
}

func newP256Key(k *ecdsa.PrivateKey) (*APIKey, error) {
	pub, err := compressP256(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	return &APIKey{curve: CurveP256, p256: k, publicHex: hex.EncodeToString(pub)}, nil
}

func newSecp256k1Key(k *secp256k1.PrivateKey) *APIKey {
	return &APIKey{curve: CurveSecp256k1, k1: k, publicHex: hex.EncodeToString(k.PubKey().SerializeCompressed())}
}

func newEd25519Key(k ed25519.PrivateKey) *APIKey {
	return &APIKey{curve: CurveEd25519, ed: k, publicHex: hex.EncodeToString(k.Public().(ed25519.PublicKey))}
}

// Curve of the key.
func (k *APIKey) Curve() Curve { return k.curve }

// Scheme the key stamps with.
func (k *APIKey) Scheme() Scheme { return k.curve.Scheme() }

// PublicKeyHex is the public key as registered and sent in stamps: lower-case hex of the compressed point (P-256,
// secp256k1) or of the raw 32 bytes (Ed25519).
func (k *APIKey) PublicKeyHex() string { return k.publicHex }

// PrivateKeyHex is the private key in the form ParseAPIKey reads: the 32-byte scalar, or for Ed25519 the 64-byte
// seed||public key the Go SDK uses. Handle it as a secret.
func (k *APIKey) PrivateKeyHex() string {
	switch k.curve {
	case CurveP256:
		b, err := k.p256.Bytes()
		if err != nil { // only for keys not made by this package
			return ""
		}
		return hex.EncodeToString(b)
	case CurveSecp256k1:
		return hex.EncodeToString(k.k1.Serialize())
	default:
		return hex.EncodeToString(k.ed)
	}
}

// String describes the key without its secret.
func (k *APIKey) String() string {
	return fmt.Sprintf("stamp.APIKey{%s %s}", k.curve, k.publicHex)
}

// GoString keeps %#v from printing the private key.
func (k *APIKey) GoString() string { return k.String() }

// Sign returns the raw signature bytes of body as the scheme defines them: DER ECDSA over SHA-256(body) for
// P-256 and secp256k1 (secp256k1 signatures are deterministic, RFC 6979), Ed25519 over body.
func (k *APIKey) Sign(body []byte) ([]byte, error) {
	switch k.curve {
	case CurveP256:
		digest := sha256.Sum256(body)
		sig, err := ecdsa.SignASN1(rand.Reader, k.p256, digest[:])
		if err != nil {
			return nil, fmt.Errorf("sign with P-256 API key: %w", err)
		}
		return sig, nil
	case CurveSecp256k1:
		digest := sha256.Sum256(body)
		return k1ecdsa.Sign(k.k1, digest[:]).Serialize(), nil
	default:
		return ed25519.Sign(k.ed, body), nil
	}
}

// apiKeyStampJSON is the decoded X-Stamp value. Field order follows the Go SDK; the order is not significant.
type apiKeyStampJSON struct {
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
	Scheme    string `json:"scheme"`
}

// Stamp signs body and returns the X-Stamp header and its value: base64url (no padding) of
// {"publicKey","signature","scheme"}.
func (k *APIKey) Stamp(body []byte) (header, value string, err error) {
	sig, err := k.Sign(body)
	if err != nil {
		return "", "", err
	}
	j, err := json.Marshal(apiKeyStampJSON{
		PublicKey: k.publicHex,
		Signature: hex.EncodeToString(sig),
		Scheme:    string(k.curve.Scheme()),
	})
	if err != nil {
		return "", "", fmt.Errorf("encode X-Stamp: %w", err)
	}
	return HeaderAPIKey, base64.RawURLEncoding.EncodeToString(j), nil
}
