package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/abis"
)

// chains reaches the networks' nodes over JSON-RPC: reads for describing amounts and balances, and simulations.
type chains struct {
	rpc  map[int64]string
	http *http.Client

	mu     sync.Mutex
	tokens map[tokenKey]tokenMeta // what a token says of itself: immutable in practice, read once
}

type tokenKey struct {
	chainID int64
	address common.Address
}

// tokenMeta is a token's symbol and decimals as its contract answers them.
type tokenMeta struct {
	Symbol   string
	Decimals uint8
}

func newChains(networks []Network) *chains {
	c := &chains{rpc: map[int64]string{}, http: &http.Client{Timeout: 20 * time.Second}, tokens: map[tokenKey]tokenMeta{}}
	for _, n := range networks {
		c.rpc[n.ChainID] = n.RPCURL
	}
	return c
}

// has says whether the server reaches a node of the chain.
func (c *chains) has(chainID int64) bool { _, ok := c.rpc[chainID]; return ok }

// rpcCall is one JSON-RPC call of a batch, and what came back.
type rpcCall struct {
	Method string
	Params []any
	Result json.RawMessage
	Err    *rpcError
}

// rpcError is a node's JSON-RPC error; Data holds revert data for eth_call and eth_estimateGas.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// codeMethodNotFound is JSON-RPC's: a node without the method (eth_simulateV1 on older clients).
const codeMethodNotFound = -32601

// maxRPCAnswer bounds a node's answer.
const maxRPCAnswer = 8 << 20

// batch sends the calls to the chain's node in one request.
func (c *chains) batch(ctx context.Context, chainID int64, calls []*rpcCall) error {
	url, ok := c.rpc[chainID]
	if !ok {
		return fmt.Errorf("no node of chain %d is configured (sigil mcp --rpc eip155:%d=URL)", chainID, chainID)
	}
	type request struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  []any  `json:"params"`
	}
	reqs := make([]request, len(calls))
	for i, call := range calls {
		reqs[i] = request{JSONRPC: "2.0", ID: i, Method: call.Method, Params: call.Params}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("chain %d's node did not answer: %w", chainID, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxRPCAnswer+1))
	if err != nil || len(data) > maxRPCAnswer {
		return fmt.Errorf("chain %d's node: the answer could not be read whole", chainID)
	}
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(data, &answers); err != nil {
		return fmt.Errorf("chain %d's node answered %d with no JSON-RPC batch", chainID, res.StatusCode)
	}
	for _, a := range answers {
		if a.ID >= 0 && a.ID < len(calls) {
			calls[a.ID].Result, calls[a.ID].Err = a.Result, a.Error
		}
	}
	for i, call := range calls {
		if call.Result == nil && call.Err == nil {
			return fmt.Errorf("chain %d's node left call %d (%s) unanswered", chainID, i, call.Method)
		}
	}
	return nil
}

// call is a batch of one, its error the node's.
func (c *chains) call(ctx context.Context, chainID int64, method string, out any, params ...any) error {
	call := &rpcCall{Method: method, Params: params}
	if err := c.batch(ctx, chainID, []*rpcCall{call}); err != nil {
		return err
	}
	if call.Err != nil {
		return call.Err
	}
	return json.Unmarshal(call.Result, out)
}

// reads sends view calls in one batch; a call the node did not answer is left with its error (or no result), for the
// caller to skip.
func (c *chains) reads(ctx context.Context, chainID int64, calls []*rpcCall) {
	if len(calls) == 0 || !c.has(chainID) {
		return
	}
	if err := c.batch(ctx, chainID, calls); err != nil {
		for _, call := range calls {
			call.Result, call.Err = nil, &rpcError{Message: err.Error()}
		}
	}
}

// viewCall is an eth_call of a contract's view function at the latest block.
func viewCall(to common.Address, data []byte) *rpcCall {
	return &rpcCall{Method: "eth_call", Params: []any{map[string]string{"to": to.Hex(), "data": hexutil.Encode(data)}, "latest"}}
}

// tokenMetas reads the symbol and decimals of each token (from the cache, or in one batch for those not read yet). A
// token whose contract does not answer them is left out.
func (c *chains) tokenMetas(ctx context.Context, chainID int64, addrs []common.Address) map[common.Address]tokenMeta {
	out := map[common.Address]tokenMeta{}
	var missing []common.Address
	c.mu.Lock()
	for _, a := range addrs {
		if m, ok := c.tokens[tokenKey{chainID, a}]; ok {
			out[a] = m
		} else if !containsAddress(missing, a) {
			missing = append(missing, a)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 || !c.has(chainID) {
		return out
	}
	symbol, _ := abis.ERC20.Pack("symbol")
	decimals, _ := abis.ERC20.Pack("decimals")
	var calls []*rpcCall
	for _, a := range missing {
		calls = append(calls, viewCall(a, symbol), viewCall(a, decimals))
	}
	if c.batch(ctx, chainID, calls) != nil {
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range missing {
		s, d := calls[2*i], calls[2*i+1]
		if s.Err != nil || d.Err != nil {
			continue
		}
		var sym string
		var dec uint8
		if unpack(abis.ERC20.Unpack, "symbol", s.Result, &sym) != nil || unpack(abis.ERC20.Unpack, "decimals", d.Result, &dec) != nil {
			continue
		}
		m := tokenMeta{Symbol: sym, Decimals: dec}
		c.tokens[tokenKey{chainID, a}] = m
		out[a] = m
	}
	return out
}

// vaultAssets reads asset() of each ERC-4626 vault; one that does not answer is left out.
func (c *chains) vaultAssets(ctx context.Context, chainID int64, vaults []common.Address) map[common.Address]common.Address {
	out := map[common.Address]common.Address{}
	if len(vaults) == 0 || !c.has(chainID) {
		return out
	}
	asset, _ := abis.ERC4626.Pack("asset")
	calls := make([]*rpcCall, len(vaults))
	for i, v := range vaults {
		calls[i] = viewCall(v, asset)
	}
	if c.batch(ctx, chainID, calls) != nil {
		return out
	}
	for i, v := range vaults {
		var a common.Address
		if calls[i].Err == nil && unpack(abis.ERC4626.Unpack, "asset", calls[i].Result, &a) == nil {
			out[v] = a
		}
	}
	return out
}

// unpack decodes the single return value of a view function's answer (a 0x hex string) into out.
func unpack(fn func(string, []byte) ([]any, error), method string, result json.RawMessage, out any) error {
	var h string
	if err := json.Unmarshal(result, &h); err != nil {
		return err
	}
	data, err := hexutil.Decode(h)
	if err != nil {
		return err
	}
	vals, err := fn(method, data)
	if err != nil || len(vals) != 1 {
		return errors.Join(err, errors.New("not one value"))
	}
	switch o := out.(type) {
	case *string:
		v, ok := vals[0].(string)
		if !ok {
			return errors.New("not a string")
		}
		*o = v
	case *uint8:
		v, ok := vals[0].(uint8)
		if !ok {
			return errors.New("not a uint8")
		}
		*o = v
	case *common.Address:
		v, ok := vals[0].(common.Address)
		if !ok {
			return errors.New("not an address")
		}
		*o = v
	default:
		return fmt.Errorf("unpack into %T", out)
	}
	return nil
}

func containsAddress(list []common.Address, a common.Address) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// safeSymbol is a token's symbol as Sigil repeats it in its own words: short letters, digits and a few signs. Anything
// else (a name written to talk to an agent) is not repeated; the token is then named by its address.
func safeSymbol(s string) string {
	if s == "" || len(s) > 16 {
		return ""
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune(".-_+$", r):
		default:
			return ""
		}
	}
	return s
}
