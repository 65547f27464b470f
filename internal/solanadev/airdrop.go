package solanadev

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// RequestAirdrop asks a node at url for lamports to address (requestAirdrop) and returns the transfer's signature.
func RequestAirdrop(ctx context.Context, url, address string, lamports uint64) (string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop", "params": []any{address, lamports}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		Result string
		Error  *rpcError
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return "", fmt.Errorf("%s answered %s, not JSON-RPC: %w", url, resp.Status, err)
	}
	if r.Error != nil {
		return "", fmt.Errorf("requestAirdrop: %s", r.Error.Message)
	}
	return r.Result, nil
}
