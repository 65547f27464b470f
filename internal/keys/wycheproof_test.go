package keys

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/sigil/sigil/internal/wycheproof"
)

// What a wallet's secp256k1 key signs passes Bitcoin's rule (strict DER, a low S) as Wycheproof's Bitcoin vector set
// defines it, through the verifier that set checks (internal/wycheproof): the build's signer and the pure-Go one.
func TestSecp256k1SignaturesPassAStrictVerifier(t *testing.T) {
	t.Parallel()
	signers := map[string]func(privateKey, digest []byte) (Signature, error){"this build's": SignSecp256k1, "pure Go": signSecp256k1Pure}
	for i := range 256 {
		priv := sha256.Sum256([]byte(fmt.Sprint("key ", i)))
		msg := []byte(fmt.Sprint("message ", i))
		digest := sha256.Sum256(msg)
		pub := secp256k1.PrivKeyFromBytes(priv[:]).PubKey().SerializeCompressed()
		for name, sign := range signers {
			sig, err := sign(priv[:], digest[:])
			if err != nil {
				t.Fatal(err)
			}
			var r, s secp256k1.ModNScalar
			r.SetBytes(&sig.R)
			s.SetBytes(&sig.S)
			der := secpecdsa.NewSignature(&r, &s).Serialize()
			if !wycheproof.StrictSecp256k1(pub, msg, der) {
				t.Fatalf("%s signer: the signature %x of key %d fails the strict verifier", name, der, i)
			}
		}
	}
}
