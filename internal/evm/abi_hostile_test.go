package evm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/testmem"
)

// An uploaded ABI is refused, with the entry, the argument and the reason, when it uses a type the ABI specification
// does not define or one no transaction could hold; nothing of it reaches go-ethereum, some of whose types panic.
func TestParseABIRefusesHostileABIs(t *testing.T) {
	t.Parallel()
	fn := func(inputs string) string { return `[{"type":"function","name":"f","inputs":[` + inputs + `]}]` }
	arg := func(typ string) string { return fn(`{"name":"x","type":"` + typ + `"}`) }
	deep := `{"name":"x","type":"uint256"}`
	for range 2000 {
		deep = `{"name":"x","type":"tuple","components":[` + deep + `]}`
	}
	for name, c := range map[string]struct{ abi, want string }{
		"uint7":           {arg("uint7"), `function "f": input "x": type uint7: an integer's size is a multiple of 8 from 8 to 256`},
		"int264":          {arg("int264"), "type int264: an integer's size is a multiple of 8 from 8 to 256"},
		"uint0":           {arg("uint0"), "type uint0: an integer's size"},
		"uint08":          {arg("uint08"), "type uint08: an integer's size"},
		"bare uint":       {arg("uint"), "an ABI names an integer's size (uint256)"},
		"bytes33":         {arg("bytes33"), "type bytes33: fixed-size bytes are bytes1 to bytes32"},
		"fixed":           {arg("fixed128x18"), "fixed-point types are not supported"},
		"unknown":         {arg("uint256x"), `type "uint256x" is not an ABI type`},
		"absurd array":    {arg("uint256[10000][10000][1000]"), "an array of 10000 elements takes more than 131072 bytes"},
		"2 GB array":      {arg("uint256[1000][250][1000]"), "type uint256[1000][250][1000]: its encoding takes more than 131072 bytes"},
		"huge length":     {arg("uint256[99999999999999999999]"), "is not a number up to 4096"},
		"zero length":     {arg("uint256[0]"), "an array's length is at least 1"},
		"bad brackets":    {arg("uint256]"), "unmatched ]"},
		"many dynamic":    {arg("string[100000]"), "an array of 100000 elements takes more than 131072 bytes"},
		"head too large":  {fn(strings.Repeat(`{"name":"x","type":"uint256[4096]"},`, 1) + `{"name":"y","type":"uint256"}`), "the inputs' static encoding takes more than 131072 bytes"},
		"2,000-deep":      {fn(deep), "arrays and tuples nest deeper than 32"},
		"33 dimensions":   {arg("uint8" + strings.Repeat("[]", 33)), "nest deeper than 32"},
		"tuple in tuple":  {fn(`{"name":"x","type":"tuple","components":[{"name":"y","type":"tuple","components":[{"name":"z","type":"uint256[100000000000][100000000000]"}]}]}`), `component "y": component "z": type uint256[100000000000][100000000000]`},
		"empty tuple":     {fn(`{"name":"x","type":"tuple","components":[]}`), "a tuple needs components"},
		"components":      {fn(`{"name":"x","type":"uint256","components":[{"name":"y","type":"bool"}]}`), "has components, which only a tuple has"},
		"nameless":        {`[{"type":"function","name":"","inputs":[{"name":"x","type":"uint256"}]}]`, "entry 0: the function has no name"},
		"nameless error":  {`[{"type":"function","name":"f","inputs":[]},{"type":"error","inputs":[]}]`, "entry 1: the error has no name"},
		"not identifier":  {`[{"type":"function","name":"f(uint256)","inputs":[]}]`, `name "f(uint256)" is not an identifier`},
		"no entry type":   {`[{"name":"f","inputs":[]}]`, `"type" is missing`},
		"bad entry type":  {`[{"type":"method","name":"f","inputs":[]}]`, `type "method" is not function`},
		"event arg":       {`[{"type":"function","name":"f","inputs":[]},{"type":"event","name":"E","inputs":[{"name":"x","type":"uint7","indexed":true}]}]`, `event "E": input "x": type uint7`},
		"output":          {`[{"type":"function","name":"f","inputs":[],"outputs":[{"name":"","type":"uint256[5000]"}]}]`, "output 0: type uint256[5000]"},
		"not an array":    {`{"type":"function"}`, "an ABI is a JSON array of entries"},
		"no functions":    {`[{"type":"event","name":"E","inputs":[]}]`, "the ABI has no functions"},
		"anonymous field": {fn(`{"name":"x","type":"tuple","components":[{"name":"","type":"bool"}]}`), "anonymous"},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: ParseABI panicked: %v", name, r)
				}
			}()
			_, err := ParseABI(c.abi)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: ParseABI = %v, want an error saying %q", name, err, c.want)
			}
		}()
	}
	// At the limits, and what real contracts use, is accepted.
	for _, typ := range []string{"uint256[4096]", "uint8" + strings.Repeat("[]", 32), "bytes1", "bytes32", "int8", "uint256",
		"string[4096]", "address[2][3]", "function"} {
		if _, err := ParseABI(arg(typ)); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
	if _, err := ParseABI(`[{"type":"constructor","inputs":[]},{"type":"receive","stateMutability":"payable"},{"type":"fallback"},` +
		`{"type":"function","name":"$f_1","inputs":[{"name":"s","type":"tuple[]","components":[{"name":"a","type":"bytes"}]}]}]`); err != nil {
		t.Errorf("a contract's usual entries: %v", err)
	}
}

// hostile is calldata for an ABI that makes go-ethereum's decoder allocate far more than the calldata holds.
type hostile struct {
	abi  *abi.ABI
	data []byte
}

// hostileCalldata is the attack and its variants. The ABIs are read with go-ethereum alone, as interfaces
// uploaded before ParseABI's limits were stored; the aliased ones pass those limits and are bounded only when
// decoding.
func hostileCalldata(t *testing.T) map[string]hostile {
	t.Helper()
	withType := func(typ string) *abi.ABI {
		a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"f","inputs":[{"name":"x","type":"` + typ + `"}]},` +
			`{"type":"error","name":"E","inputs":[{"name":"x","type":"` + typ + `"}]}]`))
		if err != nil {
			t.Fatal(err)
		}
		return &a
	}
	call := func(typ string, args []byte) hostile {
		a := withType(typ)
		return hostile{a, append(bytes.Clone(a.Methods["f"].ID), args...)}
	}
	return map[string]hostile{
		"static 800 GB":   call("uint256[10000][10000][1000]", make([]byte, 32000)), // 32,004 bytes of calldata
		"static 2 GB":     call("uint256[1000][250][1000]", make([]byte, 32000)),
		"aliased arrays":  call("uint256[][][][]", aliasedArrays(4, 250)),       // 250^4 values from 32 KB
		"aliased strings": call("string[][]", aliasedStrings(300, 300, 24<<10)), // 90,000 copies of 24 KiB
	}
}

func word(n int) []byte {
	w := make([]byte, 32)
	binary.BigEndian.PutUint64(w[24:], uint64(n))
	return w
}

// aliasedArrays encodes one argument of type uint256 with depth []s: each level an array of n offsets that all point
// at the next level's one array, the last level n numbers. It is 32·(1 + depth·(n+1)) bytes; it decodes to n^depth.
func aliasedArrays(depth, n int) []byte {
	out := word(32)
	for level := 0; level < depth; level++ {
		out = append(out, word(n)...)
		for range n {
			if level < depth-1 {
				out = append(out, word(32*n)...) // from this array's first element to the next level's length
			} else {
				out = append(out, word(7)...)
			}
		}
	}
	return out
}

// aliasedStrings encodes a string[][] of outer arrays that are all one array of inner strings that are all one string.
func aliasedStrings(outer, inner, length int) []byte {
	out := word(32)
	out = append(out, word(outer)...)
	for range outer {
		out = append(out, word(32*outer)...)
	}
	out = append(out, word(inner)...)
	for range inner {
		out = append(out, word(32*inner)...)
	}
	out = append(out, word(length)...)
	return append(out, bytes.Repeat([]byte("a"), (length+31)/32*32)...)
}

// The attack, on the decoder that policies and revert decoding use: calldata that would make go-ethereum
// allocate gigabytes (800 GB: a fatal, uncatchable out of memory) is refused before it is unpacked, allocating almost
// nothing. It runs in a child process capped at 512 MiB, so that a decoder that does allocate kills the child, not
// the machine.
func TestDecodingHostileCalldataAllocatesNothing(t *testing.T) {
	if !testmem.Capped(t, 512<<20) {
		return
	}
	for name, c := range hostileCalldata(t) {
		for _, decode := range []struct {
			what string
			run  func() (*Call, error)
		}{
			{"DecodeCall", func() (*Call, error) { return DecodeCall(c.abi, c.data) }},
			{"DecodeError", func() (*Call, error) {
				id := c.abi.Errors["E"].ID
				return DecodeError(c.abi, append(id[:4:4], c.data[4:]...))
			}},
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			call, err := decode.run()
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Errorf("%s, %s: decoded %d arguments, want a refusal", name, decode.what, len(call.Args))
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
				t.Errorf("%s, %s: allocated %d MiB for %d bytes of calldata", name, decode.what, grew>>20, len(c.data))
			}
			t.Logf("%s, %s: %v", name, decode.what, err)
		}
	}
}

// Within the bounds, calldata as large as a transaction decodes: a long array, long bytes, nested dynamic arrays that
// do not alias.
func TestDecodingLargeHonestCalldata(t *testing.T) {
	t.Parallel()
	a, err := ParseABI(`[{"type":"function","name":"f","inputs":[{"name":"ids","type":"uint256[]"},{"name":"blob","type":"bytes"},{"name":"grid","type":"uint8[][]"},{"name":"fixed","type":"uint256[1000]"}]}]`)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]*big.Int, 2000)
	for i := range ids {
		ids[i] = big.NewInt(int64(i))
	}
	grid := make([][]uint8, 50)
	for i := range grid {
		grid[i] = bytes.Repeat([]byte{uint8(i)}, 20)
	}
	var fixed [1000]*big.Int
	for i := range fixed {
		fixed[i] = big.NewInt(1)
	}
	data, err := a.Pack("f", ids, bytes.Repeat([]byte{0xab}, 40<<10), grid, fixed)
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCall(a, data)
	if err != nil {
		t.Fatalf("%d bytes of honest calldata: %v", len(data), err)
	}
	if got := c.Args["ids"].([]any); len(got) != 2000 || got[1999] != any(json.Number("1999")) {
		t.Errorf("ids decoded to %d elements", len(got))
	}
	if got := c.Args["grid"].([]any); len(got) != 50 || len(got[49].([]any)) != 20 {
		t.Errorf("grid decoded to %v", got)
	}
	// Cut anywhere, it is refused, never decoded past its end.
	for _, n := range []int{4, 5, 36, 100, len(data) / 2, len(data) - 1} {
		if _, err := DecodeCall(a, data[:n]); err == nil {
			t.Errorf("calldata cut at %d bytes decoded", n)
		}
	}
}

// Fuzzed calldata never panics the decoder and, when it decodes, decodes the same as go-ethereum alone does.
func FuzzDecodeCall(f *testing.F) {
	a, err := ParseABI(testABI)
	if err != nil {
		f.Fatal(err)
	}
	batch, _ := a.Pack("executeBatch", []struct {
		Target common.Address
		Value  *big.Int
		Data   []byte
	}{{Value: big.NewInt(1), Data: []byte{1, 2, 3}}})
	misc, _ := a.Pack("misc", [4]byte{1}, true, "hi", uint8(9), [2]uint64{1, 2})
	f.Add(batch)
	f.Add(misc)
	f.Add(append(bytes.Clone(a.Methods["executeBatch"].ID), aliasedArrays(3, 20)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCall(a, data)
		if err != nil || len(data) < 4 {
			return
		}
		m, _ := a.MethodById(data[:4])
		values, uerr := m.Inputs.Unpack(data[4:])
		if uerr != nil || len(values) != len(c.Args) {
			t.Fatalf("decoded %v where go-ethereum says %v", c.Args, uerr)
		}
	})
}
