package stamp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"math/big"
	"sync/atomic"

	"filippo.io/nistec"
)

// A P-256 verification computes [u1]G + [u2]Q for the key's point Q. The standard library's [u1]G uses a table of G's
// multiples built once; its [u2]Q starts from Q alone each time, and is over half of the verification. An API key
// stamps request after request, so a key in use gets a table of its own multiples too, and its verifications cost less
// than half as much. Building one takes about 1 ms (a dozen verifications without it) and 222 KiB, so only keys that
// keep coming back get one (hotKeyUses), and only so many of them (keyCache.maxTables). The count runs before the
// caller looks the key up among its credentials, so keys nobody registered can take the tables; that leaves the others
// verifying as before, no slower, until the cache forgets its keys.
const hotKeyUses = 16

// Q's table holds d·2^(7i)·Q for each window i and digit 1 ≤ d ≤ 64: a scalar written in signed base-128 digits
// (−63…64) is a sum of one entry (or its negation) a window, 37 additions in all for a scalar below 2^256. Wider
// windows mean fewer additions and a larger table: 5-bit windows (52 additions, 78 KiB) verified a stamp in 41–44 µs,
// 6-bit (43, 129 KiB) in 37–41 µs and 7-bit in 35–36 µs (docs/BENCHMARKS.md).
const (
	tableWindowBits = 7
	tableWindows    = (256 + tableWindowBits - 1) / tableWindowBits
	tableDigits     = 1 << (tableWindowBits - 1)
)

type p256Table [tableWindows][tableDigits]nistec.P256Point

// p256Key is a parsed P-256 API public key.
type p256Key struct {
	pub   *ecdsa.PublicKey
	point *nistec.P256Point
	uses  atomic.Int32
	table atomic.Pointer[p256Table]
}

// verify reports whether sig, an ECDSA signature in DER, signs digest under the key. Until the key has its table, the
// standard library verifies; both accept exactly the same signatures (TestP256TableVerifiesAsTheStandardLibrary).
func (k *p256Key) verify(digest, sig []byte) bool {
	t := k.table.Load()
	if t == nil {
		if !k.becameHot() {
			return ecdsa.VerifyASN1(k.pub, digest, sig)
		}
		t = newP256Table(k.point)
		k.table.Store(t)
	}
	r, s, ok := parseDERSignature(sig)
	if !ok {
		return false
	}
	return t.verify(digest, new(big.Int).SetBytes(r), new(big.Int).SetBytes(s))
}

// becameHot counts a verification without a table and says whether this one is to build it: the hotKeyUses-th, if
// the cache has room for another table.
func (k *p256Key) becameHot() bool {
	return k.uses.Load() < hotKeyUses && k.uses.Add(1) == hotKeyUses && parsedKeys.reserveTable()
}

func newP256Table(q *nistec.P256Point) *p256Table {
	t := new(p256Table)
	base := nistec.NewP256Point().Set(q) // 2^(7i)·Q
	for i := range t {
		t[i][0].Set(base)
		for d := 1; d < tableDigits; d++ {
			t[i][d].Add(&t[i][d-1], base)
		}
		for range tableWindowBits {
			base.Double(base)
		}
	}
	return t
}

var p256Order = elliptic.P256().Params().N

// verify is ECDSA verification (SEC 1, section 4.1.4) with the table for [u2]Q. Every input is public, so it need
// not run in constant time.
func (t *p256Table) verify(digest []byte, r, s *big.Int) bool {
	n := p256Order
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(n) >= 0 || s.Cmp(n) >= 0 {
		return false
	}
	w := new(big.Int).ModInverse(s, n)
	u1 := new(big.Int).SetBytes(digest) // a SHA-256 digest: exactly the order's 256 bits, used whole
	u1.Mul(u1, w).Mod(u1, n)
	u2 := w.Mul(r, w).Mod(w, n)
	var b1, b2 [32]byte
	sum, err := nistec.NewP256Point().ScalarBaseMult(u1.FillBytes(b1[:]))
	if err != nil {
		return false
	}
	sum.Add(sum, t.multiply((*[32]byte)(u2.FillBytes(b2[:]))))
	x, err := sum.BytesX() // fails at the point at infinity
	if err != nil {
		return false
	}
	v := new(big.Int).SetBytes(x)
	if v.Cmp(n) >= 0 { // x < p < 2n
		v.Sub(v, n)
	}
	return v.Cmp(r) == 0
}

// multiply returns k·Q for the big-endian k.
func (t *p256Table) multiply(k *[32]byte) *nistec.P256Point {
	sum := nistec.NewP256Point() // the point at infinity
	var negated nistec.P256Point
	carry := 0
	for i := range t {
		d := window(k, i) + carry
		carry = 0
		if d > tableDigits {
			d -= 1 << tableWindowBits
			carry = 1
		}
		switch {
		case d > 0:
			sum.Add(sum, &t[i][d-1])
		case d < 0:
			sum.Add(sum, negated.Negate(&t[i][-d-1]))
		}
	}
	// The last window holds the scalar's top 256 mod 7 = 4 bits, so its digit (at most 16) leaves no carry.
	return sum
}

// window is the i-th group of tableWindowBits bits of the big-endian k, counting from the least significant.
func window(k *[32]byte, i int) int {
	v := 0
	for b := range tableWindowBits {
		bit := i*tableWindowBits + b
		if bit < 256 && k[31-bit/8]>>(bit%8)&1 == 1 {
			v |= 1 << b
		}
	}
	return v
}
