package evm

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// maxDecodedWords bounds what one decoding may produce, in 32-byte words: each value counts one, a string or bytes
// one more per 32 bytes. Counting the data's length is not enough: offsets may point at the same data again and again
// (a uint256[][][] whose inner arrays are all one array decodes to the cube of the data's length), so a value counts
// each time an offset reaches it. Calldata of 128 KiB holds 4,096 words; this is sixteen times that.
const maxDecodedWords = 1 << 16

// checkEncoding walks data as go-ethereum's decoder (abi.Arguments.Unpack) will read it as args, before it does, and
// refuses, with why, what would make that decoder allocate beyond the data: it allocates a static array or tuple
// whole, and a slice at its length, before reading whether the data holds them. The walk checks that every static
// head lies inside the data before descending into it, that every offset and length points inside the data, and that
// the values it reaches, counted each time, stay within maxDecodedWords. Its own cost is bounded the same way.
func checkEncoding(args abi.Arguments, data []byte) error {
	types := make([]*abi.Type, 0, len(args))
	for i := range args {
		if !args[i].Indexed { // as Unpack, which reads only the non-indexed ones
			types = append(types, &args[i].Type)
		}
	}
	w := &encodingWalker{data: data, left: maxDecodedWords}
	return w.tuple(types, 0, 0)
}

type encodingWalker struct {
	data []byte
	left int // words the decoding may still produce
}

func (w *encodingWalker) spend(words int) error {
	if words > w.left {
		return fmt.Errorf("the data decodes to more than %d values (its offsets reach the same data again and again)", maxDecodedWords)
	}
	w.left -= words
	return nil
}

// has checks that n bytes from pos lie inside the data.
func (w *encodingWalker) has(pos, n int, what string) error {
	if pos < 0 || n < 0 || pos > len(w.data) || n > len(w.data)-pos {
		return fmt.Errorf("%s needs %d bytes at offset %d; the data holds %d", what, n, pos, len(w.data))
	}
	return nil
}

// word reads the 32-byte word at pos as a non-negative integer below 2^63; the caller has checked it lies inside the
// data. Offsets and lengths beyond it point outside any data there can be.
func (w *encodingWalker) word(pos int) (int, error) {
	b := w.data[pos : pos+32]
	for _, x := range b[:24] {
		if x != 0 {
			return 0, fmt.Errorf("the word at offset %d is not an offset or length within the data", pos)
		}
	}
	v := binary.BigEndian.Uint64(b[24:])
	if v > uint64(len(w.data)) {
		return 0, fmt.Errorf("the word at offset %d (%d) points past the data's %d bytes", pos, v, len(w.data))
	}
	return int(v), nil
}

// tuple walks values whose heads follow one another from at (a tuple, or the argument list); the offsets of dynamic
// ones count from at. The heads are checked together first: go-ethereum allocates a tuple before reading its fields.
func (w *encodingWalker) tuple(elems []*abi.Type, at, depth int) error {
	if depth > 2*maxABIDepth {
		return fmt.Errorf("types nest deeper than %d", maxABIDepth)
	}
	head := 0
	for _, t := range elems {
		head = addSizes(head, headSize(t))
	}
	if len(elems) > 0 {
		if err := w.has(at, max(head, 32), "the static head"); err != nil {
			return err
		}
	}
	pos := at
	for _, t := range elems {
		if err := w.value(t, at, pos, depth+1); err != nil {
			return err
		}
		pos += headSize(t)
	}
	return nil
}

// value walks a value of type t whose head is at pos, in a container starting at base (its dynamic values' offsets
// count from base).
func (w *encodingWalker) value(t *abi.Type, base, pos, depth int) error {
	if err := w.has(pos, 32, t.String()); err != nil {
		return err
	}
	switch t.T {
	case abi.TupleTy:
		if !isDynamic(t) {
			return w.tuple(t.TupleElems, pos, depth)
		}
		off, err := w.word(pos)
		if err != nil || off > len(w.data)-base {
			return fmt.Errorf("%s: its offset at %d points past the data", t, pos)
		}
		return w.tuple(t.TupleElems, base+off, depth)
	case abi.StringTy, abi.BytesTy:
		start, n, err := w.lengthPrefixed(t, base, pos)
		if err != nil {
			return err
		}
		if err := w.has(start, n, t.String()); err != nil {
			return err
		}
		return w.spend(1 + (n+31)/32)
	case abi.SliceTy:
		start, n, err := w.lengthPrefixed(t, base, pos)
		if err != nil {
			return err
		}
		return w.elements(t, start, n, depth)
	case abi.ArrayTy:
		if !isDynamic(t.Elem) {
			return w.elements(t, pos, t.Size, depth) // a static array lies in the head
		}
		off, err := w.word(pos)
		if err != nil || off > len(w.data)-base {
			return fmt.Errorf("%s: its offset at %d points past the data", t, pos)
		}
		return w.elements(t, base+off, t.Size, depth)
	}
	return w.spend(1)
}

// lengthPrefixed reads the offset at pos (from base) of a value that starts with its length, and that length.
func (w *encodingWalker) lengthPrefixed(t *abi.Type, base, pos int) (start, n int, err error) {
	off, err := w.word(pos)
	if err != nil || off > len(w.data)-base-32 {
		return 0, 0, fmt.Errorf("%s: its offset at %d points past the data", t, pos)
	}
	if n, err = w.word(base + off); err != nil {
		return 0, 0, fmt.Errorf("%s: its length: %v", t, err)
	}
	return base + off + 32, n, nil
}

// elements walks the n elements of array t whose heads follow one another from start (their offsets count from
// start), once all n heads are known to lie in the data and the budget to hold n values.
func (w *encodingWalker) elements(t *abi.Type, start, n, depth int) error {
	if depth > 2*maxABIDepth {
		return fmt.Errorf("types nest deeper than %d", maxABIDepth)
	}
	size := headSize(t.Elem)
	if n < 0 || n > (len(w.data)-start)/size {
		return fmt.Errorf("%s: %d elements of %d bytes each need more than the %d bytes the data has from offset %d",
			t, n, size, len(w.data)-start, start)
	}
	if err := w.spend(n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := w.value(t.Elem, start, start+i*size, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// isDynamic is go-ethereum's rule (its isDynamicType is not exported): strings, bytes, slices, and arrays and tuples
// holding one are encoded behind an offset.
func isDynamic(t *abi.Type) bool {
	switch t.T {
	case abi.StringTy, abi.BytesTy, abi.SliceTy:
		return true
	case abi.ArrayTy:
		return isDynamic(t.Elem)
	case abi.TupleTy:
		for _, e := range t.TupleElems {
			if isDynamic(e) {
				return true
			}
		}
	}
	return false
}

// headSize is the bytes a value of type t takes in its container's head, as go-ethereum's getTypeSize counts them:
// a static array or tuple's whole encoding, 32 for anything else. It saturates rather than overflow, for an ABI that
// did not go through ParseABI's limits: no data is that long.
func headSize(t *abi.Type) int {
	switch {
	case t.T == abi.ArrayTy && !isDynamic(t.Elem):
		return mulSizes(t.Size, headSize(t.Elem))
	case t.T == abi.TupleTy && !isDynamic(t):
		total := 0
		for _, e := range t.TupleElems {
			total = addSizes(total, headSize(e))
		}
		return total
	}
	return 32
}

// saturated is larger than any data, and small enough that sums of a few never overflow.
const saturated = 1 << 48

func mulSizes(n, size int) int {
	if n < 0 || size < 0 || (n > 0 && size > saturated/n) {
		return saturated
	}
	return n * size
}

func addSizes(a, b int) int { return min(a+b, saturated) }
