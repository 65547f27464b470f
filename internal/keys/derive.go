package keys

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	//lint:ignore SA1019 BIP-32 fingerprints and Bitcoin's HASH160 are defined with RIPEMD-160: there is no other hash to use.
	"golang.org/x/crypto/ripemd160"
)

// Node is one key of an HD tree, private part included. Wipe it with
// [Node.Zero] when done.
type Node struct {
	Curve             Curve
	Depth             uint8
	ParentFingerprint [4]byte // zero for the master key
	ChildNumber       uint32  // with HardenedOffset for hardened children; zero for the master key
	ChainCode         [32]byte
	PrivateKey        [32]byte // secp256k1/P-256 scalar, or the Ed25519 seed (RFC 8032 private key)
	// PublicKey is the SEC1 compressed point (33 bytes) on secp256k1 and P-256,
	// and the raw 32-byte key on Ed25519.
	PublicKey []byte
}

// Zero wipes the private key and chain code.
func (n *Node) Zero() {
	clear(n.PrivateKey[:])
	clear(n.ChainCode[:])
}

// curveParams describes how SLIP-10 treats a curve.
type curveParams struct {
	hmacKey string
	order   *scalar // nil for Ed25519, whose keys are not reduced
}

func paramsFor(c Curve) (curveParams, error) {
	switch c {
	case CurveSecp256k1:
		return curveParams{"Bitcoin seed", &orderSecp256k1}, nil
	case CurveP256:
		return curveParams{"Nist256p1 seed", &orderP256}, nil
	case CurveEd25519:
		return curveParams{"ed25519 seed", nil}, nil
	}
	return curveParams{}, fmt.Errorf("unknown curve %q: want CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256", c)
}

// DeriveNode derives the key at path from a BIP-39 seed (16 to 64 bytes):
// BIP-32 on secp256k1, SLIP-10 on P-256 and Ed25519. Ed25519 supports
// hardened levels only. On secp256k1 and P-256, the negligible case of an
// invalid child key is handled as SLIP-10 says (rehash), never as an error.
func DeriveNode(curve Curve, seed []byte, path Path) (*Node, error) {
	params, err := paramsFor(curve)
	if err != nil {
		return nil, err
	}
	if len(seed) < 16 || len(seed) > 64 {
		return nil, fmt.Errorf("seed is %d bytes: want 16 to 64", len(seed))
	}
	if len(path) > maxDepth {
		return nil, fmt.Errorf("derivation path has %d levels: at most %d are allowed", len(path), maxDepth)
	}
	for i, child := range path {
		if params.order == nil && child < HardenedOffset {
			return nil, fmt.Errorf("level %d of %s is not hardened: Ed25519 (SLIP-10) derives hardened children only", i+1, path)
		}
	}

	var i [64]byte
	defer clear(i[:])
	hmacSHA512(i[:0], []byte(params.hmacKey), seed)
	for params.order != nil && !validScalar(i[:32], params.order) {
		hmacSHA512(i[:0], []byte(params.hmacKey), i[:])
	}
	node := &Node{Curve: curve}
	copy(node.PrivateKey[:], i[:32])
	copy(node.ChainCode[:], i[32:])

	var parent [32]byte
	defer clear(parent[:])
	for _, child := range path {
		parent = node.PrivateKey
		if err := deriveChild(node, params, child); err != nil {
			node.Zero()
			return nil, err
		}
	}
	if node.PublicKey, err = publicKey(curve, node.PrivateKey[:]); err != nil {
		node.Zero()
		return nil, err
	}
	if len(path) > 0 {
		parentPub, err := publicKey(curve, parent[:])
		if err != nil {
			node.Zero()
			return nil, err
		}
		node.ParentFingerprint = fingerprint(curve, parentPub)
		node.ChildNumber = path[len(path)-1]
		node.Depth = uint8(len(path))
	}
	return node, nil
}

// deriveChild replaces node's key and chain code with those of child
// (CKDpriv of BIP-32 / SLIP-10).
func deriveChild(node *Node, params curveParams, child uint32) error {
	var data [37]byte
	defer clear(data[:])
	if child >= HardenedOffset {
		copy(data[1:33], node.PrivateKey[:])
	} else {
		pub, err := publicKey(node.Curve, node.PrivateKey[:])
		if err != nil {
			return err
		}
		copy(data[:33], pub)
	}
	binary.BigEndian.PutUint32(data[33:], child)

	var i [64]byte
	defer clear(i[:])
	hmacSHA512(i[:0], node.ChainCode[:], data[:])
	if params.order == nil {
		copy(node.PrivateKey[:], i[:32])
		copy(node.ChainCode[:], i[32:])
		return nil
	}
	parent := scalarFromBytes(&node.PrivateKey)
	defer clear(parent[:])
	for {
		var il [32]byte
		copy(il[:], i[:32])
		tweak := scalarFromBytes(&il)
		clear(il[:])
		// Valid when I_L < n and k = I_L + k_par mod n is not zero. Branching
		// here only reveals the (negligible) invalid case.
		if _, belowOrder := sub(&tweak, params.order); belowOrder == 1 {
			k := addMod(&tweak, &parent, params.order)
			clear(tweak[:])
			if !isZeroScalar(&k) {
				k.putBytes(&node.PrivateKey)
				copy(node.ChainCode[:], i[32:])
				clear(k[:])
				return nil
			}
		}
		// SLIP-10: I = HMAC-SHA512(c_par, 0x01 || I_R || ser32(i)), retry.
		data[0] = 1
		copy(data[1:33], i[32:])
		hmacSHA512(i[:0], node.ChainCode[:], data[:])
	}
}

func isZeroScalar(s *scalar) bool { return s[0]|s[1]|s[2]|s[3] == 0 }

func validScalar(b []byte, order *scalar) bool {
	var k [32]byte
	copy(k[:], b)
	s := scalarFromBytes(&k)
	clear(k[:])
	ok := isValidKey(&s, order) == 1
	clear(s[:])
	return ok
}

func hmacSHA512(dst, key, data []byte) {
	mac := hmac.New(sha512.New, key)
	mac.Write(data)
	mac.Sum(dst)
}

// publicKey computes the public key of a 32-byte private key: compressed SEC1
// on secp256k1 and P-256, raw 32 bytes on Ed25519.
func publicKey(curve Curve, priv []byte) ([]byte, error) {
	switch curve {
	case CurveSecp256k1:
		if err := checkSecp256k1Key(priv); err != nil {
			return nil, err
		}
		k := secp256k1.PrivKeyFromBytes(priv)
		defer k.Zero()
		return k.PubKey().SerializeCompressed(), nil
	case CurveP256:
		k, err := ecdh.P256().NewPrivateKey(priv)
		if err != nil {
			return nil, fmt.Errorf("invalid P-256 private key: %w", err)
		}
		return compressP256(k.PublicKey().Bytes()), nil
	case CurveEd25519:
		if len(priv) != ed25519.SeedSize {
			return nil, fmt.Errorf("Ed25519 private key is %d bytes: want 32", len(priv))
		}
		k := ed25519.NewKeyFromSeed(priv)
		defer clear(k)
		return append([]byte(nil), k[32:]...), nil
	}
	return nil, fmt.Errorf("unknown curve %q", curve)
}

// PublicKey returns the public key of a private key, in the same encoding as
// [Node.PublicKey].
func PublicKey(curve Curve, privateKey []byte) ([]byte, error) {
	return publicKey(curve, privateKey)
}

func checkSecp256k1Key(priv []byte) error {
	if len(priv) != 32 || !validScalar(priv, &orderSecp256k1) {
		return fmt.Errorf("invalid secp256k1 private key: want 32 bytes, not zero, below the group order")
	}
	return nil
}

// compressP256 turns an uncompressed SEC1 point (65 bytes) into its
// compressed form.
func compressP256(uncompressed []byte) []byte {
	out := make([]byte, 33)
	out[0] = 2 | uncompressed[64]&1
	copy(out[1:], uncompressed[1:33])
	return out
}

// fingerprint is the first four bytes of HASH160 of the serialized public key
// (Ed25519 keys are serialized with a 0x00 prefix, as in SLIP-10).
func fingerprint(curve Curve, pub []byte) [4]byte {
	if curve == CurveEd25519 {
		pub = append([]byte{0}, pub...)
	}
	sha := sha256.Sum256(pub)
	h := ripemd160.New()
	h.Write(sha[:])
	var fp [4]byte
	copy(fp[:], h.Sum(nil))
	return fp
}
