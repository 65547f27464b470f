package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// RequestFunds asks a running dev chain's faucet (its FaucetURL) for funds, as `sigil chain fund`
// does. A refusal comes back as a *FaucetError with the faucet's code and message.
func RequestFunds(ctx context.Context, client *http.Client, faucetURL string, req FundRequest) (FundResponse, error) {
	if client == nil {
		client = http.DefaultClient
	}
	body, err := json.Marshal(req)
	if err != nil {
		return FundResponse{}, err
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, faucetURL, bytes.NewReader(body))
	if err != nil {
		return FundResponse{}, fmt.Errorf("chain: faucet request: %w", err)
	}
	httpReq.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(httpReq)
	if err != nil {
		return FundResponse{}, fmt.Errorf("chain: faucet at %s: %w", faucetURL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return FundResponse{}, fmt.Errorf("chain: read faucet answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e errorBody
		if json.Unmarshal(raw, &e) == nil && e.Code != "" {
			return FundResponse{}, &FaucetError{Code: e.Code, Message: e.Message}
		}
		return FundResponse{}, fmt.Errorf("chain: faucet at %s answered %s", faucetURL, resp.Status)
	}
	var out FundResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return FundResponse{}, fmt.Errorf("chain: faucet answer is not a funding result: %w", err)
	}
	return out, nil
}
