package coordinator_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/mutate"
	"github.com/sigil/sigil/internal/testdb"
)

// Every activity type and query, sent parameters with one field missing, null, of another JSON type, or a hostile
// string, by the root user: each is answered with a client error in the documented shape (never an internal error),
// whose message (at most 1,000 characters) does not repeat a long value whole, or carried out; and the coordinator
// keeps answering. The parameters start from a value with every field set, so that nested fields are reached too.
func TestEveryOperationRefusesBadParameters(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) { sweepOperations(t, newStack(t, b)) })
}

func sweepOperations(t *testing.T, s *stack) {
	org := s.boot.OrganizationID
	for _, op := range coordinator.Operations() {
		for _, m := range mutate.Mutants("parameters", filledParams(op)) {
			if _, ok := m.Value.(map[string]any); op.Query && !ok {
				continue // a query's request is an object: the path's handler is not reached
			}
			queryOrg := org
			if strings.HasPrefix(m.Name, "parameters.organizationId") {
				queryOrg = "" // the mutant's own
			}
			path, body := s.operationRequest(op, queryOrg, m.Value)
			r := s.stamped(path, body, s.boot.APIKey)
			refused := r.status >= 300
			if r.status >= 500 || refused && (r.message() == "" || r.body["code"] == nil || utf8.RuneCountInString(r.message()) > 1000) {
				t.Errorf("%s, %s: %d %.300s", path, m.Name, r.status, r.raw)
			}
		}
	}
	if _, err := s.root.Whoami(bg, org); err != nil {
		t.Fatalf("the coordinator stopped answering: %v", err)
	}
}

// filledParams is the JSON of op's parameters (an activity's) or request (a query's) with every field set.
func filledParams(op coordinator.Operation) any {
	return mutate.Tree(mutate.Fill(reflect.ValueOf(op.NewParams()).Elem().Type()))
}

// operationRequest is the path and body that submit op with params: an activity in org, or a query whose request is
// params with organizationId set to org ("" leaves params as they are).
func (s *stack) operationRequest(op coordinator.Operation, org string, params any) (path string, body []byte) {
	if !op.Query {
		return "/public/v1/submit/" + op.Path, envelope(op.Type, org, params, s.stamps.Now())
	}
	if req := params.(map[string]any); org != "" {
		req["organizationId"] = org
	}
	body, _ = json.Marshal(params)
	return "/public/v1/query/" + op.Path, body
}
