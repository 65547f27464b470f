package coordinator_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/webhook"
)

// benchReceiver is a receiver in a process of its own (this test binary run again as TestBenchReceiverProcess), so
// that its CPU is not counted as the coordinator's: it answers every delivery 204 and keeps, per delivery, the time
// from the activity's creation to its arrival.
type benchReceiver struct {
	url string
}

const benchReceiverEnv = "SIGIL_BENCH_RECEIVER"

func newBenchReceiver(b *testing.B) *benchReceiver {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchReceiverProcess$")
	cmd.Env = append(os.Environ(), benchReceiverEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the receiver did not start: %v", err)
	}
	return &benchReceiver{url: strings.TrimSpace(url)}
}

// wait returns once n deliveries have arrived since the last wait, with their latencies' p50 and p99.
func (r *benchReceiver) wait(b *testing.B, n int) (p50, p99 time.Duration) {
	resp, err := http.Get(r.url + "/wait?n=" + strconv.Itoa(n))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ P50, P99 time.Duration }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("deliveries stopped arriving: %d %v", resp.StatusCode, err)
	}
	return got.P50, got.P99
}

func (r *benchReceiver) reportLatency(b *testing.B, n int) {
	p50, p99 := r.wait(b, n)
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}

// TestBenchReceiverProcess is the benchmarks' receiver when run as its own process; otherwise it does nothing. It
// prints its URL, then serves POST / (a delivery) and GET /wait?n= (blocks until n deliveries have arrived, answers
// their latencies' p50 and p99, and starts counting again).
func TestBenchReceiverProcess(t *testing.T) {
	if os.Getenv(benchReceiverEnv) == "" {
		t.Skip("the benchmarks' receiver, run by them in a process of its own")
	}
	var mu sync.Mutex
	var latency []time.Duration
	arrived := make(chan struct{}, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			n, _ := strconv.Atoi(req.URL.Query().Get("n"))
			deadline := time.After(time.Minute)
			for range n {
				select {
				case <-arrived:
				case <-deadline:
					http.Error(w, "deliveries stopped arriving", http.StatusGatewayTimeout)
					return
				}
			}
			mu.Lock()
			slices.Sort(latency)
			var got struct{ P50, P99 time.Duration }
			if len(latency) > 0 {
				got.P50, got.P99 = latency[len(latency)/2], latency[len(latency)*99/100]
			}
			latency = latency[:0]
			mu.Unlock()
			_ = json.NewEncoder(w).Encode(got)
			return
		}
		body, _ := io.ReadAll(req.Body)
		var a struct{ CreatedAt api.Timestamp }
		_ = json.Unmarshal(body, &a)
		sec, _ := strconv.ParseInt(a.CreatedAt.Seconds, 10, 64)
		nsec, _ := strconv.ParseInt(a.CreatedAt.Nanos, 10, 64)
		mu.Lock()
		latency = append(latency, time.Since(time.Unix(sec, nsec)))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		arrived <- struct{}{}
	}))
	defer srv.Close()
	fmt.Println(srv.URL)
	// Serve until the benchmark kills this process.
	select {}
}

// signingStack is a stack on SQLite with a wallet, and a client allowed to sign with it by a policy; with an endpoint
// receiving its activity updates when hooked.
func signingStack(b *testing.B, hooked bool) (*stack, func(i int), *benchReceiver) {
	s := newStackWith(b, testdb.SQLite(b), nil, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, Backoff: webhook.Backoff{Base: time.Millisecond}}
	})
	org := s.boot.OrganizationID
	agentID, agent := s.createUser(org, s.root, "agent")
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		b.Fatal(err)
	}
	s.policy("approve", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"'", "approvers.any(u, u.id == '"+agentID+"')")
	data := calldata(b, "approve", vault, big.NewInt(1))
	sign := func(i int) {
		if _, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
			UnsignedTransaction: unsigned1559(b, token, data, uint64(i)), Type: api.TransactionTypeEthereum}); err != nil {
			b.Fatal(err)
		}
	}
	var rc *benchReceiver
	if hooked {
		rc = newBenchReceiver(b)
		if _, _, err := s.root.CreateWebhookEndpoint(bg, org, api.CreateWebhookEndpointIntent{URL: rc.url, Name: "bench",
			Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates,
				FiltersJSON: `{"activityTypes":["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]}`}}}); err != nil {
			b.Fatal(err)
		}
	}
	return s, sign, rc
}

// The cost of a webhook to a signing activity: the process's CPU per signing activity without an endpoint and with
// one (the delivery's whole cost to the coordinator included: the outbox row, the signed POST, the record of success;
// the receiver runs in a process of its own), side by side in one run. The process also runs the signing client, the
// same in all. The goal: under 5% more. "with-endpoint-delivered-elsewhere" is a signing server that posts no
// deliveries (sigil up --no-webhook-deliveries): it writes the outbox rows, which another process sharing the
// PostgreSQL database posts, at the cost "with-endpoint" shows on that process.
func BenchmarkSigningWithWebhook(b *testing.B) {
	for _, mode := range []string{"without", "with-endpoint", "with-endpoint-delivered-elsewhere"} {
		b.Run(mode, func(b *testing.B) {
			hooked, delivering := mode != "without", mode == "with-endpoint"
			s, sign, rc := signingStack(b, hooked)
			if delivering {
				runWebhooks(b, s.coord)
			}
			sign(-1) // warm: the first signing reads keys
			if delivering {
				rc.wait(b, 1)
			}
			cpu := cputime.Start()
			defer func() { b.ReportMetric(cpu.PerOp(b.N), cputime.Unit) }()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sign(i)
			}
			if delivering {
				rc.reportLatency(b, b.N)
			}
		})
	}
}

// Deliveries per second: b.N events written while no worker runs, then delivered by one worker to a local receiver.
func BenchmarkWebhookDelivery(b *testing.B) {
	s, sign, rc := signingStack(b, true)
	for i := 0; i < b.N; i++ {
		sign(i)
	}
	b.ResetTimer()
	start := time.Now()
	runWebhooks(b, s.coord)
	rc.wait(b, b.N)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
