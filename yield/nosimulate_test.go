package yield

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"sigil/contracts"
)

// withoutSimulate is a JSON-RPC proxy to the dev chain that answers eth_simulateV1 as a node without it does.
func withoutSimulate(t *testing.T, upstream string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) != nil {
			batch = []json.RawMessage{body}
		}
		var keep []json.RawMessage
		var answers []any
		for _, raw := range batch {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(raw, &req)
			if req.Method == "eth_simulateV1" {
				answers = append(answers, map[string]any{"jsonrpc": "2.0", "id": req.ID,
					"error": map[string]any{"code": -32601, "message": "the method eth_simulateV1 does not exist/is not available"}})
				continue
			}
			keep = append(keep, raw)
		}
		if len(keep) > 0 {
			data, _ := json.Marshal(keep)
			res, err := http.Post(upstream, "application/json", bytes.NewReader(data))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer res.Body.Close()
			var got []any
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			answers = append(got, answers...)
		}
		w.Header().Set("Content-Type", "application/json")
		if len(batch) == 1 && body[0] != '[' {
			_ = json.NewEncoder(w).Encode(answers[0])
			return
		}
		_ = json.NewEncoder(w).Encode(answers)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Against a node without eth_simulateV1, independent steps are estimated and dependent ones get the kind's default
// gas limit; the transactions still execute.
func TestWithoutSimulateV1(t *testing.T) {
	n := devChain(t)
	proxy := withoutSimulate(t, n.RPCURL())
	e := newEnv(t, envOptions{edit: func(c *Catalogue) { c.Networks[0].RPCURL = proxy }})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "10"})
	a := w.act(e.key10, "enter", vault, map[string]any{"amount": "3"})
	if len(a.Transactions) != 2 {
		t.Fatalf("transactions %+v", a.Transactions)
	}
	if got := unsigned(t, a.Transactions[1]).GasLimit; got != hexutil.EncodeUint64(vaultDepositGas) {
		t.Fatalf("dependent step gas %s, want the default %d", got, vaultDepositGas)
	}
	if !e.svc.clients["sigil-dev"].noSimulate.Load() {
		t.Fatal("the service did not remember that the node cannot simulate")
	}
	w.execute(e.key10, a)
}
