package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// ErrInvalidTypedData is wrapped by every EIP-712 parsing error.
var ErrInvalidTypedData = errors.New("invalid EIP-712 typed data")

// TypedData is parsed EIP-712 typed data with its signing hash.
type TypedData struct {
	data apitypes.TypedData
	hash common.Hash
	view EIP712View
}

// EIP712View is the policy engine's eth.eip_712.
type EIP712View struct {
	PrimaryType string
	Domain      EIP712Domain
	// Message is the decoded JSON message: values are string, bool, *big.Int
	// (JSON numbers, which must be integers), []any, map[string]any or nil.
	// Strings that are 0x-prefixed hex are lower-cased.
	Message map[string]any
}

// EIP712Domain is eth.eip_712.domain. Absent fields are empty (ChainID nil).
type EIP712Domain struct {
	Name              string
	Version           string
	ChainID           *big.Int
	VerifyingContract string // lower-case hex
}

// Hash is the EIP-712 signing hash keccak256(0x19 0x01 || domainSeparator || hashStruct(message)).
func (t *TypedData) Hash() common.Hash { return t.hash }

// View returns the policy view.
func (t *TypedData) View() EIP712View { return t.view }

// Data returns the go-ethereum representation.
func (t *TypedData) Data() apitypes.TypedData { return t.data }

// domainFieldTypes is the canonical order and type of EIP712Domain fields,
// used when the typed data does not declare EIP712Domain (viem derives it the
// same way).
var domainFieldTypes = []apitypes.Type{
	{Name: "name", Type: "string"},
	{Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"},
	{Name: "verifyingContract", Type: "address"},
	{Name: "salt", Type: "bytes32"},
}

// ParseTypedData parses EIP-712 typed data JSON (as eth_signTypedData_v4 and
// viem's serializeTypedData produce it) and computes its signing hash.
// JSON numbers are read exactly (no float rounding); non-integers are errors.
func ParseTypedData(jsonText []byte) (*TypedData, error) {
	dec := json.NewDecoder(bytes.NewReader(jsonText))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var td apitypes.TypedData
	if err := dec.Decode(&td); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTypedData, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the JSON object", ErrInvalidTypedData)
	}
	if td.PrimaryType == "" {
		return nil, fmt.Errorf("%w: primaryType is missing", ErrInvalidTypedData)
	}
	if _, ok := td.Types[td.PrimaryType]; !ok && td.PrimaryType != "EIP712Domain" {
		return nil, fmt.Errorf("%w: primaryType %q is not declared in types", ErrInvalidTypedData, td.PrimaryType)
	}
	if _, ok := td.Types["EIP712Domain"]; !ok {
		td.Types = withDomainType(td.Types, td.Domain)
	}
	view, err := buildView(&td)
	if err != nil {
		return nil, err
	}
	// apitypes reads integers from strings exactly but from float64 lossily;
	// hand it strings.
	msg, err := numbersToStrings(td.Message)
	if err != nil {
		return nil, err
	}
	td.Message = msg.(map[string]any)
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTypedData, err)
	}
	return &TypedData{data: td, hash: common.BytesToHash(hash), view: view}, nil
}

func withDomainType(types apitypes.Types, d apitypes.TypedDataDomain) apitypes.Types {
	present := map[string]bool{
		"name": d.Name != "", "version": d.Version != "", "chainId": d.ChainId != nil,
		"verifyingContract": d.VerifyingContract != "", "salt": d.Salt != "",
	}
	out := make(apitypes.Types, len(types)+1)
	for k, v := range types {
		out[k] = v
	}
	var fields []apitypes.Type
	for _, f := range domainFieldTypes {
		if present[f.Name] {
			fields = append(fields, f)
		}
	}
	out["EIP712Domain"] = fields
	return out
}

func buildView(td *apitypes.TypedData) (EIP712View, error) {
	msg, err := normalizeForView(map[string]any(td.Message))
	if err != nil {
		return EIP712View{}, err
	}
	v := EIP712View{
		PrimaryType: td.PrimaryType,
		Domain: EIP712Domain{
			Name:              td.Domain.Name,
			Version:           td.Domain.Version,
			VerifyingContract: lowerHex(td.Domain.VerifyingContract),
		},
		Message: msg.(map[string]any),
	}
	if td.Domain.ChainId != nil {
		v.Domain.ChainID = new(big.Int).Set((*big.Int)(td.Domain.ChainId))
	}
	return v, nil
}

// normalizeForView deep-copies a decoded JSON value, turning json.Number into
// *big.Int and lower-casing 0x hex strings.
func normalizeForView(v any) (any, error) {
	return mapLeaves(v, func(leaf any) (any, error) {
		switch leaf := leaf.(type) {
		case json.Number:
			n, ok := new(big.Int).SetString(string(leaf), 10)
			if !ok {
				return nil, fmt.Errorf("%w: number %s is not an integer", ErrInvalidTypedData, leaf)
			}
			return n, nil
		case string:
			return lowerHex(leaf), nil
		}
		return leaf, nil // bool, nil
	})
}

// numbersToStrings deep-copies a decoded JSON value with json.Number turned
// into its decimal text, which apitypes parses exactly.
func numbersToStrings(v any) (any, error) {
	return mapLeaves(v, func(leaf any) (any, error) {
		if n, ok := leaf.(json.Number); ok {
			return n.String(), nil
		}
		return leaf, nil
	})
}

// mapLeaves deep-copies a decoded JSON value, replacing each value that is not
// an object or a list by what f returns for it.
func mapLeaves(v any, f func(leaf any) (any, error)) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			n, err := mapLeaves(e, f)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			n, err := mapLeaves(e, f)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	return f(v)
}

// lowerHex lower-cases s when it is 0x-prefixed hex, and returns it unchanged
// otherwise.
func lowerHex(s string) string {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return s
	}
	for _, c := range s[2:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return s
		}
	}
	return strings.ToLower(s)
}
