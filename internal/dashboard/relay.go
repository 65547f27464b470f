package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sigil/sigil/internal/edge"
)

// Chain is an EVM network whose balances the page shows. The page reads it through the relay at /rpc/{caip2},
// which passes on only the reads a balance needs: the node's URL, which may carry a provider's key, stays on the
// server, and nodes need not allow the page's origin.
type Chain struct {
	CAIP2  string   `json:"caip2"` // eip155:<chain id>
	Name   string   `json:"name"`
	RPCURL string   `json:"-"`
	Tokens []string `json:"tokens,omitempty"` // ERC-20 contracts whose balances are shown beside the native coin's
}

const (
	maxRelayBody  = 64 << 10
	maxRelayCalls = 100
	maxRelayReply = 1 << 20
	relayTimeout  = 10 * time.Second
)

// relayedCalls are the only eth_call functions relayed, by selector: an ERC-20 balance and what it takes to show it.
var relayedCalls = map[string]bool{
	"0x70a08231": true, // balanceOf(address)
	"0x313ce567": true, // decimals()
	"0x95d89b41": true, // symbol()
}

type rpcCall struct {
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

// relay answers POST /rpc/{caip2}: a JSON-RPC call or batch of reads, passed on to the chain's node unchanged.
func relay(chains []Chain) http.Handler {
	byID := map[string]Chain{}
	for _, c := range chains {
		byID[c.CAIP2] = c
	}
	client := &http.Client{Timeout: relayTimeout}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chain, ok := byID[r.PathValue("caip2")]
		if !ok {
			_ = edge.WriteJSON(w, http.StatusNotFound, map[string]string{"message": fmt.Sprintf("no chain %q is configured", r.PathValue("caip2"))})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRelayBody))
		if err == nil {
			err = checkReads(body)
		}
		if err != nil {
			_ = edge.WriteJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, chain.RPCURL, bytes.NewReader(body))
		if err != nil {
			_ = edge.WriteJSON(w, http.StatusInternalServerError, map[string]string{"message": "the node's URL of " + chain.Name + " is not valid"})
			return
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			_ = edge.WriteJSON(w, http.StatusBadGateway, map[string]string{"message": "the node of " + chain.Name + " does not answer"})
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, io.LimitReader(res.Body, maxRelayReply))
	})
}

// checkReads accepts a call or a batch of at most maxRelayCalls calls, each one of the reads a balance needs.
func checkReads(body []byte) error {
	var calls []rpcCall
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &calls); err != nil {
			return fmt.Errorf("not a JSON-RPC batch: %w", err)
		}
	} else {
		var c rpcCall
		if err := json.Unmarshal(trimmed, &c); err != nil {
			return fmt.Errorf("not a JSON-RPC call: %w", err)
		}
		calls = []rpcCall{c}
	}
	if len(calls) == 0 || len(calls) > maxRelayCalls {
		return fmt.Errorf("a batch holds 1 to %d calls, not %d", maxRelayCalls, len(calls))
	}
	for i, c := range calls {
		if err := checkRead(c); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
	}
	return nil
}

func checkRead(c rpcCall) error {
	switch c.Method {
	case "eth_chainId", "eth_blockNumber", "eth_getBalance":
		return nil
	case "eth_call":
		var tx struct {
			Data  string `json:"data"`
			Input string `json:"input"`
		}
		if len(c.Params) == 0 || json.Unmarshal(c.Params[0], &tx) != nil {
			return fmt.Errorf("eth_call takes a call object")
		}
		data := strings.ToLower(tx.Data + tx.Input)
		if len(data) < 10 || !relayedCalls[data[:10]] || (tx.Data != "" && tx.Input != "") {
			return fmt.Errorf("eth_call is relayed for balanceOf, decimals and symbol only")
		}
		return nil
	default:
		return fmt.Errorf("%q is not relayed: the dashboard reads balances only", c.Method)
	}
}

// yieldRelay passes the page's reads of the yield service on to it: the yields with their rates, an address's
// positions and a yield's share prices over time. The yield API key is the page's, sent with each request (the
// server keeps none); the service answers in its own error shape.
func yieldRelay(base string) http.Handler {
	client := &http.Client{Timeout: relayTimeout}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := strings.TrimSuffix(base, "/") + strings.TrimPrefix(r.URL.Path, "/yield")
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, target, http.MaxBytesReader(w, r.Body, maxRelayBody))
		if err != nil {
			_ = edge.WriteJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
			return
		}
		req.Header.Set("X-API-KEY", r.Header.Get("X-API-KEY"))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			_ = edge.WriteJSON(w, http.StatusBadGateway, map[string]string{"message": "the yield service does not answer"})
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, io.LimitReader(res.Body, maxRelayReply))
	})
}
