package yieldagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The yield service and the chain are called with plain HTTP: these are all the fields the journey reads.

type yieldToken struct {
	Symbol   string `json:"symbol"`
	Address  string `json:"address"`
	Decimals int    `json:"decimals"`
}

type yieldItem struct {
	ID          string      `json:"id"`
	Token       yieldToken  `json:"token"`
	OutputToken *yieldToken `json:"outputToken"`
	RewardRate  struct {
		Total float64 `json:"total"`
	} `json:"rewardRate"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Mechanics struct {
		Type string `json:"type"`
	} `json:"mechanics"`
}

// vaultAddress is the vault contract of an ERC-4626 yield: its share token.
func (y yieldItem) vaultAddress() string {
	if y.OutputToken == nil {
		return ""
	}
	return y.OutputToken.Address
}

type transaction struct {
	ID                  string `json:"id"`
	Type                string `json:"type"`
	StepIndex           int    `json:"stepIndex"`
	UnsignedTransaction string `json:"unsignedTransaction"`
}

type action struct {
	ID           string        `json:"id"`
	Transactions []transaction `json:"transactions"`
}

type yieldAPI struct {
	base, key string
}

func (y *yieldAPI) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, y.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", y.key)
	req.Header.Set("Content-Type", "application/json")
	return send(req, out)
}

// usdcYield finds the protocol's USDC yield on the network, as the specification's discovery call does.
func (y *yieldAPI) usdcYield(ctx context.Context, network string, p protocol) (*yieldItem, error) {
	var page struct {
		Items []yieldItem `json:"items"`
	}
	q := url.Values{"network": {network}, "token": {"USDC"}, "provider": {p.provider}, "limit": {"10"}}
	if err := y.do(ctx, http.MethodGet, "/v1/yields?"+q.Encode(), nil, &page); err != nil {
		return nil, err
	}
	for _, it := range page.Items {
		if p.lending && it.Mechanics.Type == "lending" || !p.lending && it.Mechanics.Type == "vault" && hasSuffix(it.ID, "-4626-vault") {
			return &it, nil
		}
	}
	return nil, fmt.Errorf("no USDC %s of provider %s on %s among %d yields", p.noun, p.provider, network, len(page.Items))
}

// liveProtocol is the first protocol (in the order of Protocols) whose USDC yield on the network has a reward rate
// above 0, or "vault" when none has.
func (y *yieldAPI) liveProtocol(ctx context.Context, network string) string {
	for _, name := range Protocols() {
		if it, err := y.usdcYield(ctx, network, protocols[name]); err == nil && it.RewardRate.Total > 0 {
			return name
		}
	}
	return "vault"
}

// contractOf is the contract of a yield (a lending yield's pool), as its risk parameters name it.
func (y *yieldAPI) contractOf(ctx context.Context, yieldID string) (string, error) {
	var params []struct {
		Item  string         `json:"item"`
		Value map[string]any `json:"value"`
	}
	if err := y.do(ctx, http.MethodGet, "/v1/yields/"+yieldID+"/risk", nil, &params); err != nil {
		return "", err
	}
	for _, p := range params {
		if address, ok := p.Value["address"].(string); ok && p.Item == "contract_age" {
			return address, nil
		}
	}
	return "", fmt.Errorf("the risk parameters of %s name no contract", yieldID)
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

func (y *yieldAPI) action(ctx context.Context, intent, yieldID, address, amount string) (*action, error) {
	var a action
	body := map[string]any{"yieldId": yieldID, "address": address, "arguments": map[string]string{"amount": amount}}
	if err := y.do(ctx, http.MethodPost, "/v1/actions/"+intent, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func (y *yieldAPI) submitHash(ctx context.Context, txID, hash string) error {
	return y.do(ctx, http.MethodPut, "/v1/transactions/"+txID+"/submit-hash", map[string]string{"hash": hash}, nil)
}

// balances describes the address's balances in the yield, in token units.
// balances describes the address's balances in the yield ("active 100 USDC, ...") and returns the active amount
// ("0" when there is none), in token units.
func (y *yieldAPI) balances(ctx context.Context, yieldID, address string) (text, active string, err error) {
	var res struct {
		Balances []struct {
			Type   string     `json:"type"`
			Amount string     `json:"amount"`
			Token  yieldToken `json:"token"`
		} `json:"balances"`
	}
	if err := y.do(ctx, http.MethodPost, "/v1/yields/"+yieldID+"/balances", map[string]string{"address": address}, &res); err != nil {
		return "", "", err
	}
	if len(res.Balances) == 0 {
		return "nothing in the vault", "0", nil
	}
	var parts []string
	active = "0"
	for _, b := range res.Balances {
		parts = append(parts, fmt.Sprintf("%s %s %s", b.Type, b.Amount, b.Token.Symbol))
		if b.Type == "active" {
			active = b.Amount
		}
	}
	return strings.Join(parts, ", "), active, nil
}

// rpc is the chain's JSON-RPC.
type rpc struct{ url string }

func (r *rpc) call(ctx context.Context, method string, params []any, out any) error {
	body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	var res struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := send(req, &res); err != nil {
		return err
	}
	if res.Error != nil {
		return fmt.Errorf("%s: %s", method, res.Error.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.Result, out)
}

func (r *rpc) sendRawTransaction(ctx context.Context, signed string) (string, error) {
	var hash string
	err := r.call(ctx, "eth_sendRawTransaction", []any{signed}, &hash)
	return hash, err
}

// waitMined waits for the receipt and fails on a reverted transaction.
func (r *rpc) waitMined(ctx context.Context, hash string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var receipt *struct {
			Status string `json:"status"`
		}
		if err := r.call(ctx, "eth_getTransactionReceipt", []any{hash}, &receipt); err != nil {
			return err
		}
		if receipt != nil {
			if receipt.Status != "0x1" {
				return fmt.Errorf("reverted on chain")
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("not mined within 60 s")
}

func postJSON(ctx context.Context, url string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return send(req, out)
}

// send does a request and decodes a JSON answer; an error status becomes an error carrying the service's message.
func send(req *http.Request, out any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode >= 300 {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &e)
		if e.Message == "" {
			e.Message = string(data)
		}
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, e.Message)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}
