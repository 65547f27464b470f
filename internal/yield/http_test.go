package yield

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// offlineAPI is the service's handler over a catalogue whose nodes are never reached, with a key: enough for every
// refusal that comes before the chain is read.
func offlineAPI(t *testing.T) (http.Handler, string, *Service) {
	t.Helper()
	b := testdb.SQLite(t)
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := New(Config{Catalogue: validCatalogue(), Store: st, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	key, _, err := NewAPIKey(context.Background(), st, "p", 10, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return svc.Handler(), key, svc
}

// Request bodies are decoded strictly, and every refusal is in the reference's shape: unknown fields (at the top and in
// arguments), wrong types, a mixed-case address whose EIP-55 checksum is wrong, and a body over 64 KiB.
func TestRequestBodiesAreStrict(t *testing.T) {
	t.Parallel()
	h, key, svc := offlineAPI(t)
	vault := svc.yields[0].cfg.ID
	const good = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	const wrongChecksum = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"
	for _, tc := range []struct {
		name, path, body string
		status           int
		message          string
	}{
		{"unknown field", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + good + `","arguments":{"amount":"1"},"amountt":"1"}`,
			400, "amountt: unknown field"},
		{"unknown argument", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + good + `","arguments":{"amount":"1","validator":"x"}}`,
			400, "arguments.validator: unknown field"},
		{"argument of a wrong type", "/v1/actions/exit", `{"yieldId":"` + vault + `","address":"` + good + `","arguments":{"useMaxAmount":"yes"}}`,
			400, "arguments.useMaxAmount: expected boolean, got string"},
		{"missing address", "/v1/actions/enter", `{"yieldId":"` + vault + `","arguments":{"amount":"1"}}`, 400, "address: required field is missing"},
		{"duplicate key", "/v1/actions/enter", `{"yieldId":"` + vault + `","yieldId":"other","address":"` + good + `"}`, 400, `duplicate key "yieldId"`},
		{"wrong checksum", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + wrongChecksum + `","arguments":{"amount":"1"}}`,
			400, "address: \"" + wrongChecksum + "\" has an invalid EIP-55 checksum (expected " + good + ")"},
		{"wrong checksum of the receiver", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + good +
			`","arguments":{"amount":"1","receiverAddress":"` + wrongChecksum + `"}}`, 400, "arguments.receiverAddress: \"" + wrongChecksum + "\" has an invalid EIP-55"},
		{"wrong checksum in a balance query", "/v1/yields/balances", `{"queries":[{"address":"` + wrongChecksum + `","network":"base"}]}`,
			400, "queries.address: \"" + wrongChecksum + "\" has an invalid EIP-55"},
		{"unknown field in a balance query", "/v1/yields/balances", `{"queries":[{"address":"` + good + `","chain":"base"}]}`,
			400, "queries[0].chain: unknown field"},
		{"unknown field of a hash", "/v1/transactions/x/submit-hash", `{"hash":"0x12","txHash":"0x12"}`, 400, "txHash: unknown field"},
		{"not JSON", "/v1/actions/enter", `{"yieldId":`, 400, "request body: malformed JSON"},
		{"oversized", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + good + `","arguments":{"amount":"` + strings.Repeat("1", maxBodyBytes) + `"}}`,
			413, "larger than the limit of 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			method := http.MethodPost
			if strings.HasSuffix(tc.path, "submit-hash") {
				method = http.MethodPut
			}
			req := httptest.NewRequest(method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("X-API-KEY", key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			checkErrorShape(t, response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}, tc.status, tc.message)
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

// The all-lower-case and all-upper-case forms of an address carry no checksum and are accepted as they are.
func TestUnchecksummedAddressesAreAccepted(t *testing.T) {
	t.Parallel()
	h, key, _ := offlineAPI(t)
	for _, addr := range []string{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED"} {
		req := httptest.NewRequest(http.MethodGet, "/v1/actions?address="+addr, nil)
		req.Header.Set("X-API-KEY", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var page struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != 200 || err != nil || page.Items == nil {
			t.Fatalf("%s: %d %s", addr, rec.Code, rec.Body)
		}
	}
}
