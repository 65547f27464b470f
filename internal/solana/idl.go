package solana

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// An IDL describes a program's instructions so that policies can read an instruction by name and its arguments
// (solana.tx.instructions[].parsed_instruction_data). Three dialects are read:
//
//   - Anchor 0.30 and later: each instruction lists its discriminator; names are Rust's (snake_case).
//   - Anchor before 0.30 ("legacy"): names are camelCase, the discriminator is the first 8 bytes of
//     sha256("global:" + the snake_case name), as Anchor derives it.
//   - Shank (metadata.origin "shank"): a one-byte discriminant per instruction.
//
// Arguments are Borsh-encoded, as both frameworks encode them. Names reach policies in snake_case whatever the
// dialect, so one policy reads a program the same way whichever IDL its team uploaded.

// IDL is a parsed program interface.
type IDL struct {
	Instructions []IDLInstruction // longest discriminator first, so a prefix never shadows a longer match
	types        map[string]*idlTypeDef
}

// IDLInstruction is one instruction of an IDL.
type IDLInstruction struct {
	Name          string // snake_case
	Discriminator []byte
	Accounts      []string // account names in order, composite account groups flattened, snake_case
	args          []idlField
}

// ParsedCall is an instruction decoded with its program's IDL.
type ParsedCall struct {
	InstructionName string
	Discriminator   []byte
	// NamedAccounts maps each account the IDL names to its address (LookupPlaceholder for one loaded from a lookup
	// table). Accounts beyond the IDL's (remaining accounts) have no name and are left out.
	NamedAccounts map[string]string
	// Args are the arguments by name as JSON-like values: integers as json.Number, public keys base58, bytes as
	// lower-case hex, strings, bools, vectors and arrays as []any, an absent option as nil, structs as maps,
	// tuple structs as []any, and an enum variant as {name: its fields}, nil for a unit variant's (the reference's
	// parser's {"Raydium": null}).
	Args map[string]any
}

// Limits of what an IDL may make the decoder do: one instruction's data is at most a transaction (1232 bytes), so
// these are far above any real instruction yet stop a hostile IDL or data from nesting or allocating without end.
const (
	maxIDLDepth  = 32
	maxIDLValues = 1 << 14
)

// ParseIDL reads an IDL in any of the three dialects. Every type an instruction's arguments reach must be one
// Borsh can decode here; an IDL that names an unknown type, or uses generics, is refused with the reason.
func ParseIDL(b []byte) (*IDL, error) {
	var raw rawIDL
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("an IDL is a JSON object: %v", err)
	}
	if len(raw.Instructions) == 0 {
		return nil, errors.New("the IDL lists no instructions")
	}
	idl := &IDL{types: map[string]*idlTypeDef{}}
	for _, group := range [][]rawTypeDef{raw.Types, raw.Accounts} {
		for _, t := range group {
			if t.Type.Kind == "" {
				continue // an Anchor 0.30 account entry: its type is among the types
			}
			def, err := t.parse()
			if err != nil {
				// Refused only if an instruction's arguments reach it: IDLs define account types this decoder
				// never needs (generic lengths, zero-copy layouts).
				def = &idlTypeDef{unsupported: err.Error()}
			}
			idl.types[t.Name] = def
		}
	}
	seen := map[string]bool{}
	for _, ri := range raw.Instructions {
		in, err := ri.parse(raw.dialect())
		if err != nil {
			return nil, fmt.Errorf("instruction %q: %v", ri.Name, err)
		}
		for _, a := range in.args {
			if err := idl.check(a.typ, 0); err != nil {
				return nil, fmt.Errorf("instruction %q, argument %q: %v", ri.Name, a.name, err)
			}
		}
		if seen[string(in.Discriminator)] {
			return nil, fmt.Errorf("instruction %q: another instruction has the discriminator %x", ri.Name, in.Discriminator)
		}
		seen[string(in.Discriminator)] = true
		idl.Instructions = append(idl.Instructions, in)
	}
	sort.SliceStable(idl.Instructions, func(i, j int) bool {
		return len(idl.Instructions[i].Discriminator) > len(idl.Instructions[j].Discriminator)
	})
	return idl, nil
}

// Decode reads an instruction's data and accounts (addresses in the instruction's order) with the IDL. Data with
// bytes after the arguments the instruction declares does not decode, as the reference's parser refuses it
// ("extra unexpected bytes remaining at the end of instruction call data"), though a program might ignore them.
func (idl *IDL) Decode(data []byte, accounts []string) (*ParsedCall, error) {
	in := idl.match(data)
	if in == nil {
		return nil, errors.New("no instruction of the IDL has this data's discriminator")
	}
	d := &borsh{b: data[len(in.Discriminator):], idl: idl}
	args := make(map[string]any, len(in.args))
	for _, a := range in.args {
		v, err := d.value(a.typ, 0)
		if err != nil {
			return nil, fmt.Errorf("instruction %s, argument %s: %v", in.Name, a.name, err)
		}
		args[a.name] = v
	}
	if len(d.b) > 0 {
		return nil, fmt.Errorf("instruction %s: %d bytes after its arguments", in.Name, len(d.b))
	}
	named := make(map[string]string, len(in.Accounts))
	for i, name := range in.Accounts {
		if i < len(accounts) {
			named[name] = accounts[i]
		}
	}
	return &ParsedCall{InstructionName: in.Name, Discriminator: in.Discriminator, NamedAccounts: named, Args: args}, nil
}

func (idl *IDL) match(data []byte) *IDLInstruction {
	for i := range idl.Instructions {
		if bytes.HasPrefix(data, idl.Instructions[i].Discriminator) {
			return &idl.Instructions[i]
		}
	}
	return nil
}

// check resolves every name a type reaches, so that decoding never meets an unknown one.
func (idl *IDL) check(t *idlType, depth int) error {
	if depth > maxIDLDepth {
		return fmt.Errorf("types nest deeper than %d", maxIDLDepth)
	}
	switch {
	case t.elem != nil:
		return idl.check(t.elem, depth+1)
	case t.defined != "":
		def, ok := idl.types[t.defined]
		if !ok {
			return fmt.Errorf("type %q is not defined in the IDL", t.defined)
		}
		if def.unsupported != "" {
			return fmt.Errorf("type %q: %s", t.defined, def.unsupported)
		}
		if def.checked {
			return nil
		}
		def.checked = true // a recursive type is checked once; decoding bounds its depth
		for _, f := range def.allFields() {
			if err := idl.check(f.typ, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Names: policies see an IDL's names as it writes them, as the reference's parser gives them (a legacy IDL's
// useDurableNonce stays useDurableNonce); only a legacy instruction's discriminator is derived from its Rust name.

// snakeCase converts a camelCase or PascalCase name to snake_case as Rust's heck crate does (routePlan → route_plan,
// HTTPServer → http_server, initializeV2 → initialize_v2); a snake_case name is unchanged.
func snakeCase(s string) string {
	r := []rune(s)
	var out strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && r[i-1] != '_' {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				out.WriteByte('_')
			}
		}
		out.WriteRune(unicode.ToLower(c))
	}
	return out.String()
}

// anchorDiscriminator is what Anchor before 0.30 prefixes an instruction's data with.
func anchorDiscriminator(rustName string) []byte {
	h := sha256.Sum256([]byte("global:" + rustName))
	return h[:8]
}

// The IDL's JSON, all dialects at once: each reads the fields it has.

type rawIDL struct {
	Metadata struct {
		Spec   string `json:"spec"`
		Origin string `json:"origin"`
	} `json:"metadata"`
	Instructions []rawInstruction `json:"instructions"`
	Accounts     []rawTypeDef     `json:"accounts"` // legacy Anchor defines account types here
	Types        []rawTypeDef     `json:"types"`
}

type dialect int

const (
	anchorLegacy dialect = iota
	anchorSpec
	shank
)

func (r *rawIDL) dialect() dialect {
	switch {
	case r.Metadata.Origin == "shank":
		return shank
	case r.Metadata.Spec != "":
		return anchorSpec
	}
	return anchorLegacy
}

type rawInstruction struct {
	Name          string       `json:"name"`
	Discriminator []int        `json:"discriminator"`
	Discriminant  *rawDiscrim  `json:"discriminant"`
	Accounts      []rawAccount `json:"accounts"`
	Args          []rawField   `json:"args"`
}

type rawDiscrim struct {
	Type  string `json:"type"`
	Value int    `json:"value"`
}

type rawAccount struct {
	Name     string       `json:"name"`
	Accounts []rawAccount `json:"accounts"` // a composite group of accounts
}

type rawField struct {
	Name string          `json:"name"`
	Type json.RawMessage `json:"type"`
}

type rawTypeDef struct {
	Name     string          `json:"name"`
	Generics json.RawMessage `json:"generics"`
	Type     struct {
		Kind     string          `json:"kind"`
		Fields   json.RawMessage `json:"fields"`
		Variants []rawVariant    `json:"variants"`
		Alias    json.RawMessage `json:"alias"`
	} `json:"type"`
}

type rawVariant struct {
	Name   string          `json:"name"`
	Fields json.RawMessage `json:"fields"`
}

func (ri *rawInstruction) parse(d dialect) (IDLInstruction, error) {
	in := IDLInstruction{Name: ri.Name}
	if ri.Name == "" {
		return in, errors.New("an instruction has no name")
	}
	switch d {
	case anchorSpec:
		if len(ri.Discriminator) == 0 {
			return in, errors.New("it lists no discriminator")
		}
		for _, b := range ri.Discriminator {
			if b < 0 || b > 255 {
				return in, fmt.Errorf("discriminator byte %d is not a byte", b)
			}
			in.Discriminator = append(in.Discriminator, byte(b))
		}
	case shank:
		if ri.Discriminant == nil || ri.Discriminant.Type != "u8" || ri.Discriminant.Value < 0 || ri.Discriminant.Value > 255 {
			return in, errors.New("a Shank instruction needs a u8 discriminant")
		}
		in.Discriminator = []byte{byte(ri.Discriminant.Value)}
	default:
		in.Discriminator = anchorDiscriminator(snakeCase(in.Name))
	}
	in.Accounts = flattenAccounts(ri.Accounts, nil)
	for _, a := range ri.Args {
		f, err := a.parse()
		if err != nil {
			return in, err
		}
		in.args = append(in.args, f)
	}
	return in, nil
}

// flattenAccounts lists accounts in the order the instruction takes them: a composite group's accounts in its place.
func flattenAccounts(as []rawAccount, out []string) []string {
	for _, a := range as {
		if len(a.Accounts) > 0 {
			out = flattenAccounts(a.Accounts, out)
			continue
		}
		out = append(out, a.Name)
	}
	return out
}

func (f *rawField) parse() (idlField, error) {
	if f.Name == "" {
		return idlField{}, errors.New("a field has no name")
	}
	t, err := parseType(f.Type)
	if err != nil {
		return idlField{}, fmt.Errorf("%s: %v", f.Name, err)
	}
	return idlField{name: f.Name, typ: t}, nil
}

func (t *rawTypeDef) parse() (*idlTypeDef, error) {
	if len(t.Generics) > 0 && string(t.Generics) != "null" && string(t.Generics) != "[]" {
		return nil, errors.New("generic types are not supported")
	}
	switch t.Type.Kind {
	case "struct":
		fields, tuple, err := parseFields(t.Type.Fields)
		return &idlTypeDef{fields: fields, tuple: tuple}, err
	case "enum":
		def := &idlTypeDef{enum: true}
		for _, v := range t.Type.Variants {
			fields, tuple, err := parseFields(v.Fields)
			if err != nil {
				return nil, fmt.Errorf("variant %s: %v", v.Name, err)
			}
			def.variants = append(def.variants, idlVariant{name: v.Name, fields: fields, tuple: tuple})
		}
		return def, nil
	case "type":
		alias, err := parseType(t.Type.Alias)
		return &idlTypeDef{alias: alias}, err
	}
	return nil, fmt.Errorf("kind %q is not a struct, an enum or a type alias", t.Type.Kind)
}

// parseFields reads named fields ([{name, type}]) or a tuple's ([type, ...]); none is a unit struct or variant.
func parseFields(raw json.RawMessage) (named []idlField, tuple []*idlType, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, errors.New("fields are not a list")
	}
	for _, item := range items {
		var f rawField
		if json.Unmarshal(item, &f) == nil && f.Name != "" {
			pf, err := f.parse()
			if err != nil {
				return nil, nil, err
			}
			named = append(named, pf)
			continue
		}
		t, err := parseType(item)
		if err != nil {
			return nil, nil, err
		}
		tuple = append(tuple, t)
	}
	if named != nil && tuple != nil {
		return nil, nil, errors.New("fields mix named and positional ones")
	}
	return named, tuple, nil
}

// The types Borsh decodes.

type idlField struct {
	name string
	typ  *idlType
}

// idlType is a type expression: a primitive, a container of elem, or a defined type's name.
type idlType struct {
	prim    string // bool, u8...u256, i8...i256, f32, f64, string, bytes, pubkey
	wrap    string // vec, option, coption, array
	length  int    // of an array
	elem    *idlType
	defined string
}

type idlTypeDef struct {
	fields      []idlField // a struct's named fields
	tuple       []*idlType // a tuple struct's fields
	enum        bool
	variants    []idlVariant
	alias       *idlType
	unsupported string // why a type the IDL defines cannot be decoded: refused only if an instruction uses it
	checked     bool
}

type idlVariant struct {
	name   string
	fields []idlField
	tuple  []*idlType
}

// allFields is every type a definition refers to, for check.
func (d *idlTypeDef) allFields() []idlField {
	out := append([]idlField{}, d.fields...)
	for _, t := range d.tuple {
		out = append(out, idlField{typ: t})
	}
	for _, v := range d.variants {
		out = append(out, v.fields...)
		for _, t := range v.tuple {
			out = append(out, idlField{typ: t})
		}
	}
	if d.alias != nil {
		out = append(out, idlField{typ: d.alias})
	}
	return out
}

var primitives = map[string]string{
	"bool": "bool", "u8": "u8", "i8": "i8", "u16": "u16", "i16": "i16", "u32": "u32", "i32": "i32",
	"u64": "u64", "i64": "i64", "u128": "u128", "i128": "i128", "u256": "u256", "i256": "i256", "f32": "f32", "f64": "f64",
	"string": "string", "bytes": "bytes", "publicKey": "pubkey", "pubkey": "pubkey",
}

func parseType(raw json.RawMessage) (*idlType, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if p, ok := primitives[name]; ok {
			return &idlType{prim: p}, nil
		}
		return nil, fmt.Errorf("type %q is not a Borsh type this decoder reads", name)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return nil, fmt.Errorf("type %s is neither a name nor an object of one key", raw)
	}
	for key, inner := range obj {
		switch key {
		case "vec", "option", "coption":
			elem, err := parseType(inner)
			return &idlType{wrap: key, elem: elem}, err
		case "array":
			return parseArray(inner)
		case "defined":
			return parseDefined(inner)
		}
		return nil, fmt.Errorf("type {%q: ...} is not supported", key)
	}
	panic("unreachable")
}

func parseArray(raw json.RawMessage) (*idlType, error) {
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return nil, errors.New("an array type is [type, length]")
	}
	var n int
	if err := json.Unmarshal(pair[1], &n); err != nil || n < 0 || n > maxIDLValues {
		return nil, fmt.Errorf("array length %s is not a number up to %d (generic lengths are not supported)", pair[1], maxIDLValues)
	}
	elem, err := parseType(pair[0])
	return &idlType{wrap: "array", length: n, elem: elem}, err
}

// parseDefined reads a defined type's reference: "Name" (legacy) or {"name": "Name"} (0.30, without generics).
func parseDefined(raw json.RawMessage) (*idlType, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil && name != "" {
		return &idlType{defined: name}, nil
	}
	var ref struct {
		Name     string            `json:"name"`
		Generics []json.RawMessage `json:"generics"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil || ref.Name == "" {
		return nil, fmt.Errorf("defined type %s names no type", raw)
	}
	if len(ref.Generics) > 0 {
		return nil, fmt.Errorf("defined type %s: generic types are not supported", ref.Name)
	}
	return &idlType{defined: ref.Name}, nil
}
