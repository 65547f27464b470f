package keys

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/txscript"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Signature is a signature split the way the public API returns it.
//
//   - secp256k1: R, S of a low-S ECDSA signature and V = recovery id (0 or 1).
//   - P-256: R, S of a low-S ECDSA signature, V = 0.
//   - Ed25519: R = first 32 bytes, S = last 32 bytes of the RFC 8032 signature, V = 0.
type Signature struct {
	R, S [32]byte
	V    byte
}

// Ethereum returns R || S || V (65 bytes), the layout go-ethereum expects.
func (s Signature) Ethereum() []byte {
	out := make([]byte, 65)
	copy(out, s.R[:])
	copy(out[32:], s.S[:])
	out[64] = s.V
	return out
}

// Hex returns r, s and v as the public API's sign_raw_payload result: hex
// without 0x, v as one byte ("00" or "01").
func (s Signature) Hex() (r, sHex, v string) {
	return hex.EncodeToString(s.R[:]), hex.EncodeToString(s.S[:]), hex.EncodeToString([]byte{s.V})
}

// Sign signs with a 32-byte private key of the given curve. On secp256k1 and
// P-256 payload must be the 32-byte digest to sign (ECDSA, RFC 6979
// deterministic on secp256k1, hedged random nonces on P-256; S is normalized
// to the lower half of the order). On Ed25519 payload is the message itself.
func Sign(curve Curve, privateKey, payload []byte) (Signature, error) {
	switch curve {
	case CurveSecp256k1:
		return SignSecp256k1(privateKey, payload)
	case CurveP256:
		return signP256(privateKey, payload)
	case CurveEd25519:
		return signEd25519(privateKey, payload)
	}
	return Signature{}, fmt.Errorf("unknown curve %q", curve)
}

// SignSecp256k1 signs a 32-byte digest and returns a recoverable signature
// (V = recovery id 0/1).
func SignSecp256k1(privateKey, digest []byte) (Signature, error) {
	if len(digest) != 32 {
		return Signature{}, fmt.Errorf("secp256k1 signs a 32-byte digest, got %d bytes", len(digest))
	}
	if err := checkSecp256k1Key(privateKey); err != nil {
		return Signature{}, err
	}
	return signSecp256k1(privateKey, digest)
}

// signSecp256k1Pure is SignSecp256k1 in Go: what builds without cgo use (secp256k1_nocgo.go), and what the cgo
// build's signatures are checked against.
func signSecp256k1Pure(privateKey, digest []byte) (Signature, error) {
	k := secp256k1.PrivKeyFromBytes(privateKey)
	defer k.Zero()
	// Compact layout: [27 + recovery id] || R || S.
	compact := secpecdsa.SignCompact(k, digest, false)
	var sig Signature
	sig.V = compact[0] - 27
	copy(sig.R[:], compact[1:33])
	copy(sig.S[:], compact[33:65])
	return sig, nil
}

var p256HalfOrder = new(big.Int).Rsh(elliptic.P256().Params().N, 1)

func signP256(privateKey, digest []byte) (Signature, error) {
	if len(digest) != 32 {
		return Signature{}, fmt.Errorf("P-256 signs a 32-byte digest, got %d bytes", len(digest))
	}
	// The caller wipes privateKey; crypto/ecdsa keeps its copy of the scalar where nothing outside it can wipe it.
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), privateKey)
	if err != nil {
		return Signature{}, fmt.Errorf("invalid P-256 private key: %w", err)
	}
	r, s, err := ecdsa.Sign(rand.Reader, k, digest)
	if err != nil {
		return Signature{}, fmt.Errorf("P-256 signing failed: %w", err)
	}
	if s.Cmp(p256HalfOrder) > 0 {
		s.Sub(elliptic.P256().Params().N, s)
	}
	var sig Signature
	r.FillBytes(sig.R[:])
	s.FillBytes(sig.S[:])
	return sig, nil
}

func signEd25519(privateKey, message []byte) (Signature, error) {
	if len(privateKey) != ed25519.SeedSize {
		return Signature{}, fmt.Errorf("Ed25519 private key is %d bytes: want 32", len(privateKey))
	}
	k := ed25519.NewKeyFromSeed(privateKey)
	defer clear(k)
	raw := ed25519.Sign(k, message)
	var sig Signature
	copy(sig.R[:], raw[:32])
	copy(sig.S[:], raw[32:])
	return sig, nil
}

// SignSchnorr makes a BIP-340 Schnorr signature of a 32-byte digest with a secp256k1 key: R is the nonce point's x,
// S the scalar, V zero. With taprootTweak the key is first tweaked as a BIP-86 key-path output key (no script tree),
// so the signature verifies against a P2TR address's output key; without, against the key's x coordinate (Spark).
func SignSchnorr(privateKey, digest []byte, taprootTweak bool) (Signature, error) {
	if len(digest) != 32 {
		return Signature{}, fmt.Errorf("BIP-340 signs a 32-byte digest, got %d bytes", len(digest))
	}
	if err := checkSecp256k1Key(privateKey); err != nil {
		return Signature{}, err
	}
	k, _ := btcec.PrivKeyFromBytes(privateKey)
	defer k.Zero()
	if taprootTweak {
		tweaked := txscript.TweakTaprootPrivKey(*k, nil)
		defer tweaked.Zero()
		k = tweaked
	}
	s, err := schnorr.Sign(k, digest)
	if err != nil {
		return Signature{}, fmt.Errorf("BIP-340 signing failed: %w", err)
	}
	raw := s.Serialize()
	var sig Signature
	copy(sig.R[:], raw[:32])
	copy(sig.S[:], raw[32:])
	return sig, nil
}
