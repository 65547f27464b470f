package wycheproof

import (
	"crypto/sha256"

	k1ecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"
)

// StrictSecp256k1 is a reference verifier of Bitcoin's rule for ECDSA over secp256k1 with SHA-256: a strict DER
// signature (dcrd's parser) with a low S, verified by libsecp256k1 (go-ethereum's binding), which refuses a high S.
// Its verdicts are those of the Bitcoin vector set, case for case (TestStrictSecp256k1AgreesWithTheBitcoinSet); the
// tests of Sigil's secp256k1 signers check that what they sign passes it. key is a SEC1 point, compressed or not.
func StrictSecp256k1(key, msg, der []byte) bool {
	sig, err := k1ecdsa.ParseDERSignature(der)
	if err != nil {
		return false
	}
	r, s := sig.R(), sig.S()
	if s.IsOverHalfOrder() {
		return false
	}
	var rs [64]byte
	r.PutBytesUnchecked(rs[:32])
	s.PutBytesUnchecked(rs[32:])
	digest := sha256.Sum256(msg)
	return ethcrypto.VerifySignature(key, digest[:], rs[:])
}

// Compress is the SEC1 compressed form of an uncompressed point (0x04 ‖ x ‖ y), as API keys are written.
func Compress(uncompressed []byte) []byte {
	if len(uncompressed) != 65 || uncompressed[0] != 4 {
		return nil
	}
	return append([]byte{2 | uncompressed[64]&1}, uncompressed[1:33]...)
}

// HasHighS reports whether der is a DER signature whose S is above half the secp256k1 order.
func HasHighS(der []byte) bool {
	sig, err := k1ecdsa.ParseDERSignature(der)
	if err != nil {
		return false
	}
	s := sig.S()
	return s.IsOverHalfOrder()
}

// LowS is der with its S replaced by the order less S when S is high: the signature's low-S twin, valid exactly when
// der is under the ordinary rule. It returns der unchanged when it does not parse.
func LowS(der []byte) []byte {
	sig, err := k1ecdsa.ParseDERSignature(der)
	if err != nil {
		return der
	}
	r, s := sig.R(), sig.S()
	if !s.IsOverHalfOrder() {
		return der
	}
	s.Negate()
	return k1ecdsa.NewSignature(&r, &s).Serialize()
}
