package evm

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

const testABI = `[
 {"type":"function","name":"transfer","inputs":[{"name":"dst","type":"address"},{"name":"wad","type":"uint256"}],"outputs":[{"type":"bool"}]},
 {"type":"function","name":"executeBatch","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}],"outputs":[]},
 {"type":"function","name":"misc","inputs":[{"name":"","type":"bytes4"},{"name":"flag","type":"bool"},{"name":"note","type":"string"},{"name":"small","type":"uint8"},{"name":"ids","type":"uint64[2]"}],"outputs":[]}
]`

func TestDecodeCall(t *testing.T) {
	t.Parallel()
	a, err := ParseABI(testABI)
	if err != nil {
		t.Fatal(err)
	}
	dst := common.HexToAddress("0x08d2b0A3F1cA0aE1D8C3eDcB7c6d1aF0a7d867B7")
	data, _ := a.Pack("transfer", dst, big.NewInt(5e17))
	c, err := DecodeCall(a, data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Call{FunctionName: "transfer", FunctionSignature: "transfer(address,uint256)",
		Args: map[string]any{"dst": dst.Hex(), "wad": json.Number("500000000000000000")}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("transfer = %+v, want %+v", c, want)
	}

	type call struct {
		Target common.Address
		Value  *big.Int
		Data   []byte
	}
	data, err = a.Pack("executeBatch", []call{{dst, big.NewInt(0), []byte{0xa9, 0x05}}, {dst, big.NewInt(7), nil}})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = DecodeCall(a, data); err != nil {
		t.Fatal(err)
	}
	calls := []any{[]any{dst.Hex(), json.Number("0"), "0xa905"}, []any{dst.Hex(), json.Number("7"), "0x"}}
	if c.FunctionSignature != "executeBatch((address,uint256,bytes)[])" || !reflect.DeepEqual(c.Args["calls"], calls) {
		t.Errorf("executeBatch = %s %#v, want tuples by position %#v", c.FunctionSignature, c.Args["calls"], calls)
	}

	data, err = a.Pack("misc", [4]byte{1, 2, 3, 4}, true, "hi", uint8(9), [2]uint64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = DecodeCall(a, data); err != nil {
		t.Fatal(err)
	}
	wantArgs := map[string]any{"arg0": "0x01020304", "flag": true, "note": "hi", "small": json.Number("9"), "ids": []any{json.Number("1"), json.Number("2")}}
	if !reflect.DeepEqual(c.Args, wantArgs) {
		t.Errorf("misc args = %#v, want %#v", c.Args, wantArgs)
	}
}

func TestDecodeCallMismatch(t *testing.T) {
	t.Parallel()
	a, _ := ParseABI(testABI)
	for name, data := range map[string][]byte{
		"short":            {0xa9, 0x05},
		"unknown selector": {0xde, 0xad, 0xbe, 0xef},
		"truncated args":   append(a.Methods["transfer"].ID, make([]byte, 31)...),
	} {
		if c, err := DecodeCall(a, data); err == nil {
			t.Errorf("%s: decoded %+v, want an error", name, c)
		}
	}
	for _, bad := range []string{`{}`, `[]`, `not json`, `[{"type":"event","name":"E","inputs":[]}]`} {
		if _, err := ParseABI(bad); err == nil {
			t.Errorf("ParseABI(%q) accepted it", bad)
		}
	}
}
