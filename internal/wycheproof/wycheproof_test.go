package wycheproof_test

import (
	"testing"

	"github.com/sigil/sigil/internal/wycheproof"
)

// The reference verifier agrees with every case of the Bitcoin set, and with every case of the ordinary set but those
// whose only fault is a high S, which that set calls valid and Bitcoin's rule does not.
func TestStrictSecp256k1AgreesWithTheBitcoinSet(t *testing.T) {
	for _, name := range []string{wycheproof.ECDSASecp256k1Bitcoin, wycheproof.ECDSASecp256k1} {
		set, err := wycheproof.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		highS := 0
		for _, g := range set.TestGroups {
			for _, key := range [][]byte{g.PublicKey.Uncompressed, wycheproof.Compress(g.PublicKey.Uncompressed)} {
				for _, tc := range g.Tests {
					got := wycheproof.StrictSecp256k1(key, tc.Msg, tc.Sig)
					if got == tc.Valid() {
						continue
					}
					if name == wycheproof.ECDSASecp256k1 && tc.Valid() && !got && wycheproof.HasHighS(tc.Sig) {
						highS++
						continue
					}
					t.Errorf("%s, case %s: strict verifier says %v, the set says %s", name, tc.Name(), got, tc.Result)
				}
			}
		}
		if name == wycheproof.ECDSASecp256k1 && highS == 0 {
			t.Error("no valid high-S case in the ordinary set: the exception above tests nothing")
		}
	}
}

func TestLoadCountsEveryCase(t *testing.T) {
	for _, name := range []string{wycheproof.ECDSAP256, wycheproof.ECDSASecp256k1, wycheproof.ECDSASecp256k1Bitcoin, wycheproof.Ed25519} {
		set, err := wycheproof.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if set.NumberOfTests < 100 {
			t.Errorf("%s: %d cases", name, set.NumberOfTests)
		}
	}
}
