package coordinator_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"sigil/coordinator"
	"sigil/internal/mutate"
	"sigil/internal/testdb"
)

// Every activity type and query, sent parameters with one field missing, null, of another JSON type, or a hostile
// string, by the root user: each is answered with a client error in the documented shape (never an internal error),
// whose message (at most 1,000 characters) does not repeat a long value whole, or carried out; and the coordinator keeps answering. The
// parameters start from a value with every field set, so that nested fields are reached too.
func TestEveryOperationRefusesBadParameters(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) { sweepOperations(t, newStack(t, b)) })
}

func sweepOperations(t *testing.T, s *stack) {
	org := s.boot.OrganizationID
	for _, op := range coordinator.Operations() {
		filled, err := json.Marshal(mutate.Fill(reflect.ValueOf(op.NewParams()).Elem().Type()))
		if err != nil {
			t.Fatalf("%s: %v", op.Path, err)
		}
		var tree any
		if err := json.Unmarshal(filled, &tree); err != nil {
			t.Fatalf("%s: %v", op.Path, err)
		}
		for _, m := range mutate.Mutants("parameters", tree) {
			var body []byte
			var path string
			if op.Query {
				obj, ok := m.Value.(map[string]any)
				if !ok {
					continue
				}
				if !strings.HasPrefix(m.Name, "parameters.organizationId") {
					obj["organizationId"] = org
				}
				body, _ = json.Marshal(obj)
				path = "/public/v1/query/" + op.Path
			} else {
				body = envelope(op.Type, org, m.Value, s.stamps.Now())
				path = "/public/v1/submit/" + op.Path
			}
			r := s.stamped(path, body, s.boot.APIKey)
			refused := r.status >= 300
			if r.status >= 500 || refused && (r.message() == "" || r.body["code"] == nil || utf8.RuneCountInString(r.message()) > 1000) {
				t.Errorf("%s, %s: %d %s", path, m.Name, r.status, truncate(r.raw))
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
