package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	sigilmcp "github.com/sigil/sigil/internal/mcp"
)

// A wrong argument is a tool error that names it, before anything is asked of the coordinator or the yield service.
func TestArgumentsAreValidated(t *testing.T) {
	for _, over := range transports {
		t.Run(over, func(t *testing.T) {
			a := newAgent(t, theStack(t, "sqlite"), over, nil)
			for _, c := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": a.address, "amount": "1e5"}, "amount"},
				{"actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": a.address, "amount": 100.5}, "amount"},
				{"actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": "0x1234", "amount": "1"}, "walletAddress"},
				{"actions_enter", map[string]any{"yieldId": a.yieldID, "amount": "1"}, "walletAddress"},
				{"actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": a.address, "amount": "1", "privateKey": "0x01"}, "privateKey"},
				{"yields_get", map[string]any{}, "yieldId"},
				{"yields_get", map[string]any{"yieldId": strings.Repeat("y", 300)}, "yieldId"},
				{"yields_get_all", map[string]any{"limit": 1000}, "limit"},
				{"send_transaction", map[string]any{"unsignedTransaction": "{not json"}, "unsignedTransaction"},
				{"send_raw_transaction", map[string]any{"signedTransaction": "0xzz"}, "signedTransaction"},
				{"get_transaction", map[string]any{"transactionId": 7}, "transactionId"},
				{"activities_get", map[string]any{"activityId": "x", "waitSeconds": 9999}, "waitSeconds"},
				{"evaluate_activity", map[string]any{}, ""},
			} {
				res, err := a.session.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil {
					t.Errorf("%s(%v): a protocol error (%v), not a tool error", c.tool, c.args, err)
					continue
				}
				if !res.IsError || !strings.Contains(text(res), c.want) {
					t.Errorf("%s(%v) = %q, want a tool error naming %q", c.tool, c.args, text(res), c.want)
				}
			}
		})
	}
}

// An unknown tool and an oversized call are MCP errors, and the session goes on serving.
func TestMalformedCallsAreMCPErrors(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overHTTP, nil)
	ctx := context.Background()
	if _, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool answered")
	}
	huge := map[string]any{"yieldId": strings.Repeat("y", sigilmcp.MaxArgumentBytes)}
	_, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: "yields_get", Arguments: huge})
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("an oversized call: %v", err)
	}
	a.ok("networks_get_all", map[string]any{})
}

// The HTTP transport refuses a request without its bearer token, a body over its limit and malformed JSON, in the
// edge's error shape.
func TestHTTPTransportRefuses(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overHTTP, nil)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		name, token, body string
		status            int
	}{
		{"no token", "", initialize, http.StatusUnauthorized},
		{"a wrong token", "not-the-token-at-all", initialize, http.StatusUnauthorized},
		{"an oversized body", testToken, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", sigilmcp.DefaultMaxHTTPBody) + `"}}`, http.StatusRequestEntityTooLarge},
		{"malformed JSON", testToken, `{"jsonrpc":`, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(http.MethodPost, a.httpURL()+sigilmcp.MCPPath, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, res.StatusCode, buf.String(), c.status)
		}
		if c.status == http.StatusUnauthorized {
			var shape struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(buf.Bytes(), &shape) != nil || shape.Message == "" {
				t.Errorf("%s: body %s is not the error shape", c.name, buf.String())
			}
		}
	}
}

// A session over its rate limit gets an MCP error saying when to try again, another session is not held up by it,
// and the session may call again once its bucket has refilled (on the injected clock).
func TestRateLimitPerSession(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	a := newAgent(t, theStack(t, "sqlite"), overStdio, func(c *sigilmcp.Config) { c.RateLimit, c.Burst, c.Now = 60, 2, clock.Now })
	ctx := context.Background()
	call := func(s *mcp.ClientSession) error {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "providers_get_all", Arguments: map[string]any{}})
		return err
	}
	for i := 0; i < 2; i++ {
		if err := call(a.session); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	err := call(a.session)
	if err == nil || !strings.Contains(err.Error(), "rate limit") || !strings.Contains(err.Error(), "try again in 1s") {
		t.Fatalf("the call over the limit: %v", err)
	}
	if err := call(a.connect(overStdio)); err != nil {
		t.Errorf("another session was limited too: %v", err)
	}
	clock.advance(time.Second)
	if err := call(a.session); err != nil {
		t.Errorf("after a second: %v", err)
	}
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Outside data comes back inside untrusted-content blocks, and a token name cannot close its block.
func TestOutsideDataIsMarkedUntrusted(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overStdio, nil)
	res := a.call("yields_get", map[string]any{"yieldId": a.yieldID})
	if res.IsError || len(res.Content) < 2 {
		t.Fatalf("yields_get: %s", text(res))
	}
	first := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(first, "<untrusted-content") || strings.Contains(first, a.yieldID+"\"") && strings.Contains(first, "metadata") {
		t.Errorf("Sigil's own block holds the yield's metadata: %s", first)
	}
	block := res.Content[1].(*mcp.TextContent).Text
	if !strings.Contains(block, `<untrusted-content source="yield service">`) || !strings.HasSuffix(block, "</untrusted-content>") ||
		strings.Count(block, "</untrusted-content>") != 1 {
		t.Errorf("the yield's block: %s", block)
	}
}

// The resources show the agent's policies and activities; the prompt walks the journey and refuses a bad amount.
func TestResourcesAndPrompt(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overHTTP, nil)
	ctx := context.Background()
	res, err := a.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sigil://policies"})
	if err != nil {
		t.Fatal(err)
	}
	var policies []struct {
		PolicyName    string `json:"policyName"`
		NamesThisUser bool   `json:"namesThisUser"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &policies); err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, p := range policies {
		if p.NamesThisUser {
			mine++
		}
	}
	if mine != 4 {
		t.Errorf("%d policies name the agent, want its 4: %+v", mine, policies)
	}
	if _, err := a.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sigil://activities/recent"}); err != nil {
		t.Error(err)
	}
	p, err := a.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "yield_journey", Arguments: map[string]string{"amount": "250"}})
	if err != nil || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, `amount "250"`) {
		t.Errorf("the prompt: %v %v", p, err)
	}
	if _, err := a.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "yield_journey", Arguments: map[string]string{"amount": "lots"}}); err == nil {
		t.Error("the prompt took amount \"lots\"")
	}
}

// Every tool documents its arguments with a schema that has an example, and none takes key material.
func TestToolsAreDocumented(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overStdio, nil)
	list, err := a.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
		raw, _ := json.Marshal(tool.InputSchema)
		if tool.Description == "" || !strings.Contains(string(raw), `"examples"`) {
			t.Errorf("%s: description %q, schema %s", tool.Name, tool.Description, raw)
		}
		for _, secret := range []string{"privateKey", "mnemonic", "apiKey", "seed"} {
			if strings.Contains(strings.ToLower(string(raw)), strings.ToLower(`"`+secret+`"`)) {
				t.Errorf("%s takes %s", tool.Name, secret)
			}
		}
	}
	for _, want := range yieldXYZTools {
		if !names[want] {
			t.Errorf("no tool %s (Yield.xyz's name)", want)
		}
	}
}

// yieldXYZTools are the tools of Yield.xyz's MCP server, which a skill written for it calls by name.
var yieldXYZTools = []string{"yields_get_all", "yields_get", "yields_get_validators", "yields_get_balances",
	"yields_get_reward_rate_history", "yields_get_tvl_history", "yields_get_risk", "actions_enter", "actions_exit",
	"actions_manage", "actions_get", "actions_get_all", "submit_hash", "get_transaction", "networks_get_all", "providers_get_all"}
