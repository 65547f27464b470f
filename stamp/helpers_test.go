package stamp_test

import (
	"crypto/elliptic"
	"encoding/asn1"
	"math/big"
	"testing"
)

// negateS turns a DER P-256 signature (r, s) into the equally valid (r, n-s).
func negateS(t testing.TB, der []byte) []byte {
	t.Helper()
	var sig struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(der, &sig); err != nil || len(rest) != 0 {
		t.Fatalf("not a DER signature: %v", err)
	}
	sig.S.Sub(elliptic.P256().Params().N, sig.S)
	out, err := asn1.Marshal(sig)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
