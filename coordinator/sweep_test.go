package coordinator_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigil/coordinator"
	"sigil/internal/testdb"
)

// Every activity type and query, sent parameters with one field missing, null, of another JSON type, or a hostile
// string, by the root user: each is answered with a client error in the documented shape (never an internal error),
// whose message does not repeat a long value whole, or carried out; and the coordinator keeps answering. The
// parameters start from a value with every field set, so that nested fields are reached too.
func TestEveryOperationRefusesBadParameters(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) { sweepOperations(t, newStack(t, b)) })
}

func sweepOperations(t *testing.T, s *stack) {
	org := s.boot.OrganizationID
	for _, op := range coordinator.Operations() {
		filled, err := json.Marshal(fill(reflect.ValueOf(op.NewParams()).Elem().Type(), 0))
		if err != nil {
			t.Fatalf("%s: %v", op.Path, err)
		}
		var tree any
		if err := json.Unmarshal(filled, &tree); err != nil {
			t.Fatalf("%s: %v", op.Path, err)
		}
		for _, m := range mutants(tree) {
			var body []byte
			var path string
			if op.Query {
				obj, ok := m.value.(map[string]any)
				if !ok {
					continue
				}
				if !strings.HasPrefix(m.name, "parameters.organizationId") {
					obj["organizationId"] = org
				}
				body, _ = json.Marshal(obj)
				path = "/public/v1/query/" + op.Path
			} else {
				body = envelope(op.Type, org, m.value, s.stamps.Now())
				path = "/public/v1/submit/" + op.Path
			}
			r := s.stamped(path, body, s.boot.APIKey)
			refused := r.status >= 300
			if r.status >= 500 || refused && (r.message() == "" || r.body["code"] == nil || len(r.message()) > 1000) {
				t.Errorf("%s, %s: %d %s", path, m.name, r.status, truncate(r.raw))
			}
		}
	}
	if _, err := s.root.Whoami(bg, org); err != nil {
		t.Fatalf("the coordinator stopped answering: %v", err)
	}
}

func truncate(b []byte) string {
	if r := []rune(string(b)); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return string(b)
}

// fill returns a value of type t with every field set: strings "x", numbers 1, booleans true, one element in each
// list and map, pointers to filled values.
func fill(t reflect.Type, depth int) any {
	v := reflect.New(t).Elem()
	fillValue(v, depth)
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

type mutant struct {
	name  string
	value any
}

// mutants returns copies of tree, each with one field (at any depth) missing, null, of another JSON type, or a
// hostile string.
func mutants(tree any) []mutant {
	var out []mutant
	var walk func(path string, node any, replace func(any) any)
	walk = func(path string, node any, replace func(any) any) {
		for _, alt := range alternatives(node) {
			out = append(out, mutant{path + " = " + alt.name, replace(alt.value)})
		}
		switch n := node.(type) {
		case map[string]any:
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, mutant{path + "." + k + " missing", replace(without(n, k))})
				walk(path+"."+k, n[k], func(v any) any { return replace(withField(n, k, v)) })
			}
		case []any:
			for i, e := range n {
				walk(path+"[]", e, func(v any) any {
					c := append([]any(nil), n...)
					c[i] = v
					return replace(c)
				})
			}
		}
	}
	walk("parameters", tree, func(v any) any { return v })
	return out
}

func withField(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m))
	for kk, vv := range m {
		c[kk] = vv
	}
	c[k] = v
	return c
}

func without(m map[string]any, k string) map[string]any {
	c := withField(m, k, nil)
	delete(c, k)
	return c
}

// alternatives are the values that replace a node of the tree: null, a value of each other JSON type, and for a
// string, hostile ones.
func alternatives(node any) []mutant {
	alts := []mutant{{"null", nil}}
	if _, ok := node.(string); !ok {
		alts = append(alts, mutant{"a string", "x"})
	} else {
		alts = append(alts, mutant{"a number", 7}, mutant{"an empty string", ""},
			mutant{"a long string", strings.Repeat("ü", 40_000)},
			mutant{"control characters", "a\u0000b\u202e"}, mutant{"a negative number", "-1"},
			mutant{"a huge number", "99999999999999999999999999999"}, mutant{"0x", "0x"})
	}
	if _, ok := node.(map[string]any); !ok {
		alts = append(alts, mutant{"an object", map[string]any{"a": 1}})
	}
	if _, ok := node.([]any); !ok {
		alts = append(alts, mutant{"a list", []any{1}})
	} else {
		alts = append(alts, mutant{"an empty list", []any{}}, mutant{"a list of 2,000", make([]any, 2000)})
	}
	return alts
}
