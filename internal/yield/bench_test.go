package yield

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/contracts"
)

// Benchmarks of the two hot endpoints over HTTP on loopback against the dev chain, with SQLite as the store:
//
//	go test ./internal/yield -run '^$' -bench . -benchtime 2000x
//
// Each reports requests per second, the p99 latency, and for enter the JSON-RPC calls and HTTP round trips to the
// node one action costs.

func benchEnv(b *testing.B) *env {
	return newEnv(b, envOptions{rateLimit: 1 << 30})
}

// timedRequests runs b.N requests made by req, sequentially or from several goroutines, and reports the rate and
// the latency percentiles.
func timedRequests(b *testing.B, parallel int, req func() *http.Request, wantStatus int) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, b.N)
	next := make(chan struct{}, b.N)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				t0 := time.Now()
				res, err := client.Do(req())
				if err != nil {
					b.Error(err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				d := time.Since(t0)
				if res.StatusCode != wantStatus {
					b.Errorf("status %d: %s", res.StatusCode, body)
					return
				}
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(float64(len(latencies))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

func BenchmarkListYields(b *testing.B) {
	e := benchEnv(b)
	for _, parallel := range []int{1, 8} {
		b.Run(map[int]string{1: "sequential", 8: "parallel8"}[parallel], func(b *testing.B) {
			timedRequests(b, parallel, func() *http.Request {
				r, _ := http.NewRequest("GET", e.srv.URL+"/v1/yields?limit=100", nil)
				r.Header.Set("X-API-KEY", e.key10)
				return r
			}, 200)
		})
	}
}

// BenchmarkEnter builds the seed's two-step enter (approval + deposit: the reads in one batch, then eth_call of the
// approval and eth_simulateV1 of the sequence in a second) and stores the action, each iteration. The allowance is
// never granted, so every iteration builds the approval.
func BenchmarkEnter(b *testing.B) {
	e := benchEnv(b)
	w := e.newWallet("10", map[string]string{"USDC": "1000"})
	for _, market := range []struct{ name, id string }{
		{"vault", e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")},
		{"aave", e.yieldID(KindLending, e.addr(contracts.AavePoolName).Hex(), "USDC")}, // Aave v3's own Pool
	} {
		body, _ := json.Marshal(map[string]any{"yieldId": market.id, "address": w.addr.Hex(), "arguments": map[string]any{"amount": "12.5"}})
		for _, parallel := range []int{1, 8} {
			b.Run(market.name+"/"+map[int]string{1: "sequential", 8: "parallel8"}[parallel], func(b *testing.B) {
				calls0, trips0 := e.svc.RPCStats("sigil-dev")
				timedRequests(b, parallel, func() *http.Request {
					r, _ := http.NewRequest("POST", e.srv.URL+"/v1/actions/enter", bytes.NewReader(body))
					r.Header.Set("X-API-KEY", e.key10)
					return r
				}, 201)
				calls, trips := e.svc.RPCStats("sigil-dev")
				b.ReportMetric(float64(calls-calls0)/float64(b.N), "rpc-calls/op")
				b.ReportMetric(float64(trips-trips0)/float64(b.N), "rpc-roundtrips/op")
			})
		}
	}
}
