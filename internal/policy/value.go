package policy

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"

	"github.com/holiman/uint256"
)

type kind uint8

const (
	kindInvalid kind = iota
	kindBool
	kindInt
	kindString
	kindList
	kindStruct
	kindDyn // decoded JSON, typed at evaluation
)

// typ is a static type. Types are built once at package initialization and compared
// by pointer for structs.
type typ struct {
	kind kind
	elem *typ        // element type of a list; nil for the empty list literal
	st   *structType // fields of a struct
}

var (
	tBool   = &typ{kind: kindBool}
	tInt    = &typ{kind: kindInt}
	tString = &typ{kind: kindString}
	tDyn    = &typ{kind: kindDyn}
)

func listOf(t *typ) *typ { return &typ{kind: kindList, elem: t} }

// a returns the type name with its indefinite article, for messages.
func (t *typ) a() string {
	s := t.String()
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func (t *typ) String() string {
	switch t.kind {
	case kindBool:
		return "bool"
	case kindInt:
		return "int"
	case kindString:
		return "string"
	case kindList:
		if t.elem == nil {
			return "empty list"
		}
		return "list<" + t.elem.String() + ">"
	case kindStruct:
		return t.st.name
	case kindDyn:
		return "dynamic value"
	}
	return "invalid"
}

// value is a runtime value. It is passed by value so reading fields of the Input
// allocates nothing: structs and lists refer to the Input's own memory through ref.
type value struct {
	k   kind
	b   bool
	s   string
	n   uint256.Int
	ref any // *T for structs; a list or a []string for lists; the JSON value for kindDyn
}

func boolValue(b bool) value     { return value{k: kindBool, b: b} }
func stringValue(s string) value { return value{k: kindString, s: s} }
func uintValue(u uint64) value {
	v := value{k: kindInt}
	v.n.SetUint64(u)
	return v
}

// bigValue converts an integer of the Input. nil means the field is absent.
func bigValue(b *big.Int) (value, error) {
	if b == nil {
		return value{}, evalErrorf(Absent, "not present in this request")
	}
	v := value{k: kindInt}
	if b.Sign() < 0 || v.n.SetFromBig(b) {
		return value{}, evalErrorf(Overflow, "value %s is outside 0 ..= 2^256-1", b)
	}
	return v, nil
}

// list is a list held by reference, so indexing yields values without allocating.
type list interface {
	Len() int
	At(i int) value
}

type (
	userList   []User
	credList   []Credential
	walletList []Wallet
	stringList []string
	uintList   []uint32
	boolList   []bool
	valueList  []value
)

func (l *userList) Len() int         { return len(*l) }
func (l *userList) At(i int) value   { return value{k: kindStruct, ref: &(*l)[i]} }
func (l *credList) Len() int         { return len(*l) }
func (l *credList) At(i int) value   { return value{k: kindStruct, ref: &(*l)[i]} }
func (l *walletList) Len() int       { return len(*l) }
func (l *walletList) At(i int) value { return value{k: kindStruct, ref: &(*l)[i]} }
func (l *stringList) Len() int       { return len(*l) }
func (l *stringList) At(i int) value { return stringValue((*l)[i]) }
func (l *uintList) Len() int         { return len(*l) }
func (l *uintList) At(i int) value   { return uintValue(uint64((*l)[i])) }
func (l *boolList) Len() int         { return len(*l) }
func (l *boolList) At(i int) value   { return boolValue((*l)[i]) }
func (l *valueList) Len() int        { return len(*l) }
func (l *valueList) At(i int) value  { return (*l)[i] }

func listValue(l list) value { return value{k: kindList, ref: l} }

// listLen and listAt also accept a []string boxed in an interface, as activity.params
// holds lists, so reading them does not copy.
func listLen(v value) int {
	switch l := v.ref.(type) {
	case list:
		return l.Len()
	case []string:
		return len(l)
	}
	return 0
}

func listAt(v value, i int) value {
	switch l := v.ref.(type) {
	case list:
		return l.At(i)
	case []string:
		return stringValue(l[i])
	}
	return value{}
}

// hexEqual is the string equality of the language: two strings that both start with
// 0x (addresses, calldata, hashes) compare case-insensitively, so a checksummed
// address equals its lower-case form; other strings compare exactly. Only ASCII
// letters fold, so no Unicode look-alike can match a hex digit.
func hexEqual(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) != len(b) {
		return false
	}
	if !strings.HasPrefix(a, "0x") || !strings.HasPrefix(b, "0x") {
		return a == b
	}
	for i := 2; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// scalar turns a dynamic value into a bool, int or string value.
func scalar(v value) (value, error) {
	if v.k != kindDyn {
		return v, nil
	}
	switch x := v.ref.(type) {
	case string:
		return stringValue(x), nil
	case bool:
		return boolValue(x), nil
	case json.Number:
		return intFromDecimal(string(x))
	case float64:
		if x < 0 || x != math.Trunc(x) || x > 1<<53 {
			return value{}, evalErrorf(TypeMismatch, "number %v is not a non-negative integer that JSON decoding kept exactly; decode messages with UseNumber", x)
		}
		return uintValue(uint64(x)), nil
	case nil:
		return value{}, evalErrorf(TypeMismatch, "value is null")
	case []any:
		return value{}, evalErrorf(TypeMismatch, "value is a list, not a string, integer or bool")
	case map[string]any:
		return value{}, evalErrorf(TypeMismatch, "value is an object, not a string, integer or bool")
	}
	return value{}, evalErrorf(TypeMismatch, "value has unsupported Go type %T", v.ref)
}

func intFromDecimal(s string) (value, error) {
	v := value{k: kindInt}
	if !isDigits(s) || v.n.SetFromDecimal(s) != nil {
		return value{}, evalErrorf(TypeMismatch, "number %s is not an integer in 0 ..= 2^256-1", s)
	}
	return v, nil
}

// asInt reads an integer, accepting a string only when it came from a dynamic value,
// since EIP-712 messages often carry uint256 values as decimal or 0x-hex strings.
func asInt(v value, fromDyn bool) (value, error) {
	if v.k == kindInt {
		return v, nil
	}
	if v.k == kindString && fromDyn {
		if strings.HasPrefix(v.s, "0x") {
			r := value{k: kindInt}
			if err := r.n.SetFromHex(v.s); err != nil {
				return value{}, evalErrorf(TypeMismatch, "string %q is not a 0x-hex integer", v.s)
			}
			return r, nil
		}
		return intFromDecimal(v.s)
	}
	return value{}, evalErrorf(TypeMismatch, "value is a %s, not an integer", kindName(v.k))
}

func kindName(k kind) string {
	switch k {
	case kindBool:
		return "bool"
	case kindInt:
		return "integer"
	case kindString:
		return "string"
	case kindList:
		return "list"
	case kindStruct:
		return "struct"
	}
	return "dynamic value"
}

// equal compares two values of the same static type, or a dynamic value with
// anything, following the rules above.
func equal(a, b value) (bool, error) {
	dyn := a.k == kindDyn || b.k == kindDyn
	a, err := scalar(a)
	if err != nil {
		return false, err
	}
	b, err = scalar(b)
	if err != nil {
		return false, err
	}
	switch {
	case a.k == b.k:
		switch a.k {
		case kindBool:
			return a.b == b.b, nil
		case kindInt:
			return a.n == b.n, nil
		case kindString:
			return hexEqual(a.s, b.s), nil
		}
	case dyn && (a.k == kindInt || b.k == kindInt):
		if a, err = asInt(a, true); err != nil {
			return false, err
		}
		if b, err = asInt(b, true); err != nil {
			return false, err
		}
		return a.n == b.n, nil
	}
	return false, evalErrorf(TypeMismatch, "cannot compare a %s with a %s", kindName(a.k), kindName(b.k))
}

// compareInts orders two integers; dynamic values are converted first.
func compareInts(a, b value) (int, error) {
	dyn := a.k == kindDyn || b.k == kindDyn
	a, err := scalar(a)
	if err != nil {
		return 0, err
	}
	b, err = scalar(b)
	if err != nil {
		return 0, err
	}
	if a, err = asInt(a, dyn); err != nil {
		return 0, err
	}
	if b, err = asInt(b, dyn); err != nil {
		return 0, err
	}
	return a.n.Cmp(&b.n), nil
}

// truth reads a boolean, converting a dynamic value.
func truth(v value) (bool, error) {
	s, err := scalar(v)
	if err != nil {
		return false, err
	}
	if s.k != kindBool {
		return false, evalErrorf(TypeMismatch, "value is a %s, not a bool", kindName(s.k))
	}
	return s.b, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
