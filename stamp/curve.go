package stamp

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"filippo.io/edwards25519"
	"filippo.io/nistec"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Curve is the curve of an API key, spelled as the API's enum (ApiKeyParamsV2.curveType).
type Curve string

const (
	CurveP256      Curve = "API_KEY_CURVE_P256"
	CurveSecp256k1 Curve = "API_KEY_CURVE_SECP256K1"
	CurveEd25519   Curve = "API_KEY_CURVE_ED25519"
)

// Scheme is the signature scheme named in an X-Stamp.
type Scheme string

const (
	SchemeP256      Scheme = "SIGNATURE_SCHEME_TK_API_P256"
	SchemeSecp256k1 Scheme = "SIGNATURE_SCHEME_TK_API_SECP256K1"
	SchemeEd25519   Scheme = "SIGNATURE_SCHEME_TK_API_ED25519"
	// SchemeSecp256k1EIP191 is the wallet stamper's scheme (an Ethereum personal_sign of the body). It is
	// recognised so the error can say so, but not implemented: such stamps fail with KindUnknownScheme.
	SchemeSecp256k1EIP191 Scheme = "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191"
)

// ParseCurve accepts exactly the three API enum names.
func ParseCurve(s string) (Curve, error) {
	c := Curve(s)
	if !c.Valid() {
		return "", fmt.Errorf("unknown API key curve %q: want %s, %s or %s", s, CurveP256, CurveSecp256k1, CurveEd25519)
	}
	return c, nil
}

// Valid reports whether c is one of the three supported curves.
func (c Curve) Valid() bool {
	return c == CurveP256 || c == CurveSecp256k1 || c == CurveEd25519
}

// Scheme is the X-Stamp scheme used by keys on this curve ("" for an invalid curve).
func (c Curve) Scheme() Scheme {
	switch c {
	case CurveP256:
		return SchemeP256
	case CurveSecp256k1:
		return SchemeSecp256k1
	case CurveEd25519:
		return SchemeEd25519
	default:
		return ""
	}
}

// Curve is the API key curve this scheme signs with; false for schemes this package does not verify.
func (s Scheme) Curve() (Curve, bool) {
	switch s {
	case SchemeP256:
		return CurveP256, true
	case SchemeSecp256k1:
		return CurveSecp256k1, true
	case SchemeEd25519:
		return CurveEd25519, true
	default:
		return "", false
	}
}

// NormalizePublicKey checks that publicKeyHex is a valid public key for curve, in the form the API uses, and
// returns it in lower-case hex, the form credentials are stored and looked up under. P-256 and secp256k1 keys are
// SEC1 compressed points (33 bytes); Ed25519 keys are the raw 32-byte encoding and must not be of small order.
// Upper-case hex is accepted. Use it when users register API keys.
func NormalizePublicKey(curve Curve, publicKeyHex string) (string, error) {
	if _, err := parsePublicKey(curve, publicKeyHex); err != nil {
		return "", err
	}
	return strings.ToLower(publicKeyHex), nil
}

// publicKey is a parsed, validated API public key. Exactly one of the key fields is set, as curve says.
type publicKey struct {
	curve Curve
	p256  *p256Key
	k1    []byte // validated SEC1 compressed point, the form libsecp256k1 takes
	ed    ed25519.PublicKey
}

const compressedPointLen = 33

// parsePublicKey parses and validates a public key, remembering it for the next request that names it.
func parsePublicKey(curve Curve, publicKeyHex string) (publicKey, error) {
	if k, ok := parsedKeys.get(curve, publicKeyHex); ok {
		return k, nil
	}
	k, err := parsePublicKeyUncached(curve, publicKeyHex)
	if err == nil {
		parsedKeys.put(curve, publicKeyHex, k)
	}
	return k, err
}

func parsePublicKeyUncached(curve Curve, publicKeyHex string) (publicKey, error) {
	if !curve.Valid() {
		return publicKey{}, fmt.Errorf("unknown API key curve %q", curve)
	}
	raw, err := hex.DecodeString(publicKeyHex)
	if err != nil {
		return publicKey{}, fmt.Errorf("%s public key is not hex", curve)
	}
	switch curve {
	case CurveP256:
		k, err := parseP256Compressed(raw)
		return publicKey{curve: curve, p256: k}, err
	case CurveSecp256k1:
		k, err := parseSecp256k1Compressed(raw)
		return publicKey{curve: curve, k1: k}, err
	default:
		k, err := parseEd25519(raw)
		return publicKey{curve: curve, ed: k}, err
	}
}

func checkCompressedLength(curve Curve, raw []byte) error {
	if len(raw) != compressedPointLen {
		return fmt.Errorf("%s public key must be a %d-byte compressed point (%d hex characters), got %d bytes",
			curve, compressedPointLen, 2*compressedPointLen, len(raw))
	}
	if raw[0] != 0x02 && raw[0] != 0x03 {
		return fmt.Errorf("%s public key must be a compressed point starting with 02 or 03, got %02x", curve, raw[0])
	}
	return nil
}

// parseP256Compressed parses a compressed P-256 point once, with nistec (which recovers y and checks the curve), and
// gives the standard library's key the same point for the verifications made before the key has its table.
func parseP256Compressed(raw []byte) (*p256Key, error) {
	if err := checkCompressedLength(CurveP256, raw); err != nil {
		return nil, err
	}
	q, err := nistec.NewP256Point().SetBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("%s public key is not a point on the curve", CurveP256)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), q.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s public key is not a point on the curve", CurveP256)
	}
	return &p256Key{pub: pub, point: q}, nil
}

func parseSecp256k1Compressed(raw []byte) ([]byte, error) {
	if err := checkCompressedLength(CurveSecp256k1, raw); err != nil {
		return nil, err
	}
	if _, err := secp256k1.ParsePubKey(raw); err != nil {
		return nil, fmt.Errorf("%s public key is not a point on the curve", CurveSecp256k1)
	}
	return raw, nil
}

func parseEd25519(raw []byte) (ed25519.PublicKey, error) {
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%s public key must be %d bytes (%d hex characters), got %d bytes",
			CurveEd25519, ed25519.PublicKeySize, 2*ed25519.PublicKeySize, len(raw))
	}
	p, err := new(edwards25519.Point).SetBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("%s public key is not a point on the curve", CurveEd25519)
	}
	// A small-order key (the identity, for one) lets anyone forge signatures that verify under it.
	if new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return nil, fmt.Errorf("%s public key is a point of small order", CurveEd25519)
	}
	return ed25519.PublicKey(raw), nil
}

// P256PublicKeyHex is the lower-case hex of the SEC1 compressed form of a P-256 public key: how the reference's API
// names API keys, session keys and client keys.
func P256PublicKeyHex(k *ecdsa.PublicKey) (string, error) {
	raw, err := compressP256(k)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

// compressP256 encodes an ECDSA P-256 public key as a SEC1 compressed point.
func compressP256(k *ecdsa.PublicKey) ([]byte, error) {
	u, err := k.Bytes() // 0x04 || X || Y
	if err != nil {
		return nil, fmt.Errorf("encode P-256 public key: %w", err)
	}
	out := make([]byte, compressedPointLen)
	out[0] = 0x02 | (u[64] & 1)
	copy(out[1:], u[1:33])
	return out, nil
}

// parsedKeys remembers the public keys of recent stamps. A client sends the same key with every request, and parsing
// one is not free: P-256 and secp256k1 keys are compressed points, whose y coordinate is a modular square root (for
// P-256 about a tenth of what verifying the signature costs).
var parsedKeys = keyCache{max: 4096, maxTables: 128}

// keyCache maps a curve and a public key's hex to the parsed key. It holds at most max keys and forgets all of them
// when full: a bound against callers that send ever new keys, and simpler than evicting one at a time. Of its P-256
// keys, at most maxTables have a table of multiples (p256.go), about 28 MiB in all; forgetting the keys frees theirs.
type keyCache struct {
	mu        sync.Mutex
	keys      map[cachedKey]publicKey
	max       int
	tables    int
	maxTables int
}

type cachedKey struct {
	curve Curve
	hex   string
}

func (c *keyCache) get(curve Curve, publicKeyHex string) (publicKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[cachedKey{curve, publicKeyHex}]
	return k, ok
}

func (c *keyCache) put(curve Curve, publicKeyHex string, k publicKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil || len(c.keys) >= c.max {
		c.keys = make(map[cachedKey]publicKey, c.max)
		c.tables = 0
	}
	c.keys[cachedKey{curve, publicKeyHex}] = k
}

// reserveTable says whether one more cached key may build its table, and counts it if so.
func (c *keyCache) reserveTable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables >= c.maxTables {
		return false
	}
	c.tables++
	return true
}
