package keys

import (
	"encoding/binary"
	"math/bits"
)

// scalar is a 256-bit integer as four little-endian 64-bit limbs. The
// operations below are constant time: derivation adds secret scalars and
// math/big would leak their sizes through timing.
type scalar [4]uint64

// Group orders of the Weierstrass curves.
var (
	orderSecp256k1 = scalarFromBytes(mustHex32("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"))
	orderP256      = scalarFromBytes(mustHex32("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"))
)

func scalarFromBytes(b *[32]byte) scalar {
	return scalar{
		binary.BigEndian.Uint64(b[24:]),
		binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]),
		binary.BigEndian.Uint64(b[0:]),
	}
}

func (s *scalar) putBytes(b *[32]byte) {
	binary.BigEndian.PutUint64(b[24:], s[0])
	binary.BigEndian.PutUint64(b[16:], s[1])
	binary.BigEndian.PutUint64(b[8:], s[2])
	binary.BigEndian.PutUint64(b[0:], s[3])
}

// sub returns a-b and the final borrow (1 when a < b).
func sub(a, b *scalar) (scalar, uint64) {
	var d scalar
	var borrow uint64
	for i := range d {
		d[i], borrow = bits.Sub64(a[i], b[i], borrow)
	}
	return d, borrow
}

// isValidKey reports 0 < s < n as 1 or 0.
func isValidKey(s, n *scalar) uint64 {
	_, lessThanN := sub(s, n)
	nonZero := (s[0] | s[1] | s[2] | s[3])
	nonZeroBit := (nonZero | -nonZero) >> 63
	return lessThanN & nonZeroBit
}

// addMod returns a+b mod n for a, b < n.
func addMod(a, b, n *scalar) scalar {
	var sum scalar
	var carry uint64
	for i := range sum {
		sum[i], carry = bits.Add64(a[i], b[i], carry)
	}
	reduced, borrow := sub(&sum, n)
	// Take the reduced value when the sum overflowed 256 bits or is >= n.
	useReduced := carry | (borrow ^ 1)
	mask := -useReduced
	var out scalar
	for i := range out {
		out[i] = reduced[i]&mask | sum[i]&^mask
	}
	return out
}

func mustHex32(s string) *[32]byte {
	var b [32]byte
	for i := range b {
		b[i] = unhex(s[2*i])<<4 | unhex(s[2*i+1])
	}
	return &b
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	panic("keys: bad hex constant")
}
