// Package solanarpc is a client of a Solana cluster's JSON-RPC API: one call at a time, the cluster's errors kept
// apart from its silence. The send worker and the balance watcher call it.
package solanarpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Client calls a Solana cluster's JSON-RPC API.
type Client struct {
	URL  string
	HTTP *http.Client
}

// New is a client of the cluster at url, each call bounded by 15 seconds.
func New(url string) *Client {
	return &Client{URL: url, HTTP: &http.Client{Timeout: 15 * time.Second}}
}

// Error is an error the cluster answered: its JSON-RPC code, message and data.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// ErrNoAnswer marks a call the cluster did not answer (unreachable, a timeout, not JSON-RPC), as opposed to an
// *Error, which it did.
var ErrNoAnswer = errors.New("the cluster did not answer")

// Call makes one call and decodes its result into out.
func (c *Client) Call(ctx context.Context, method string, out any, params ...any) error {
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
		Error  *Error          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%w: %s answered %s, not JSON-RPC: %v", ErrNoAnswer, method, resp.Status, err)
	}
	if r.Error != nil {
		return r.Error
	}
	return json.Unmarshal(r.Result, out)
}
