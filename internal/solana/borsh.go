package solana

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/sigil/sigil/internal/keys"
)

// borsh decodes Borsh (https://borsh.io), the encoding of Anchor and Shank instruction arguments: little-endian
// integers, u32-length-prefixed strings and vectors, a one-byte tag before an option or an enum's variant.
type borsh struct {
	b      []byte
	idl    *IDL
	values int // decoded so far, bounded by maxIDLValues
}

var errShort = errors.New("the data ends before the arguments do")

func (d *borsh) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b) {
		return nil, errShort
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out, nil
}

func (d *borsh) value(t *idlType, depth int) (any, error) {
	if depth > maxIDLDepth {
		return nil, fmt.Errorf("values nest deeper than %d", maxIDLDepth)
	}
	if d.values++; d.values > maxIDLValues {
		return nil, fmt.Errorf("more than %d values", maxIDLValues)
	}
	switch {
	case t.prim != "":
		return d.primitive(t.prim)
	case t.wrap == "option" || t.wrap == "coption":
		return d.option(t, depth)
	case t.wrap == "vec":
		n, err := d.length()
		if err != nil {
			return nil, err
		}
		return d.list(t.elem, n, depth)
	case t.wrap == "array":
		return d.list(t.elem, t.length, depth)
	}
	return d.defined(d.idl.types[t.defined], depth)
}

// option is a one-byte tag (Borsh's Option) or a four-byte one (Solana's COption), then the value if the tag is 1.
func (d *borsh) option(t *idlType, depth int) (any, error) {
	size := 1
	if t.wrap == "coption" {
		size = 4
	}
	tag, err := d.take(size)
	if err != nil {
		return nil, err
	}
	switch tag[0] {
	case 0:
		return nil, nil
	case 1:
		return d.value(t.elem, depth+1)
	}
	return nil, fmt.Errorf("option tag %d is neither 0 nor 1", tag[0])
}

// length is a vector's, string's or bytes' u32 length, which cannot exceed the bytes left: every element takes one.
func (d *borsh) length() (int, error) {
	b, err := d.take(4)
	if err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint32(b)
	if int64(n) > int64(len(d.b)) {
		return 0, fmt.Errorf("a length of %d is longer than the %d bytes left", n, len(d.b))
	}
	return int(n), nil
}

func (d *borsh) list(elem *idlType, n, depth int) (any, error) {
	out := make([]any, 0, min(n, len(d.b)+1))
	for range n {
		v, err := d.value(elem, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *borsh) defined(def *idlTypeDef, depth int) (any, error) {
	switch {
	case def.alias != nil:
		return d.value(def.alias, depth+1)
	case def.enum:
		tag, err := d.take(1)
		if err != nil {
			return nil, err
		}
		if int(tag[0]) >= len(def.variants) {
			return nil, fmt.Errorf("enum variant %d of %d", tag[0], len(def.variants))
		}
		v := def.variants[tag[0]]
		if v.fields == nil && v.tuple == nil {
			return map[string]any{v.name: nil}, nil
		}
		fields, err := d.fields(v.fields, v.tuple, depth)
		if err != nil {
			return nil, err
		}
		return map[string]any{v.name: fields}, nil
	}
	return d.fields(def.fields, def.tuple, depth)
}

// fields decodes a struct's or variant's fields: a map for named ones, a list for a tuple's.
func (d *borsh) fields(named []idlField, tuple []*idlType, depth int) (any, error) {
	if tuple != nil {
		out := make([]any, len(tuple))
		for i, t := range tuple {
			v, err := d.value(t, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	out := make(map[string]any, len(named))
	for _, f := range named {
		v, err := d.value(f.typ, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
		out[f.name] = v
	}
	return out, nil
}

var intSizes = map[string]int{"u8": 1, "i8": 1, "u16": 2, "i16": 2, "u32": 4, "i32": 4, "u64": 8, "i64": 8, "u128": 16, "i128": 16, "u256": 32, "i256": 32}

func (d *borsh) primitive(p string) (any, error) {
	if size, ok := intSizes[p]; ok {
		b, err := d.take(size)
		if err != nil {
			return nil, err
		}
		return littleEndianInt(b, p[0] == 'i'), nil
	}
	switch p {
	case "bool":
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		if b[0] > 1 {
			return nil, fmt.Errorf("bool byte %d is neither 0 nor 1", b[0])
		}
		return b[0] == 1, nil
	case "f32":
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return json.Number(strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 'g', -1, 32)), nil
	case "f64":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return json.Number(strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64)), nil
	case "pubkey":
		b, err := d.take(KeySize)
		if err != nil {
			return nil, err
		}
		return keys.Base58Encode(b), nil
	}
	n, err := d.length()
	if err != nil {
		return nil, err
	}
	b, _ := d.take(n)
	if p == "bytes" {
		return hex.EncodeToString(b), nil
	}
	if !utf8.Valid(b) {
		return nil, errors.New("a string is not UTF-8")
	}
	return string(b), nil
}

// littleEndianInt is an integer of 1 to 16 bytes as a json.Number, two's complement when signed.
func littleEndianInt(b []byte, signed bool) json.Number {
	if len(b) <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if shift := 64 - 8*len(b); signed {
			return json.Number(strconv.FormatInt(int64(u<<shift)>>shift, 10))
		}
		return json.Number(strconv.FormatUint(u, 10))
	}
	be := make([]byte, len(b))
	for i, c := range b {
		be[len(b)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if signed && be[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return json.Number(n.String())
}
