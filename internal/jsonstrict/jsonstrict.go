// Package jsonstrict decodes JSON into Go structs the way an API that refuses to guess must: unknown fields, wrong
// types, duplicate keys and missing required fields are errors that name the offending path
// (for example `parameters.users[0].apiKeys[0].curveType: expected string, got number`).
//
// A struct field is required unless its json tag carries `omitempty`, which mirrors the `?` marker of the reference's
// TypeScript types. A field tagged `sigil:"unsupported"` is known but not supported yet: sending it is an error that
// says so, rather than being silently ignored.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Error is a decoding error at a path.
type Error struct {
	Path    string
	Message string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Decode parses data into v (a pointer to a struct, slice or map), naming paths from root (for example "parameters").
func Decode(data []byte, v any, root string) error {
	sc := &scanner{data: data}
	n, err := sc.value()
	if err != nil {
		return &Error{Path: root, Message: "malformed JSON: " + err.Error()}
	}
	if sc.skipSpace(); sc.pos != len(data) {
		return &Error{Path: root, Message: "malformed JSON: unexpected data after the top-level value"}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("jsonstrict: Decode needs a non-nil pointer")
	}
	return assign(n, rv.Elem(), root)
}

// node is a parsed JSON value that keeps object keys in order and remembers which kind it was.
type node struct {
	kind   byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys   []string
	fields map[string]*node
	items  []*node
	str    string
	num    json.Number
	bool   bool
	raw    []byte // the value's text in the input
}

func (n *node) kindName() string {
	switch n.kind {
	case 'o':
		return "object"
	case 'a':
		return "array"
	case 's':
		return "string"
	case 'n':
		return "number"
	case 'b':
		return "boolean"
	}
	return "null"
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

func assign(n *node, v reflect.Value, path string) error {
	if v.Type() == rawMessageType {
		var b bytes.Buffer
		if err := json.Compact(&b, n.raw); err != nil {
			return &Error{Path: path, Message: err.Error()}
		}
		v.SetBytes(b.Bytes())
		return nil
	}
	if n.kind == 'z' && v.Kind() != reflect.Interface {
		// null means absent; required fields are checked by the enclosing struct.
		v.SetZero()
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := assign(n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return &Error{Path: path, Message: "unsupported interface type"}
		}
		if n.kind == 'z' { // null: a nil interface (reflect.ValueOf(nil) is no value to set)
			v.SetZero()
			return nil
		}
		v.Set(reflect.ValueOf(n.toAny()))
		return nil
	case reflect.String:
		if n.kind != 's' {
			return typeError(path, "string", n)
		}
		v.SetString(n.str)
	case reflect.Bool:
		if n.kind != 'b' {
			return typeError(path, "boolean", n)
		}
		v.SetBool(n.bool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return assignInt(n, v, path)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return assignUint(n, v, path)
	case reflect.Slice:
		return assignSlice(n, v, path)
	case reflect.Map:
		return assignMap(n, v, path)
	case reflect.Struct:
		return assignStruct(n, v, path)
	default:
		return &Error{Path: path, Message: "unsupported Go type " + v.Type().String()}
	}
	return nil
}

func typeError(path, want string, n *node) error {
	return &Error{Path: path, Message: fmt.Sprintf("expected %s, got %s", want, n.kindName())}
}

func assignInt(n *node, v reflect.Value, path string) error {
	if n.kind != 'n' {
		return typeError(path, "integer", n)
	}
	i, err := strconv.ParseInt(string(n.num), 10, 64)
	if err != nil || v.OverflowInt(i) {
		return &Error{Path: path, Message: fmt.Sprintf("expected an integer in range, got %s", n.num)}
	}
	v.SetInt(i)
	return nil
}

func assignUint(n *node, v reflect.Value, path string) error {
	if n.kind != 'n' {
		return typeError(path, "non-negative integer", n)
	}
	i, err := strconv.ParseUint(string(n.num), 10, 64)
	if err != nil || v.OverflowUint(i) {
		return &Error{Path: path, Message: fmt.Sprintf("expected a non-negative integer in range, got %s", n.num)}
	}
	v.SetUint(i)
	return nil
}

func assignSlice(n *node, v reflect.Value, path string) error {
	if n.kind != 'a' {
		return typeError(path, "array", n)
	}
	s := reflect.MakeSlice(v.Type(), len(n.items), len(n.items))
	for i, item := range n.items {
		if err := assign(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func assignMap(n *node, v reflect.Value, path string) error {
	if n.kind != 'o' {
		return typeError(path, "object", n)
	}
	if v.Type().Key().Kind() != reflect.String {
		return &Error{Path: path, Message: "unsupported map key type"}
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
	for _, k := range n.keys {
		e := reflect.New(v.Type().Elem()).Elem()
		if err := assign(n.fields[k], e, joinPath(path, k)); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
	}
	v.Set(m)
	return nil
}

func assignStruct(n *node, v reflect.Value, path string) error {
	if n.kind != 'o' {
		return typeError(path, "object", n)
	}
	fields := structFields(v.Type())
	for _, k := range n.keys {
		f, ok := fields.byName[k]
		if !ok {
			return &Error{Path: joinPath(path, k), Message: "unknown field" + suggest(k, fields)}
		}
		if f.unsupported && n.fields[k].kind != 'z' {
			return &Error{Path: joinPath(path, k), Message: "is not supported yet by this server"}
		}
		if err := assign(n.fields[k], v.Field(f.index), joinPath(path, k)); err != nil {
			return err
		}
	}
	for _, f := range fields.list {
		if !f.required {
			continue
		}
		if c, ok := n.fields[f.name]; !ok || c.kind == 'z' {
			return &Error{Path: joinPath(path, f.name), Message: "required field is missing"}
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func suggest(k string, fields *fieldSet) string {
	for _, f := range fields.list {
		if strings.EqualFold(f.name, k) {
			return fmt.Sprintf(" (did you mean %q?)", f.name)
		}
	}
	return ""
}

type field struct {
	name        string
	index       int
	required    bool
	unsupported bool
}

type fieldSet struct {
	list   []field
	byName map[string]field
}

var fieldCache sync.Map // reflect.Type -> *fieldSet

func structFields(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{byName: map[string]field{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := field{
			name:        name,
			index:       i,
			required:    !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero"),
			unsupported: sf.Tag.Get("sigil") == "unsupported",
		}
		if f.unsupported {
			f.required = false
		}
		fs.list = append(fs.list, f)
		fs.byName[name] = f
	}
	fieldCache.Store(t, fs)
	return fs
}

func (n *node) toAny() any {
	switch n.kind {
	case 'o':
		m := make(map[string]any, len(n.keys))
		for _, k := range n.keys {
			m[k] = n.fields[k].toAny()
		}
		return m
	case 'a':
		s := make([]any, len(n.items))
		for i, item := range n.items {
			s[i] = item.toAny()
		}
		return s
	case 's':
		return n.str
	case 'n':
		if f, err := n.num.Float64(); err == nil && !math.IsInf(f, 0) && strconv.FormatFloat(f, 'f', -1, 64) == string(n.num) {
			return f
		}
		return n.num
	case 'b':
		return n.bool
	}
	return nil
}
