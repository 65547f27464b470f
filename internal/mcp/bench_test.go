package mcp_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
)

// BenchmarkToolOverhead measures what a tool call costs over the direct API call it wraps, in interleaved rounds (one
// direct call, then the tool over stdio, then over Streamable HTTP, round after round), so that the machine's load
// weighs on each alike: yields_get over GET /v1/yields/{id} of the yield service, and activities_get over the
// coordinator's get_activity of a completed activity. It reports each one's p50 in µs and the p50 overheads.
//
//	go test -run '^$' -bench ToolOverhead -benchtime 2000x ./internal/mcp
func BenchmarkToolOverhead(b *testing.B) {
	boot := theStack(b, "sqlite")
	ctx := context.Background()
	a := newAgent(b, boot, overStdio, nil)
	httpSession := a.connect(overHTTP)
	activities, err := a.root.ListActivities(ctx, api.ListActivitiesRequest{OrganizationID: boot.OrganizationID,
		FilterByStatus: []string{api.StatusCompleted}, FilterByType: []string{"ACTIVITY_TYPE_CREATE_WALLET"}})
	if err != nil || len(activities.Activities) == 0 {
		b.Fatal("no activity to read", err)
	}
	activityID := activities.Activities[0].ID
	yieldReq := func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, boot.YieldURL+"/v1/yields/"+a.yieldID, nil)
		req.Header.Set("X-API-KEY", boot.YieldAPIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatal(err, res)
		}
		res.Body.Close()
	}
	tool := func(s *mcp.ClientSession, name string, args map[string]any) func() {
		return func() {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(name, err, text(res))
			}
		}
	}
	pairs := []struct {
		name   string
		direct func()
	}{
		{"yields_get", yieldReq},
		{"activities_get", func() {
			if _, err := a.root.GetActivity(ctx, boot.OrganizationID, activityID); err != nil {
				b.Fatal(err)
			}
		}},
	}
	args := map[string]map[string]any{"yields_get": {"yieldId": a.yieldID}, "activities_get": {"activityId": activityID}}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			runs := map[string]func(){"direct": p.direct, "stdio": tool(a.session, p.name, args[p.name]),
				"http": tool(httpSession, p.name, args[p.name])}
			order := []string{"direct", "stdio", "http"}
			took := map[string][]time.Duration{}
			for _, k := range order { // warm the connections
				runs[k]()
			}
			b.ResetTimer()
			for range b.N {
				for _, k := range order {
					start := time.Now()
					runs[k]()
					took[k] = append(took[k], time.Since(start))
				}
			}
			b.StopTimer()
			p50 := map[string]time.Duration{}
			for _, k := range order {
				slices.Sort(took[k])
				p50[k] = took[k][len(took[k])/2]
				b.ReportMetric(float64(p50[k].Microseconds()), k+"-p50-µs")
			}
			b.ReportMetric(float64((p50["stdio"] - p50["direct"]).Microseconds()), "stdio-overhead-µs")
			b.ReportMetric(float64((p50["http"] - p50["direct"]).Microseconds()), "http-overhead-µs")
		})
	}
}

// BenchmarkJourney times the whole journey through the tools (find, check, enter, sign, send, wait, balances, exit, a
// denial, an approval), each round a new agent; ns/op is one journey.
//
//	go test -run '^$' -bench Journey -benchtime 5x ./internal/mcp
func BenchmarkJourney(b *testing.B) {
	boot := theStack(b, "sqlite")
	for _, over := range transports {
		b.Run(over, func(b *testing.B) {
			if b.N > 10 {
				b.Fatalf("run with -benchtime Nx, N at most 10 (got %d): each round makes a user with 4 policies, and an organization holds at most 100 of each", b.N)
			}
			for range b.N {
				b.StopTimer()
				a := newAgent(b, boot, over, nil)
				b.StartTimer()
				journey(b, a)
			}
		})
	}
}
