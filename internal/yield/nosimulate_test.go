package yield

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/contracts"
)

// rpcCall is one JSON-RPC call of a request to the proxy; params keep JSON numbers as they came.
type rpcCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  []any           `json:"params"`
}

// rpcProxy is a JSON-RPC proxy to the dev chain through which a test plays another node: edit sees each call (batched
// or not) and may change its params in place, or return an error object that answers the call instead of the chain.
func rpcProxy(t *testing.T, upstream string, edit func(c *rpcCall) map[string]any) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var raws []json.RawMessage
		single := json.Unmarshal(body, &raws) != nil
		if single {
			raws = []json.RawMessage{body}
		}
		var keep []rpcCall
		var answers []any
		for _, raw := range raws {
			var c rpcCall
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&c); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if e := edit(&c); e != nil {
				answers = append(answers, map[string]any{"jsonrpc": "2.0", "id": c.ID, "error": e})
				continue
			}
			keep = append(keep, c)
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
		if single {
			_ = json.NewEncoder(w).Encode(answers[0])
			return
		}
		_ = json.NewEncoder(w).Encode(answers)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// noSimulateV1 answers eth_simulateV1 as a node without it does.
func noSimulateV1(c *rpcCall) map[string]any {
	if c.Method == "eth_simulateV1" {
		return map[string]any{"code": -32601, "message": "the method eth_simulateV1 does not exist/is not available"}
	}
	return nil
}

// Against a node without eth_simulateV1, independent steps are estimated and dependent ones get the kind's default
// gas limit; the transactions still execute.
func TestWithoutSimulateV1(t *testing.T) {
	n := devChain(t)
	proxy := rpcProxy(t, n.RPCURL(), noSimulateV1)
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

// Every call object carries its calldata as both "input" and "data", equal, so that a node reading only "data" (an
// older one) runs the same calls as one reading "input": reads, eth_call, eth_estimateGas and eth_simulateV1, with and
// without eth_simulateV1.
func TestCalldataAsInputAndData(t *testing.T) {
	n := devChain(t)
	for _, simulate := range []bool{true, false} {
		t.Run(map[bool]string{true: "simulateV1", false: "no simulateV1"}[simulate], func(t *testing.T) {
			var mu sync.Mutex // the proxy serves each request on a goroutine of its own
			seen := map[string]int{}
			// The proxy checks each call object and keeps only "data", as an older node reads it.
			onlyData := func(call any) {
				m, _ := call.(map[string]any)
				input, data := m["input"], m["data"]
				if input == nil || data == nil || input != data {
					t.Errorf("call object %v: input %v and data %v, want both, equal", m, input, data)
				}
				delete(m, "input")
			}
			proxy := rpcProxy(t, n.RPCURL(), func(c *rpcCall) map[string]any {
				if !simulate {
					if e := noSimulateV1(c); e != nil {
						return e
					}
				}
				switch c.Method {
				case "eth_call", "eth_estimateGas":
					onlyData(c.Params[0])
				case "eth_simulateV1":
					for _, block := range c.Params[0].(map[string]any)["blockStateCalls"].([]any) {
						for _, call := range block.(map[string]any)["calls"].([]any) {
							onlyData(call)
						}
					}
				default:
					return nil
				}
				mu.Lock()
				seen[c.Method]++
				mu.Unlock()
				return nil
			})
			e := newEnv(t, envOptions{edit: func(c *Catalogue) { c.Networks[0].RPCURL = proxy }})
			vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
			w := e.newWallet("1", map[string]string{"USDC": "10"})
			a := w.act(e.key10, "enter", vault, map[string]any{"amount": "3"})
			approvalGas := hexutil.MustDecodeUint64(unsigned(t, a.Transactions[0]).GasLimit)
			depositGas := hexutil.MustDecodeUint64(unsigned(t, a.Transactions[1]).GasLimit)
			// Gas limits measured on the approval's real calldata: a transfer-sized call would be about 21,000.
			if approvalGas < 30_000 || approvalGas >= 300_000 || simulate == (depositGas == vaultDepositGas) {
				t.Fatalf("gas limits %d and %d", approvalGas, depositGas)
			}
			w.execute(e.key10, a)
			mu.Lock()
			defer mu.Unlock()
			want := []string{"eth_call", "eth_simulateV1"}
			if !simulate {
				want = []string{"eth_call", "eth_estimateGas"}
			}
			for _, m := range want {
				if seen[m] == 0 {
					t.Fatalf("no %s went through the node (%v)", m, seen)
				}
			}
		})
	}
}
