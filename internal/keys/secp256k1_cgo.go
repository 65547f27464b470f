//go:build cgo

package keys

import gethsecp "github.com/ethereum/go-ethereum/crypto/secp256k1"

// signSecp256k1 signs with libsecp256k1, which go-ethereum builds in with cgo: the same RFC 6979 signature as the
// pure-Go signer (the nonce from the key and digest alone, S in the lower half), in about two thirds of its time, and
// secp256k1 signing is on every signing activity's path.
func signSecp256k1(privateKey, digest []byte) (Signature, error) {
	rsv, err := gethsecp.Sign(digest, privateKey) // R || S || recovery id
	if err != nil {
		return Signature{}, err
	}
	var sig Signature
	copy(sig.R[:], rsv[:32])
	copy(sig.S[:], rsv[32:64])
	sig.V = rsv[64]
	return sig, nil
}
