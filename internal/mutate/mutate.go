// Package mutate makes the hostile variants of a request body that tests send to every endpoint: each with one
// field, at any depth, missing, null, of another JSON type, or holding a string no one should send.
package mutate

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Fill returns a value of type t with every field set: strings "x", numbers 1, booleans true, one element in each
// list and map, pointers to filled values.
func Fill(t reflect.Type) any {
	v := reflect.New(t).Elem()
	fillValue(v, 0)
	return v.Interface()
}

func fillValue(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.SetBytes([]byte(`{}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillValue(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillValue(k, depth+1)
		fillValue(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillValue(v.Field(i), depth+1)
			}
		}
	}
}

// A Mutant is a changed copy of a JSON value, and what was changed.
type Mutant struct {
	Name  string // the path of the field changed and how, like "parameters.users[].userName = a number"
	Value any
}

// Tree returns v as encoding/json decodes its JSON: objects as maps, lists as slices, numbers as float64.
func Tree(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mutate: %T is not JSON: %v", v, err))
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		panic(fmt.Sprintf("mutate: %T is not JSON: %v", v, err))
	}
	return tree
}

// Mutants returns copies of v's JSON (Tree), each with one field (at any depth) missing, null, of another JSON type, or
// a hostile string.
func Mutants(root string, v any) []Mutant {
	var out []Mutant
	var walk func(path string, node any, replace func(any) any)
	walk = func(path string, node any, replace func(any) any) {
		for _, alt := range alternatives(node) {
			out = append(out, Mutant{path + " = " + alt.Name, replace(alt.Value)})
		}
		switch n := node.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(n)) {
				missing := maps.Clone(n)
				delete(missing, k)
				out = append(out, Mutant{path + "." + k + " missing", replace(missing)})
				walk(path+"."+k, n[k], func(v any) any {
					c := maps.Clone(n)
					c[k] = v
					return replace(c)
				})
			}
		case []any:
			for i, e := range n {
				walk(path+"[]", e, func(v any) any {
					c := slices.Clone(n)
					c[i] = v
					return replace(c)
				})
			}
		}
	}
	walk(root, Tree(v), func(v any) any { return v })
	return out
}

// alternatives are the values that replace a node of the tree: null, a value of each other JSON type, and for a
// string, hostile ones.
func alternatives(node any) []Mutant {
	alts := []Mutant{{"null", nil}}
	if _, ok := node.(string); !ok {
		alts = append(alts, Mutant{"a string", "x"})
	} else {
		alts = append(alts, Mutant{"a number", 7}, Mutant{"an empty string", ""},
			Mutant{"a long string", strings.Repeat("ü", 40_000)},
			Mutant{"control characters", "a\u0000b\u202e"}, Mutant{"a negative number", "-1"},
			Mutant{"a huge number", "99999999999999999999999999999"}, Mutant{"0x", "0x"})
	}
	if _, ok := node.(map[string]any); !ok {
		alts = append(alts, Mutant{"an object", map[string]any{"a": 1}})
	}
	if _, ok := node.([]any); !ok {
		alts = append(alts, Mutant{"a list", []any{1}})
	} else {
		alts = append(alts, Mutant{"an empty list", []any{}}, Mutant{"a list of 2,000", make([]any, 2000)})
	}
	return alts
}
