package yield

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// The published contract (Yield.xyz's OpenAPI), copied into testdata so that the test needs nothing outside the
// repository. Its network enums list Yield.xyz's networks; a self-hosted catalogue names its own (the dev chain is
// "sigil-dev"), so the test adds the catalogue's network ids to every network enum and changes nothing else.
var (
	contractOnce sync.Once
	contractDoc  *openapi3.T
	contractErr  error
)

func openAPIContract(t *testing.T, networks []string) *openapi3.T {
	t.Helper()
	contractOnce.Do(func() {
		loader := openapi3.NewLoader()
		contractDoc, contractErr = loader.LoadFromFile("testdata/yield-openapi.yaml")
		if contractErr != nil {
			return
		}
		// The published examples are not all valid (a network example "Ethereum"); only the schemas matter here.
		contractErr = contractDoc.Validate(loader.Context, openapi3.DisableExamplesValidation())
		if contractErr == nil {
			widenNetworkEnums(contractDoc, networks)
		}
	})
	if contractErr != nil {
		t.Fatalf("load testdata/yield-openapi.yaml: %v", contractErr)
	}
	return contractDoc
}

// widenNetworkEnums adds ids to every string enum that lists Yield.xyz's networks (it contains "ethereum" and "base").
func widenNetworkEnums(doc *openapi3.T, ids []string) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(*openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if slices.Contains(s.Enum, any("ethereum")) && slices.Contains(s.Enum, any("base")) {
			for _, id := range ids {
				if !slices.Contains(s.Enum, any(id)) {
					s.Enum = append(s.Enum, id)
				}
			}
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		if s.AdditionalProperties.Schema != nil {
			visit(s.AdditionalProperties.Schema)
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range group {
				visit(r)
			}
		}
	}
	for _, ref := range doc.Components.Schemas {
		visit(ref)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				for _, mt := range r.Value.Content {
					visit(mt.Schema)
				}
			}
		}
	}
}

// checkContract validates an answer of the service against the contract's response schema of the operation at
// method and template (the contract's path, e.g. /v1/yields/{yieldId}), status included.
func (e *env) checkContract(doc *openapi3.T, method, template, path string, r response) {
	e.t.Helper()
	if err := e.contractError(doc, method, template, path, r); err != nil {
		e.t.Errorf("%s %s (%d) does not match the contract:\n%v\nbody: %s", method, path, r.status, err, truncate(string(r.body), 2000))
	}
}

func (e *env) contractError(doc *openapi3.T, method, template, path string, r response) error {
	e.t.Helper()
	item := doc.Paths.Value(template)
	if item == nil {
		e.t.Fatalf("the contract has no path %s", template)
	}
	op := item.GetOperation(method)
	if op == nil {
		e.t.Fatalf("the contract has no %s %s", method, template)
	}
	u, err := url.Parse(e.srv.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: &http.Request{Method: method, URL: u, Header: http.Header{}},
			Route:   &routers.Route{Spec: doc, Path: template, PathItem: item, Method: method, Operation: op},
		},
		Status: r.status,
		Header: r.header,
		Body:   io.NopCloser(bytes.NewReader(r.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			// The schema and value of each error would bury its reason; the body is printed once.
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// TestResponsesMatchTheContract validates real answers of every implemented read and an enter flow against the
// published OpenAPI schemas.
func TestResponsesMatchTheContract(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var networks []string
	for _, n := range e.cat.Networks {
		networks = append(networks, n.ID)
	}
	doc := openAPIContract(t, networks)
	get := func(template, path string) response {
		t.Helper()
		r := e.mustCall(e.key10, "GET", path, nil, 200, nil)
		e.checkContract(doc, "GET", template, path, r)
		return r
	}
	get("/v1/yields", "/v1/yields?limit=100")
	networksAnswer := get("/v1/networks", "/v1/networks")
	// The check itself catches a wrong answer: a network without its required name and logoURI.
	networksAnswer.body = []byte(`[{"id":"sigil-dev","category":"evm"}]`)
	if e.contractError(doc, "GET", "/v1/networks", "/v1/networks", networksAnswer) == nil {
		t.Fatal("a network without name and logoURI passed the contract check")
	}
	get("/v1/providers", "/v1/providers")
	get("/v1/providers/{providerId}", "/v1/providers/sigil-validators")
	for _, y := range e.cat.Yields {
		if !y.visibleTo(10) {
			continue
		}
		get("/v1/yields/{yieldId}", "/v1/yields/"+y.ID)
		get("/v1/yields/{yieldId}/validators", "/v1/yields/"+y.ID+"/validators")
		get("/v1/yields/{yieldId}/risk", "/v1/yields/"+y.ID+"/risk")
	}

	vault := e.yieldID(KindERC4626, "", "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	var a actionDTO
	enter := e.mustCall(e.key10, "POST", "/v1/actions/enter",
		map[string]any{"yieldId": vault, "address": w.addr.Hex(), "arguments": map[string]any{"amount": "10"}}, 201, &a)
	e.checkContract(doc, "POST", "/v1/actions/enter", "/v1/actions/enter", enter)
	w.execute(e.key10, a)
	get("/v1/actions/{actionId}", "/v1/actions/"+a.ID)
	get("/v1/transactions/{transactionId}", "/v1/transactions/"+a.Transactions[0].ID)
	get("/v1/actions", "/v1/actions?address="+w.addr.Hex())

	path := "/v1/yields/" + vault + "/balances"
	bal := e.mustCall(e.key10, "POST", path, map[string]string{"address": w.addr.Hex()}, 200, nil)
	e.checkContract(doc, "POST", "/v1/yields/{yieldId}/balances", path, bal)
	multi := e.mustCall(e.key10, "POST", "/v1/yields/balances",
		map[string]any{"queries": []map[string]string{{"address": w.addr.Hex(), "network": e.cat.Networks[0].ID}}}, 200, nil)
	e.checkContract(doc, "POST", "/v1/yields/balances", "/v1/yields/balances", multi)

	// Errors have the contract's shape too.
	for _, c := range []struct{ template, path string }{
		{"/v1/yields/{yieldId}/risk", "/v1/yields/nope/risk"},
		{"/v1/yields/{yieldId}/validators", "/v1/yields/nope/validators"},
		{"/v1/yields/{yieldId}/validators", "/v1/yields/" + vault + "/validators?limit=0"},
	} {
		r := e.call(e.key10, "GET", c.path, nil)
		if r.status < 400 || !strings.Contains(string(r.body), `"statusCode"`) {
			t.Errorf("GET %s: %d %s", c.path, r.status, r.body)
		}
		e.checkContract(doc, "GET", c.template, c.path, r)
	}
}
