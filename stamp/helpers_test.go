package stamp_test

import (
	"crypto/elliptic"
	"encoding/asn1"
	"math/big"
	"testing"
)

// secp256k1N is the order of secp256k1.
var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

// negateS turns a DER P-256 signature (r, s) into the equally valid (r, n-s).
func negateS(t testing.TB, der []byte) []byte {
	t.Helper()
	return negateSMod(t, der, elliptic.P256().Params().N)
}

// negateSMod turns a DER ECDSA signature (r, s) on a curve of order n into the equally valid (r, n-s).
func negateSMod(t testing.TB, der []byte, n *big.Int) []byte {
	t.Helper()
	var sig struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(der, &sig); err != nil || len(rest) != 0 {
		t.Fatalf("not a DER signature: %v", err)
	}
	sig.S.Sub(n, sig.S)
	out, err := asn1.Marshal(sig)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
