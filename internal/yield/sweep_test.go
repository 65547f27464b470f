package yield

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/mutate"
)

// Every request body the API takes, sent with one field (at any depth) missing, null, of another JSON type, or a
// hostile string: each is answered in the reference's error shape with a client error, never a server error, or
// carried out.
func TestEveryBodyRefusesBadFields(t *testing.T) {
	e := newEnv(t, envOptions{})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	staking := e.yieldID(KindNativeStaking, "", "ETH")
	w := e.newWallet("1", map[string]string{"USDC": "50"})
	addr := w.addr.Hex()
	entered := w.act(e.key10, "enter", vault, map[string]any{"amount": "1"})
	tx := entered.Transactions[0].ID
	bodies := []struct {
		method, path string
		body         string
	}{
		{"POST", "/v1/actions/enter", `{"yieldId":"` + vault + `","address":"` + addr + `","arguments":{"amount":"1","receiverAddress":"` + addr + `"}}`},
		{"POST", "/v1/actions/exit", `{"yieldId":"` + vault + `","address":"` + addr + `","arguments":{"amount":"1"}}`},
		{"POST", "/v1/actions/exit", `{"yieldId":"` + vault + `","address":"` + addr + `","arguments":{"useMaxAmount":true}}`},
		{"POST", "/v1/actions/manage", `{"yieldId":"` + staking + `","address":"` + addr + `","action":"WITHDRAW","passthrough":"x"}`},
		{"POST", "/v1/yields/" + vault + "/balances", `{"address":"` + addr + `"}`},
		{"POST", "/v1/yields/balances", `{"queries":[{"yieldId":"` + vault + `","address":"` + addr + `","network":"` + e.cat.Yields[0].Network + `"}]}`},
		{"PUT", "/v1/transactions/" + tx + "/submit-hash", `{"hash":"0x` + strings.Repeat("ab", 32) + `"}`},
		{"POST", "/v1/transactions/" + tx + "/submit", `{"signedTransaction":"0x02"}`},
		{"POST", "/v1/webhooks", `{"url":"https://example.com/hook","secret":"` + strings.Repeat("s", 24) + `","events":["transaction.status_changed"]}`},
	}
	for _, b := range bodies {
		for _, m := range mutate.Mutants("body", json.RawMessage(b.body)) {
			raw, _ := json.Marshal(m.Value)
			r := e.call(e.key10, b.method, b.path, rawBody(raw))
			if r.status < 300 {
				continue
			}
			var shape struct {
				Message    string `json:"message"`
				Error      string `json:"error"`
				StatusCode int    `json:"statusCode"`
			}
			_ = json.Unmarshal(r.body, &shape)
			if r.status >= 500 || shape.StatusCode != r.status || shape.Error != http.StatusText(r.status) || shape.Message == "" || utf8.RuneCountInString(shape.Message) > 1000 {
				t.Errorf("%s %s, %s: %d %.300s", b.method, b.path, m.Name, r.status, r.body)
			}
		}
	}
}
