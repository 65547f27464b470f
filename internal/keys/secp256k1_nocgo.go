//go:build !cgo

package keys

// signSecp256k1 signs in Go where there is no C compiler (static builds): libsecp256k1 needs cgo.
func signSecp256k1(privateKey, digest []byte) (Signature, error) {
	return signSecp256k1Pure(privateKey, digest)
}
