package stamp

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/sigil/sigil/internal/wycheproof"
)

// Project Wycheproof's vectors through API key stamp verification: each case is made into an X-Stamp of its
// signature over its message, parsed and verified as a request's would be. A valid case must parse and verify; an
// invalid one must be refused, by the parser (a signature that is not strict DER, say) or by the verification.

// stampVerdict parses an X-Stamp of sig by the key and verifies it over msg with key in place of the parsed key (so
// that a test can choose how the key verifies). It returns what refused it, or nil.
func stampVerdict(curve Curve, key publicKey, keyHex string, msg, sig []byte) error {
	j, err := json.Marshal(apiKeyStampJSON{PublicKey: keyHex, Signature: hex.EncodeToString(sig), Scheme: string(curve.Scheme())})
	if err != nil {
		return err
	}
	s, err := ParseAPIKeyStamp(base64.RawURLEncoding.EncodeToString(j))
	if err != nil {
		return err
	}
	s.key = key
	return s.Verify(msg)
}

func loadWycheproof(t *testing.T, name string) *wycheproof.Set {
	t.Helper()
	set, err := wycheproof.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// P-256: every case through both ways a key verifies: the standard library's (a key before its table), and the
// table of the key's multiples that a hot key gets (p256.go).
func TestWycheproofP256Stamps(t *testing.T) {
	t.Parallel()
	set := loadWycheproof(t, wycheproof.ECDSAP256)
	for _, g := range set.TestGroups {
		keyHex := hex.EncodeToString(wycheproof.Compress(g.PublicKey.Uncompressed))
		plain, err := parsePublicKeyUncached(CurveP256, keyHex)
		if err != nil {
			t.Fatalf("key %s: %v", keyHex, err)
		}
		plain.p256.uses.Store(hotKeyUses) // counted hot already, with no table: it never builds one
		tabled, _ := parsePublicKeyUncached(CurveP256, keyHex)
		tabled.p256.table.Store(newP256Table(tabled.p256.point))
		for _, tc := range g.Tests {
			for _, path := range []struct {
				name string
				key  publicKey
			}{{"standard library", plain}, {"key's table", tabled}} {
				err := stampVerdict(CurveP256, path.key, keyHex, tc.Msg, tc.Sig)
				if (err == nil) != tc.Valid() {
					t.Errorf("case %s, %s: %v, want %s", tc.Name(), path.name, err, tc.Result)
				}
			}
		}
		if plain.p256.table.Load() != nil {
			t.Fatal("the key meant to verify without a table built one")
		}
	}
}

// secp256k1: the ordinary set, whose valid cases include high-S signatures, agrees case for case. The Bitcoin set
// agrees too but for its cases whose only fault is a high S (their low-S twin passes Bitcoin's rule: case 1,
// "Signature malleability", and case 388, S one above half the order): stamps accept a high S by design
// (signature.go: signers that do not normalise S, as the ordinary set requires), so those verify. What Sigil signs has
// a low S and passes Bitcoin's rule (TestSecp256k1StampsPassAStrictVerifier).
func TestWycheproofSecp256k1Stamps(t *testing.T) {
	t.Parallel()
	for _, name := range []string{wycheproof.ECDSASecp256k1, wycheproof.ECDSASecp256k1Bitcoin} {
		malleable := 0
		for _, g := range loadWycheproof(t, name).TestGroups {
			keyHex := hex.EncodeToString(wycheproof.Compress(g.PublicKey.Uncompressed))
			key, err := parsePublicKeyUncached(CurveSecp256k1, keyHex)
			if err != nil {
				t.Fatalf("key %s: %v", keyHex, err)
			}
			for _, tc := range g.Tests {
				want := tc.Valid()
				if name == wycheproof.ECDSASecp256k1Bitcoin && !want && wycheproof.HasHighS(tc.Sig) &&
					wycheproof.StrictSecp256k1(g.PublicKey.Uncompressed, tc.Msg, wycheproof.LowS(tc.Sig)) {
					want = true // accepted by design, above
					malleable++
				}
				if err := stampVerdict(CurveSecp256k1, key, keyHex, tc.Msg, tc.Sig); (err == nil) != want {
					t.Errorf("%s, case %s: %v, want %s", name, tc.Name(), err, tc.Result)
				}
			}
		}
		if name == wycheproof.ECDSASecp256k1Bitcoin && malleable != 2 {
			t.Errorf("%d cases of the Bitcoin set invalid for their high S alone, want the 2 named above", malleable)
		}
	}
}

// Ed25519: every case, as RFC 8032 verification by crypto/ed25519 behind the stamp's parser.
func TestWycheproofEd25519Stamps(t *testing.T) {
	t.Parallel()
	for _, g := range loadWycheproof(t, wycheproof.Ed25519).TestGroups {
		keyHex := hex.EncodeToString(g.PublicKey.PK)
		key, err := parsePublicKeyUncached(CurveEd25519, keyHex)
		if err != nil {
			t.Fatalf("key %s: %v", keyHex, err)
		}
		for _, tc := range g.Tests {
			if err := stampVerdict(CurveEd25519, key, keyHex, tc.Msg, tc.Sig); (err == nil) != tc.Valid() {
				t.Errorf("case %s: %v, want %s", tc.Name(), err, tc.Result)
			}
		}
	}
}

// What a secp256k1 API key signs passes Bitcoin's rule (a low S, strict DER), as the Bitcoin set defines it.
func TestSecp256k1StampsPassAStrictVerifier(t *testing.T) {
	t.Parallel()
	for i := range 256 {
		k, err := GenerateAPIKey(CurveSecp256k1)
		if err != nil {
			t.Fatal(err)
		}
		body := []byte{byte(i), byte(i >> 8), 'x'}
		sig, err := k.Sign(body)
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := hex.DecodeString(k.PublicKeyHex())
		if !wycheproof.StrictSecp256k1(pub, body, sig) {
			t.Fatalf("signature %x by %s fails the strict verifier", sig, k.PublicKeyHex())
		}
	}
}
