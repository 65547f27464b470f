package coordinator_test

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"sigil/api"
	"sigil/coordinator"
	"sigil/internal/testdb"
	"sigil/webhook"
)

// benchReceiver answers every delivery 204 and keeps, per delivery, the time from the activity's creation to its
// arrival.
type benchReceiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	latency []time.Duration
	arrived chan struct{}
}

func newBenchReceiver(b *testing.B) *benchReceiver {
	r := &benchReceiver{arrived: make(chan struct{}, 1<<16)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var a struct{ CreatedAt api.Timestamp }
		_ = json.Unmarshal(body, &a)
		sec, _ := strconv.ParseInt(a.CreatedAt.Seconds, 10, 64)
		nsec, _ := strconv.ParseInt(a.CreatedAt.Nanos, 10, 64)
		r.mu.Lock()
		r.latency = append(r.latency, time.Since(time.Unix(sec, nsec)))
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		r.arrived <- struct{}{}
	}))
	b.Cleanup(r.srv.Close)
	return r
}

func (r *benchReceiver) wait(b *testing.B, n int) {
	deadline := time.After(time.Minute)
	for range n {
		select {
		case <-r.arrived:
		case <-deadline:
			b.Fatalf("deliveries stopped arriving")
		}
	}
}

func (r *benchReceiver) reportLatency(b *testing.B) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.latency) == 0 {
		return
	}
	slices.Sort(r.latency)
	b.ReportMetric(float64(r.latency[len(r.latency)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(r.latency[len(r.latency)*99/100].Microseconds()), "p99-µs")
	r.latency = r.latency[:0]
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
		if _, _, err := s.root.CreateWebhookEndpoint(bg, org, api.CreateWebhookEndpointIntent{URL: rc.srv.URL, Name: "bench",
			Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates,
				FiltersJSON: `{"activityTypes":["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]}`}}}); err != nil {
			b.Fatal(err)
		}
	}
	return s, sign, rc
}

// The cost of a webhook to a signing activity: the process's CPU per signing activity without an endpoint and with
// one (the delivery's whole cost included: the outbox row, the claim, the signed POST, the receiver, the record of
// success), side by side in one run; with -count the two alternate. The goal: under 5% more.
func BenchmarkSigningWithWebhook(b *testing.B) {
	for _, hooked := range []bool{false, true} {
		name := "without"
		if hooked {
			name = "with-endpoint"
		}
		b.Run(name, func(b *testing.B) {
			s, sign, rc := signingStack(b, hooked)
			if hooked {
				runWebhooks(b, s.coord)
			}
			sign(-1) // warm: the first signing reads keys
			if rc != nil {
				rc.wait(b, 1)
			}
			defer reportCPU(b)()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sign(i)
			}
			if rc != nil {
				rc.wait(b, b.N)
				rc.reportLatency(b)
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
