package solana

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// RPC calls a Solana cluster's JSON-RPC API.
type RPC struct {
	URL  string
	HTTP *http.Client
}

// NewRPC is a client of the cluster at url, each call bounded by 15 seconds.
func NewRPC(url string) *RPC {
	return &RPC{URL: url, HTTP: &http.Client{Timeout: 15 * time.Second}}
}

// RPCError is an error the cluster answered: its JSON-RPC code, message and data.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// ErrNoAnswer marks a call the cluster did not answer (unreachable, a timeout, not JSON-RPC), as opposed to an
// *RPCError, which it did.
var ErrNoAnswer = errors.New("the cluster did not answer")

// Call makes one call and decodes its result into out.
func (c *RPC) Call(ctx context.Context, method string, out any, params ...any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%w: %s answered %s, not JSON-RPC: %v", ErrNoAnswer, method, resp.Status, err)
	}
	if r.Error != nil {
		return r.Error
	}
	return json.Unmarshal(r.Result, out)
}
