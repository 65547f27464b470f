package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// ParseABI reads a contract's ABI JSON (an array of entries, as solc and Etherscan give it). It refuses, with the
// entry and argument at fault, what the ABI specification does not define (uint7, a nameless function, a tuple
// without components) and what no transaction could hold (arrays and tuples nested over 32 deep, a static encoding
// over 128 KiB), before go-ethereum reads it: it would build Go types for such values, and allocate them to decode.
func ParseABI(s string) (*abi.ABI, error) {
	if err := validateABI(s); err != nil {
		return nil, err
	}
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		return nil, fmt.Errorf("not a contract ABI: %v", err)
	}
	if len(a.Methods) == 0 {
		return nil, errors.New("the ABI has no functions")
	}
	return &a, nil
}

// Call is calldata decoded with an ABI: the function and its arguments by name.
type Call struct {
	FunctionName      string
	FunctionSignature string // name(type,...), as in a selector's preimage
	// Args are JSON-like values: addresses and bytes as 0x-hex strings, integers as json.Number, bools, strings, and
	// arrays and tuples as []any (tuple fields by position). An unnamed argument is named argN by its position.
	Args map[string]any
}

// DecodeCall decodes calldata with an ABI; the error says why it does not match (unknown selector, bad encoding, an
// encoding that would decode to more than the data holds).
func DecodeCall(a *abi.ABI, data []byte) (*Call, error) {
	if len(data) < 4 {
		return nil, errors.New("calldata is shorter than a function selector")
	}
	m, err := a.MethodById(data[:4])
	if err != nil {
		return nil, fmt.Errorf("no function of the ABI has selector 0x%x", data[:4])
	}
	values, err := unpack(m.Inputs, data[4:])
	if err != nil {
		return nil, fmt.Errorf("arguments of %s do not decode: %v", m.Sig, err)
	}
	return newCall(m.RawName, m.Sig, m.Inputs, values), nil
}

// DecodeError decodes revert data with the custom errors an ABI declares: the error's name and its arguments, as
// DecodeCall gives a function's.
func DecodeError(a *abi.ABI, data []byte) (*Call, error) {
	if len(data) < 4 {
		return nil, errors.New("revert data is shorter than an error selector")
	}
	for _, e := range a.Errors {
		if !bytes.Equal(e.ID[:4], data[:4]) {
			continue
		}
		values, err := unpack(e.Inputs, data[4:])
		if err != nil {
			return nil, fmt.Errorf("arguments of %s do not decode: %v", e.Sig, err)
		}
		return newCall(e.Name, e.Sig, e.Inputs, values), nil
	}
	return nil, fmt.Errorf("no error of the ABI has selector 0x%x", data[:4])
}

// unpack decodes arguments with go-ethereum once checkEncoding has bounded what that allocates. A panic of the
// decoder on data that passed is an error too: the data is a tenant's, and the send worker that decodes revert data
// has no one above it to recover.
func unpack(args abi.Arguments, data []byte) (values []any, err error) {
	if err := checkEncoding(args, data); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			values, err = nil, fmt.Errorf("the decoder failed: %v", r)
		}
	}()
	return args.Unpack(data)
}

// newCall names decoded arguments: an unnamed one is argN by its position.
func newCall(name, sig string, args abi.Arguments, values []any) *Call {
	c := &Call{FunctionName: name, FunctionSignature: sig, Args: make(map[string]any, len(values))}
	for i, in := range args {
		argName := in.Name
		if argName == "" {
			argName = fmt.Sprintf("arg%d", i)
		}
		c.Args[argName] = plainValue(in.Type, reflect.ValueOf(values[i]))
	}
	return c
}

// plainValue turns a value go-ethereum decoded for type t into the JSON-like form policies read.
func plainValue(t abi.Type, v reflect.Value) any {
	switch t.T {
	case abi.AddressTy:
		return v.Interface().(common.Address).Hex()
	case abi.IntTy, abi.UintTy:
		switch n := v.Interface().(type) {
		case *big.Int:
			return json.Number(n.String())
		default:
			return json.Number(fmt.Sprint(n))
		}
	case abi.BoolTy, abi.StringTy:
		return v.Interface()
	case abi.BytesTy:
		return "0x" + hex.EncodeToString(v.Bytes())
	case abi.FixedBytesTy, abi.HashTy, abi.FunctionTy:
		b := make([]byte, v.Len())
		for i := range b {
			b[i] = byte(v.Index(i).Uint())
		}
		return "0x" + hex.EncodeToString(b)
	case abi.SliceTy, abi.ArrayTy:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(*t.Elem, v.Index(i))
		}
		return out
	case abi.TupleTy:
		out := make([]any, len(t.TupleElems))
		for i, et := range t.TupleElems {
			out[i] = plainValue(*et, v.Field(i))
		}
		return out
	}
	return fmt.Sprint(v.Interface())
}
