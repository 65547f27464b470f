package tron

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Protocol buffers' wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireI32    = 5
)

// field is one decoded field of a message.
type field struct {
	num  int
	typ  int
	u    uint64 // varint, fixed32 and fixed64 values
	data []byte // length-delimited values
}

// decode reads a message's fields in order. It refuses what protobuf refuses (truncated values, field number 0,
// groups, varints of more than 10 bytes), and a singular field that appears twice: decoders keep the last one, and
// the chain must not read a value the policy did not see.
func decode(b []byte, what string, repeated ...int) ([]field, error) {
	var out []field
	seen := map[int]bool{}
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("%s: malformed field key", what)
		}
		b = b[n:]
		if key>>3 == 0 || key>>3 > math.MaxInt32 {
			return nil, fmt.Errorf("%s: field number %d is invalid", what, key>>3)
		}
		f := field{num: int(key >> 3), typ: int(key & 7)}
		switch f.typ {
		case wireVarint:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("%s: field %d: malformed varint", what, f.num)
			}
			f.u, b = v, b[n:]
		case wireI64:
			if len(b) < 8 {
				return nil, fmt.Errorf("%s: field %d: truncated", what, f.num)
			}
			f.u, b = binary.LittleEndian.Uint64(b), b[8:]
		case wireI32:
			if len(b) < 4 {
				return nil, fmt.Errorf("%s: field %d: truncated", what, f.num)
			}
			f.u, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case wireLen:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, fmt.Errorf("%s: field %d: truncated", what, f.num)
			}
			f.data, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return nil, fmt.Errorf("%s: field %d has wire type %d, which Tron's messages do not use", what, f.num, f.typ)
		}
		isRepeated := false
		for _, r := range repeated {
			isRepeated = isRepeated || r == f.num
		}
		if seen[f.num] && !isRepeated {
			return nil, fmt.Errorf("%s: field %d appears twice", what, f.num)
		}
		seen[f.num] = true
		out = append(out, f)
	}
	return out, nil
}

// expect checks a known field's wire type.
func (f field) expect(typ int, what, name string) error {
	if f.typ != typ {
		return fmt.Errorf("%s: %s (field %d) has the wrong wire type", what, name, f.num)
	}
	return nil
}

// int64 reads a varint as protobuf's int64 (two's complement).
func (f field) int64() int64 { return int64(f.u) }
