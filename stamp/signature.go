package stamp

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	k1ecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// checkSignatureEncoding rejects a signature that is not well formed for the key's curve, before any
// verification, so a caller can tell "malformed" from "does not verify". ECDSA signatures must be strict DER
// (minimal lengths and integers, no trailing bytes); low S is not required because the SDKs do not normalise it.
func (k publicKey) checkSignatureEncoding(sig []byte) error {
	switch k.curve {
	case CurveEd25519:
		if len(sig) != ed25519.SignatureSize {
			return fmt.Errorf("%s signature must be %d bytes, got %d", k.curve, ed25519.SignatureSize, len(sig))
		}
	case CurveSecp256k1:
		if _, err := k1ecdsa.ParseDERSignature(sig); err != nil {
			return fmt.Errorf("%s signature is not a valid DER ECDSA signature", k.curve)
		}
	case CurveP256:
		if !isStrictDERSignature(sig) {
			return fmt.Errorf("%s signature is not a valid DER ECDSA signature", k.curve)
		}
	default:
		return fmt.Errorf("unknown API key curve %q", k.curve)
	}
	return nil
}

// verify reports whether sig is the key's signature of body: ECDSA over SHA-256(body), Ed25519 over body itself.
// A zero publicKey (a stamp struct not made by a parser) verifies nothing.
func (k publicKey) verify(body, sig []byte) bool {
	switch {
	case k.curve == CurveEd25519 && len(k.ed) == ed25519.PublicKeySize:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.ed, body, sig)
	case k.curve == CurveSecp256k1 && k.k1 != nil:
		return verifySecp256k1(k.k1, body, sig)
	case k.curve == CurveP256 && k.p256 != nil:
		digest := sha256.Sum256(body)
		return k.p256.verify(digest[:], sig)
	default:
		return false
	}
}

// verifySecp256k1 verifies a DER signature with libsecp256k1 (through go-ethereum; its pure-Go fallback without
// cgo), about five times faster than the pure-Go verifier. libsecp256k1 accepts only low-S signatures, and the
// SDKs do not normalise S, so a high S is replaced by n-S first: (r, s) is valid exactly when (r, n-s) is.
func verifySecp256k1(compressedKey, body, der []byte) bool {
	sig, err := k1ecdsa.ParseDERSignature(der) // strict DER, 0 < r, s < n
	if err != nil {
		return false
	}
	r, s := sig.R(), sig.S()
	if s.IsOverHalfOrder() {
		s.Negate()
	}
	var rs [64]byte
	r.PutBytesUnchecked(rs[:32])
	s.PutBytesUnchecked(rs[32:])
	digest := sha256.Sum256(body)
	return ethcrypto.VerifySignature(compressedKey, digest[:], rs[:])
}

// isStrictDERSignature reports whether sig is SEQUENCE { INTEGER r, INTEGER s } in DER with positive r and s and
// nothing after it. cryptobyte enforces minimal lengths and minimal integer encodings.
func isStrictDERSignature(sig []byte) bool {
	_, _, ok := parseDERSignature(sig)
	return ok
}

// parseDERSignature returns r and s, big-endian, of a signature isStrictDERSignature accepts.
func parseDERSignature(sig []byte) (r, s []byte, ok bool) {
	var inner cryptobyte.String
	input := cryptobyte.String(sig)
	if !input.ReadASN1(&inner, asn1.SEQUENCE) || !input.Empty() ||
		!inner.ReadASN1Integer(&r) || !inner.ReadASN1Integer(&s) || !inner.Empty() || isZero(r) || isZero(s) {
		return nil, nil, false
	}
	return r, s, true
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
