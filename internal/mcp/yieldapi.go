package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// yieldAPI is the yield service's HTTP API, as one project (its X-API-KEY).
type yieldAPI struct {
	base, key string
	http      *http.Client
}

func newYieldAPI(base, key string) *yieldAPI {
	return &yieldAPI{base: strings.TrimSuffix(base, "/"), key: key, http: &http.Client{Timeout: 30 * time.Second}}
}

// maxYieldAnswer bounds what one answer of the yield service may be.
const maxYieldAnswer = 8 << 20

// yieldError is an answer of the yield service that is not a success: its status and its message ({message, error,
// statusCode}), which names the field at fault.
type yieldError struct {
	Status  int
	Message string
}

func (e *yieldError) Error() string {
	return fmt.Sprintf("the yield service answered %d: %s", e.Status, e.Message)
}

// do sends a request and returns the answer's JSON.
func (y *yieldAPI) do(ctx context.Context, method, path string, query url.Values, body any) (json.RawMessage, error) {
	u := y.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-KEY", y.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := y.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the yield service did not answer: %w", err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxYieldAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("the yield service's answer: %w", err)
	}
	if len(data) > maxYieldAnswer {
		return nil, fmt.Errorf("the yield service's answer is over %d bytes", maxYieldAnswer)
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(data, &e) != nil || e.Message == "" {
			e.Message = http.StatusText(res.StatusCode)
		}
		return nil, &yieldError{Status: res.StatusCode, Message: e.Message}
	}
	if !json.Valid(data) {
		return nil, errors.New("the yield service's answer is not JSON")
	}
	return data, nil
}

func (y *yieldAPI) get(ctx context.Context, path string, query url.Values) (json.RawMessage, error) {
	return y.do(ctx, http.MethodGet, path, query, nil)
}

// yield is the part of a YieldDto the server reads itself: the tokens, to describe amounts.
type yield struct {
	ID          string  `json:"id"`
	Network     string  `json:"network"`
	ChainID     string  `json:"chainId"`
	Token       token   `json:"token"`
	OutputToken *token  `json:"outputToken"`
	InputTokens []token `json:"inputTokens"`
	Tokens      []token `json:"tokens"`
}

type token struct {
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals int    `json:"decimals"`
	Address  string `json:"address"`
	Network  string `json:"network"`
}

// action is the part of an ActionDto the server reads: its transactions.
type action struct {
	ID           string        `json:"id"`
	YieldID      string        `json:"yieldId"`
	Address      string        `json:"address"`
	Intent       string        `json:"intent"`
	Status       string        `json:"status"`
	Transactions []transaction `json:"transactions"`
}

type transaction struct {
	ID                  string `json:"id"`
	Type                string `json:"type"`
	Title               string `json:"title"`
	Network             string `json:"network"`
	ChainID             string `json:"chainId"`
	Status              string `json:"status"`
	Hash                string `json:"hash"`
	StepIndex           int    `json:"stepIndex"`
	UnsignedTransaction string `json:"unsignedTransaction"`
}

// yieldByID reads one yield.
func (y *yieldAPI) yieldByID(ctx context.Context, id string) (*yield, json.RawMessage, error) {
	raw, err := y.get(ctx, "/v1/yields/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, nil, err
	}
	var out yield
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, fmt.Errorf("the yield service's yield: %w", err)
	}
	return &out, raw, nil
}

// action reads one action.
func (y *yieldAPI) action(ctx context.Context, id string) (*action, json.RawMessage, error) {
	raw, err := y.get(ctx, "/v1/actions/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, nil, err
	}
	var out action
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, fmt.Errorf("the yield service's action: %w", err)
	}
	return &out, raw, nil
}

// network is one of the yield service's networks. ChainID is its EVM chain id, 0 for a network that has none (the
// service gives chain ids as strings, such as "1" or "cosmoshub-4").
type network struct {
	ID      string
	Name    string
	ChainID int64
}

// networks lists the yield service's networks.
func (y *yieldAPI) networks(ctx context.Context) ([]network, json.RawMessage, error) {
	raw, err := y.get(ctx, "/v1/networks", nil)
	if err != nil {
		return nil, nil, err
	}
	var listed []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		ChainID string `json:"chainId"`
	}
	if err := json.Unmarshal(raw, &listed); err != nil {
		return nil, nil, fmt.Errorf("the yield service's networks: %w", err)
	}
	out := make([]network, len(listed))
	for i, n := range listed {
		out[i] = network{ID: n.ID, Name: n.Name}
		if id, err := strconv.ParseInt(n.ChainID, 10, 64); err == nil && id > 0 {
			out[i].ChainID = id
		}
	}
	return out, raw, nil
}
