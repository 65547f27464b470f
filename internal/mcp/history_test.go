package mcp_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/client"
	sigilmcp "github.com/sigil/sigil/internal/mcp"
)

// The reward rate history is computed from the share prices as the yield service gives them (JSON numbers): a share
// worth 1.0 and then 1.0001 a day later compounds to (1.0001)^365 - 1 a year.
func TestRewardRateHistoryFromSharePrices(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	day := now.Truncate(24 * time.Hour).Add(-24 * time.Hour)
	yieldSvc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/yields/y1/share-prices" || r.Header.Get("X-API-KEY") != "key" {
			http.NotFound(w, r)
			return
		}
		// The yield service's own shape (internal/yield/history.go): price a JSON number.
		json.NewEncoder(w).Encode(map[string]any{"yieldId": "y1", "items": []map[string]any{
			{"blockNumber": 1, "timestamp": day.Format(time.RFC3339), "price": 1.0},
			{"blockNumber": 2, "timestamp": day.Add(24*time.Hour - time.Second).Format(time.RFC3339), "price": 1.0001},
		}})
	}))
	defer yieldSvc.Close()
	srv, err := sigilmcp.New(sigilmcp.Config{Coordinator: client.New("http://127.0.0.1:1", nil), OrganizationID: "org",
		YieldURL: yieldSvc.URL, YieldAPIKey: "key", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "yields_get_reward_rate_history", Arguments: map[string]any{"yieldId": "y1", "period": "7d"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	got := structured(t, res)
	items, _ := path(got, "sigil.items").([]any)
	if len(items) != 1 || str(items[0], "timestamp") != day.Format(time.RFC3339) {
		t.Fatalf("history: %v", got)
	}
	rate, _ := path(items[0], "rewardRate").(float64)
	want := math.Pow(1.0001, 365*24*3600/float64(24*3600-1)) - 1
	if math.Abs(rate-want) > 1e-9 {
		t.Errorf("rate %v, want %v", rate, want)
	}
}
