package stamp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"sync"
	"testing"

	"filippo.io/nistec"
	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// newTestKey is a new P-256 key and its parsed public key, without a table yet.
func newTestKey(t testing.TB) (*ecdsa.PrivateKey, *p256Key) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := compressP256(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := parseP256Compressed(raw)
	if err != nil {
		t.Fatal(err)
	}
	return priv, k
}

// tabledKey is newTestKey with the table already built.
func tabledKey(t testing.TB) (*ecdsa.PrivateKey, *p256Key) {
	priv, k := newTestKey(t)
	k.table.Store(newP256Table(k.point))
	return priv, k
}

func derSignature(r, s *big.Int) []byte {
	var b cryptobyte.Builder
	b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1BigInt(r)
		b.AddASN1BigInt(s)
	})
	return b.BytesOrPanic()
}

// The table's verification accepts exactly what the standard library's does: valid signatures, and none of the
// same signatures with a bit changed, over another digest, with a scalar out of range, or by another key.
func TestP256TableVerifiesAsTheStandardLibrary(t *testing.T) {
	t.Parallel()
	n := p256Order
	for range 8 {
		priv, k := tabledKey(t)
		_, other := tabledKey(t)
		for i := range 48 {
			digest := sha256.Sum256([]byte{byte(i)})
			der, err := ecdsa.SignASN1(rand.Reader, priv, digest[:])
			if err != nil {
				t.Fatal(err)
			}
			r, s, _ := parseDERSignature(der)
			ri, si := new(big.Int).SetBytes(r), new(big.Int).SetBytes(s)
			flipped := append([]byte(nil), der...)
			flipped[len(flipped)-1-i%8] ^= 1 << (i % 8)
			otherDigest := digest
			otherDigest[i%32] ^= 1
			cases := []struct {
				name   string
				digest []byte
				sig    []byte
			}{
				{"valid", digest[:], der},
				{"high s, still valid", digest[:], derSignature(ri, new(big.Int).Sub(n, si))},
				{"a bit flipped", digest[:], flipped},
				{"another digest", otherDigest[:], der},
				{"r plus the order", digest[:], derSignature(new(big.Int).Add(ri, n), si)},
				{"s plus the order", digest[:], derSignature(ri, new(big.Int).Add(si, n))},
				{"r is the order", digest[:], derSignature(n, si)},
				{"s is zero", digest[:], derSignature(ri, big.NewInt(0))},
			}
			for _, c := range cases {
				want := ecdsa.VerifyASN1(&priv.PublicKey, c.digest, c.sig)
				if got := k.verify(c.digest, c.sig); got != want {
					t.Fatalf("%s: the table says %v, the standard library %v", c.name, got, want)
				}
				if c.name == "valid" && !want {
					t.Fatal("a fresh signature does not verify")
				}
				if other.verify(c.digest, c.sig) {
					t.Fatalf("%s: verifies under another key", c.name)
				}
			}
		}
	}
}

// Every digit of the recoding is reached: scalars with all bits set, none, and one, multiply as the standard ones do.
func TestP256TableMultipliesEveryScalar(t *testing.T) {
	t.Parallel()
	_, k := tabledKey(t)
	table := k.table.Load()
	var scalars [][32]byte
	var ones, none [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	scalars = append(scalars, ones, none)
	for bit := range 256 {
		var one [32]byte
		one[31-bit/8] = 1 << (bit % 8)
		scalars = append(scalars, one)
	}
	for i := range 64 {
		var x [32]byte
		_, _ = rand.Read(x[:])
		x[0] &= byte(0xff >> (i % 8)) // vary the top bits, where the last window's carry lands
		scalars = append(scalars, x)
	}
	for _, x := range scalars {
		want, err := nistec.NewP256Point().ScalarMult(k.point, x[:]) // reduces x modulo the order, as a multiple of Q does anyway
		if err != nil {
			t.Fatal(err)
		}
		if got := table.multiply(&x); got.Equal(want) != 1 {
			t.Fatalf("%x·Q differs from the standard scalar multiplication", x)
		}
	}
}

// A key builds its table at its hotKeyUses-th verification, and only while the cache has room for another table.
func TestP256KeysBuildTablesWhenHotWithinABound(t *testing.T) {
	savedKeys, tables, maxTables := parsedKeys.keys, parsedKeys.tables, parsedKeys.maxTables
	defer func() { parsedKeys.keys, parsedKeys.tables, parsedKeys.maxTables = savedKeys, tables, maxTables }()
	parsedKeys.keys, parsedKeys.tables, parsedKeys.maxTables = nil, 0, 1

	sign := func(priv *ecdsa.PrivateKey) ([]byte, []byte) {
		digest := sha256.Sum256([]byte("body"))
		der, err := ecdsa.SignASN1(rand.Reader, priv, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		return digest[:], der
	}
	var keys [2]*p256Key
	for i := range keys {
		var priv *ecdsa.PrivateKey
		priv, keys[i] = newTestKey(t)
		digest, der := sign(priv)
		for use := 1; use <= hotKeyUses+2; use++ {
			if !keys[i].verify(digest, der) {
				t.Fatalf("key %d, use %d: a valid signature does not verify", i, use)
			}
			if hasTable := keys[i].table.Load() != nil; hasTable != (i == 0 && use >= hotKeyUses) {
				t.Fatalf("key %d, use %d: has a table %v", i, use, hasTable)
			}
		}
	}
	if keys[1].uses.Load() != hotKeyUses {
		t.Fatalf("a key with no room for a table counted %d uses, want them to stop at %d", keys[1].uses.Load(), hotKeyUses)
	}
}

func FuzzP256TableVerify(f *testing.F) {
	priv, k := tabledKey(f)
	digest := sha256.Sum256([]byte("fuzz"))
	der, _ := ecdsa.SignASN1(rand.Reader, priv, digest[:])
	r, s, _ := parseDERSignature(der)
	f.Add(digest[:], r, s)
	f.Add(digest[:], r, p256Order.Bytes())
	f.Fuzz(func(t *testing.T, digest, r, s []byte) {
		if len(digest) != sha256.Size {
			return
		}
		sig := derSignature(new(big.Int).SetBytes(r), new(big.Int).SetBytes(s))
		if got, want := k.verify(digest, sig), ecdsa.VerifyASN1(&priv.PublicKey, digest, sig); got != want {
			t.Fatalf("the table says %v, the standard library %v", got, want)
		}
	})
}

// Requests stamped by one key verify at once while its table is built: every valid signature verifies throughout.
func TestP256KeyVerifiesConcurrentlyWhileItsTableIsBuilt(t *testing.T) {
	t.Parallel()
	priv, k := newTestKey(t)
	digest := sha256.Sum256([]byte("body"))
	der, err := ecdsa.SignASN1(rand.Reader, priv, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	failures := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			for range 2 * hotKeyUses {
				if !k.verify(digest[:], der) {
					failures <- g
					return
				}
			}
		})
	}
	wg.Wait()
	close(failures)
	for g := range failures {
		t.Errorf("goroutine %d: a valid signature did not verify", g)
	}
	if k.table.Load() == nil {
		t.Error("a key verified 256 times has no table")
	}
}
