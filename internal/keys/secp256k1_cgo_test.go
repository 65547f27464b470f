//go:build cgo

package keys

import (
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// libsecp256k1 and the pure-Go signer must give the same signature for every key and digest, so that a build with cgo
// and one without sign alike (RFC 6979 makes the signature a function of the key and digest).
func TestSecp256k1SignersAgree(t *testing.T) {
	n := crypto.S256().Params().N
	keys := [][]byte{
		big.NewInt(1).FillBytes(make([]byte, 32)),
		new(big.Int).Sub(n, big.NewInt(1)).FillBytes(make([]byte, 32)),
	}
	for i := range 500 {
		k := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'k'})
		keys = append(keys, k[:])
	}
	for i, key := range keys {
		digest := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'd'})
		got, err := signSecp256k1(key, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		want, err := signSecp256k1Pure(key, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("key %d: libsecp256k1 %x, pure Go %x", i, got.Ethereum(), want.Ethereum())
		}
	}
}
