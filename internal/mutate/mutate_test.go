package mutate

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestMutantsChangeOneFieldOfACopy(t *testing.T) {
	tree := Tree(json.RawMessage(`{"a":"x","b":[{"c":1}]}`))
	before, _ := json.Marshal(tree)
	var names []string
	for _, m := range Mutants("body", tree) {
		names = append(names, m.Name)
		if reflect.DeepEqual(m.Value, tree) {
			t.Errorf("%s: nothing changed", m.Name)
		}
	}
	if after, _ := json.Marshal(tree); string(after) != string(before) {
		t.Fatalf("the tree was changed: %s", after)
	}
	for _, want := range []string{"body = null", "body.a missing", "body.a = a number", "body.b = an empty list",
		"body.b[].c = a string", "body.b[].c missing"} {
		if !slices.Contains(names, want) {
			t.Errorf("no mutant %q among %q", want, names)
		}
	}
}

func TestFillSetsEveryField(t *testing.T) {
	type inner struct{ N int }
	type outer struct {
		S   string
		P   *inner
		L   []inner
		M   map[string]bool
		Raw json.RawMessage
	}
	got, _ := json.Marshal(Fill(reflect.TypeFor[outer]()))
	if want := `{"S":"x","P":{"N":1},"L":[{"N":1}],"M":{"x":true},"Raw":{}}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
