package evm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits of what an uploaded ABI may describe. Calldata is at most a transaction (a node's pool takes 128 KiB), so
// they are far above any real contract's, yet keep a hostile ABI from describing values no transaction could hold:
// go-ethereum allocates a static array whole before it reads whether the data holds it, and builds a Go type for each
// tuple, which a 2^40-element array makes panic.
const (
	// maxABIDepth bounds arrays and tuples nested in one argument.
	maxABIDepth = 32
	// maxABIStaticBytes bounds the encoded size of a static type, and the static head of one argument list.
	maxABIStaticBytes = 128 << 10
)

var errTooDeep = fmt.Errorf("arrays and tuples nest deeper than %d", maxABIDepth)

// abiEntry is one entry of an ABI's JSON, as far as validation reads it.
type abiEntry struct {
	Type    string     `json:"type"`
	Name    string     `json:"name"`
	Inputs  []abiParam `json:"inputs"`
	Outputs []abiParam `json:"outputs"`
}

// abiParam is an argument, a return value or a tuple's component.
type abiParam struct {
	Name       string     `json:"name"`
	Type       string     `json:"type"`
	Components []abiParam `json:"components"`
}

// validateABI checks an ABI's JSON before go-ethereum reads it: every entry a known kind, functions, events and
// errors named with identifiers, every type one the ABI specification defines, nested at most maxABIDepth deep, and
// no static type or argument list's head over maxABIStaticBytes. The error names the entry and argument at fault.
func validateABI(s string) error {
	var entries []abiEntry
	if err := json.Unmarshal([]byte(s), &entries); err != nil {
		return fmt.Errorf("not a contract ABI: an ABI is a JSON array of entries: %v", err)
	}
	for i, e := range entries {
		if err := e.validate(); err != nil {
			what := fmt.Sprintf("entry %d", i)
			if e.Name != "" {
				what = fmt.Sprintf("%s %q", e.Type, e.Name)
			}
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	return nil
}

func (e *abiEntry) validate() error {
	switch e.Type {
	case "function", "event", "error":
		if e.Name == "" {
			return fmt.Errorf("the %s has no name; functions, events and errors are named", e.Type)
		}
		if !isIdentifier(e.Name) {
			return fmt.Errorf("name %q is not an identifier (letters, digits, _ and $, not starting with a digit)", e.Name)
		}
	case "constructor", "fallback", "receive":
	case "":
		return errors.New(`"type" is missing: it is one of function, event, error, constructor, fallback and receive`)
	default:
		return fmt.Errorf("type %q is not function, event, error, constructor, fallback or receive", e.Type)
	}
	for _, list := range []struct {
		what   string
		params []abiParam
	}{{"input", e.Inputs}, {"output", e.Outputs}} {
		head := 0
		for i, p := range list.params {
			size, err := p.check(0)
			if err != nil {
				return fmt.Errorf("%s %s: %v", list.what, paramName(p, i), err)
			}
			if head += size; head > maxABIStaticBytes {
				return fmt.Errorf("the %ss' static encoding takes more than %d bytes, more than a transaction holds", list.what, maxABIStaticBytes)
			}
		}
	}
	return nil
}

func paramName(p abiParam, i int) string {
	if p.Name == "" {
		return strconv.Itoa(i)
	}
	return strconv.Quote(p.Name)
}

// check validates one parameter's type at a nesting depth and returns the bytes its value takes in the encoding's
// head: its whole encoding for a static type, an offset's 32 for a dynamic one.
func (p *abiParam) check(depth int) (int, error) {
	base, dims, err := splitArrays(p.Type)
	if err != nil {
		return 0, err
	}
	if depth += len(dims); depth > maxABIDepth {
		return 0, errTooDeep
	}
	size, dynamic, err := p.checkBase(base, depth)
	if err != nil {
		return 0, err
	}
	// dims are innermost first: T[2][3] is three arrays of two.
	for _, n := range dims {
		switch {
		case n == 0:
			size, dynamic = 32, true
		case n > maxABIStaticBytes/32: // each element takes 32 bytes at least
			return 0, fmt.Errorf("type %s: an array of %d elements takes more than %d bytes, more than a transaction holds", p.Type, n, maxABIStaticBytes)
		case dynamic:
			size = 32 // an array of dynamic values is dynamic: its head is an offset
		case size > maxABIStaticBytes/n:
			return 0, fmt.Errorf("type %s: its encoding takes more than %d bytes, more than a transaction holds", p.Type, maxABIStaticBytes)
		default:
			size *= n
		}
	}
	if dynamic {
		return 32, nil
	}
	return size, nil
}

// checkBase validates a type without its array suffixes: its static size, or that it is dynamic.
func (p *abiParam) checkBase(base string, depth int) (size int, dynamic bool, err error) {
	if base != "tuple" && len(p.Components) > 0 {
		return 0, false, fmt.Errorf("type %s has components, which only a tuple has", p.Type)
	}
	switch base {
	case "address", "bool", "function":
		return 32, false, nil
	case "string", "bytes":
		return 0, true, nil
	case "tuple":
		if depth+1 > maxABIDepth {
			return 0, false, errTooDeep
		}
		if len(p.Components) == 0 {
			return 0, false, errors.New("a tuple needs components")
		}
		for i, c := range p.Components {
			s, err := c.check(depth + 1)
			if errors.Is(err, errTooDeep) {
				return 0, false, err // said once, not with every component on the way down
			}
			if err != nil {
				return 0, false, fmt.Errorf("component %s: %v", paramName(c, i), err)
			}
			if c.dynamic() {
				dynamic = true
			}
			if size += s; size > maxABIStaticBytes {
				return 0, false, fmt.Errorf("type %s: its encoding takes more than %d bytes, more than a transaction holds", p.Type, maxABIStaticBytes)
			}
		}
		return size, dynamic, nil
	}
	for _, prefix := range []string{"uint", "int"} {
		if bits, ok := strings.CutPrefix(base, prefix); ok && bits != "" && allDigits(bits) {
			if n, _ := strconv.Atoi(bits); n >= 8 && n <= 256 && n%8 == 0 && bits[0] != '0' {
				return 32, false, nil
			}
			return 0, false, fmt.Errorf("type %s: an integer's size is a multiple of 8 from 8 to 256 (%s8 ... %s256)", p.Type, prefix, prefix)
		}
	}
	if n, ok := strings.CutPrefix(base, "bytes"); ok && allDigits(n) {
		if size, _ := strconv.Atoi(n); size >= 1 && size <= 32 && n[0] != '0' {
			return 32, false, nil
		}
		return 0, false, fmt.Errorf("type %s: fixed-size bytes are bytes1 to bytes32", p.Type)
	}
	switch {
	case base == "uint" || base == "int":
		return 0, false, fmt.Errorf("type %s: an ABI names an integer's size (%s256)", p.Type, base)
	case strings.HasPrefix(base, "fixed") || strings.HasPrefix(base, "ufixed"):
		return 0, false, fmt.Errorf("type %s: fixed-point types are not supported", p.Type)
	}
	return 0, false, fmt.Errorf("type %q is not an ABI type", p.Type)
}

// dynamic reports whether a parameter's encoding is dynamic (its head an offset). Its type has been checked.
func (p *abiParam) dynamic() bool {
	base, dims, _ := splitArrays(p.Type)
	for _, n := range dims {
		if n == 0 {
			return true
		}
	}
	switch base {
	case "string", "bytes":
		return true
	case "tuple":
		for _, c := range p.Components {
			if c.dynamic() {
				return true
			}
		}
	}
	return false
}

// splitArrays splits "T[2][][3]" into T and its array lengths, innermost first (0 for a dynamic array).
func splitArrays(t string) (base string, dims []int, err error) {
	base = t
	for strings.HasSuffix(base, "]") {
		open := strings.LastIndexByte(base, '[')
		if open < 0 {
			return "", nil, fmt.Errorf("type %q has an unmatched ]", t)
		}
		n := 0
		if digits := base[open+1 : len(base)-1]; digits != "" {
			if !allDigits(digits) || len(digits) > 7 {
				return "", nil, fmt.Errorf("type %s: array length %q is not a number up to %d", t, digits, maxABIStaticBytes/32)
			}
			if n, _ = strconv.Atoi(digits); n == 0 {
				return "", nil, fmt.Errorf("type %s: an array's length is at least 1", t)
			}
		}
		dims = append(dims, n)
		base = base[:open]
	}
	// dims were read outermost first.
	for i, j := 0, len(dims)-1; i < j; i, j = i+1, j-1 {
		dims[i], dims[j] = dims[j], dims[i]
	}
	if base == "" || strings.ContainsAny(base, "[]") {
		return "", nil, fmt.Errorf("type %q is not an ABI type", t)
	}
	return base, dims, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isIdentifier reports whether s is a Solidity identifier, as the name in a selector's preimage must be.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
