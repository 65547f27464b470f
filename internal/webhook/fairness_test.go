package webhook_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/webhook"
	"github.com/sigil/sigil/internal/webhook/webhooktest"
)

// hanging is a receiver whose every request hangs until unblock, counting those in flight and those ended. Call
// unblock (a cleanup registered after the worker's) before the worker is stopped: it waits for its attempts.
type hanging struct {
	*httptest.Server
	mu                    sync.Mutex
	inflight, peak, ended int
	changed               chan struct{} // closed and replaced on every change
	release               chan struct{}
	once                  sync.Once
}

func (h *hanging) unblock() { h.once.Do(func() { close(h.release) }) }

func newHanging(t *testing.T) *hanging {
	h := &hanging{release: make(chan struct{}), changed: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read, so that the server notices when the client hangs up
		h.update(func() { h.inflight++; h.peak = max(h.peak, h.inflight) })
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
		h.update(func() { h.inflight--; h.ended++ })
	}))
	t.Cleanup(func() { h.unblock(); h.Close() })
	return h
}

func (h *hanging) update(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f()
	close(h.changed)
	h.changed = make(chan struct{})
}

// counts are the requests in flight, the most at once, and those ended.
func (h *hanging) counts() (inflight, peak, ended int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inflight, h.peak, h.ended
}

// await waits until cond holds of the counts, failing the test after 10 s.
func (h *hanging) await(t *testing.T, what string, cond func(inflight, peak, ended int) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		h.mu.Lock()
		ok, changed := cond(h.inflight, h.peak, h.ended), h.changed
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			in, peak, ended := h.counts()
			t.Fatalf("waiting until %s: %d in flight, %d at most, %d ended", what, in, peak, ended)
		}
	}
}

// The attack on deliveries: one tenant's 20 endpoints hang, and it has 10 deliveries waiting for each, queued
// before another tenant's one delivery to a healthy receiver. That delivery arrives while every attempt to the 20 is
// still hanging — the attacker holds at most its tenant's share of the slots (PerTenant), each endpoint at most
// PerEndpoint — whereas before the caps the attacker's 64 attempts filled every slot and the victim waited for their
// timeouts.
func TestSlowTenantDoesNotDelayAnother(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Concurrency = 64
	h.w.Timeout = 5 * time.Minute // the 20 hang for the whole test
	slow := newHanging(t)
	for ep := range 20 {
		for i := range 10 {
			id := fmt.Sprintf("attack-%d-%d", ep, i)
			h.q.Add(webhook.Delivery{ID: id, EventID: id, EndpointID: fmt.Sprint("attacker-ep-", ep), URL: fmt.Sprintf("%s/ep%d", slow.URL, ep),
				EventType: "ACTIVITY_UPDATES", OrgID: "attacker-sub-org", Tenant: "attacker", Subject: id, Body: []byte("{}")}, start)
		}
	}
	var victimArrived atomic.Bool
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		victimArrived.Store(true)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(healthy.Close)
	h.q.Add(webhook.Delivery{ID: "victim", EventID: "victim", EndpointID: "victim-ep", URL: healthy.URL, EventType: "ACTIVITY_UPDATES",
		OrgID: "victim-org", Subject: "victim", Body: []byte("{}")}, start)
	h.run()
	t.Cleanup(slow.unblock)
	h.wait("the victim's delivery arrives", func() bool {
		r, _ := h.q.Get("victim")
		return r.State == webhooktest.Delivered
	})
	if _, _, ended := slow.counts(); !victimArrived.Load() || ended != 0 {
		t.Fatalf("the victim's delivery arrived after %d of the attacker's attempts ended", ended)
	}
	slow.await(t, "the attacker's tenant has its share of attempts hanging", func(inflight, _, _ int) bool { return inflight == webhook.DefaultPerTenant })
	if _, peak, ended := slow.counts(); peak > webhook.DefaultPerTenant || ended != 0 {
		t.Errorf("%d of the attacker's attempts in flight at once (its tenant's cap is %d), %d ended", peak, webhook.DefaultPerTenant, ended)
	}
}

// One endpoint holds at most PerEndpoint attempts, even when its tenant has room for more; the deliveries past its cap
// wait, claimed, for its attempts to end, and later claims leave the endpoint alone meanwhile.
func TestPerEndpointCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Concurrency, h.w.PerEndpoint, h.w.PerTenant = 16, 3, 16
	h.w.Timeout = 5 * time.Minute
	var mu sync.Mutex
	claimed := map[string]int{}
	h.q.OnClaim = func(_ time.Time, ds []webhook.Delivery) {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range ds {
			claimed[d.ID]++
		}
	}
	slow := newHanging(t)
	for i := range 10 {
		id := fmt.Sprint("d", i)
		h.q.Add(webhook.Delivery{ID: id, EventID: id, EndpointID: "ep", URL: slow.URL, EventType: "ACTIVITY_UPDATES", OrgID: "org", Body: []byte("{}")}, start)
	}
	other := newHanging(t)
	h.q.Add(webhook.Delivery{ID: "o", EventID: "o", EndpointID: "other-ep", URL: other.URL, EventType: "ACTIVITY_UPDATES", OrgID: "org", Body: []byte("{}")}, start)
	h.run()
	t.Cleanup(slow.unblock)
	t.Cleanup(other.unblock)
	slow.await(t, "three attempts to ep are in flight", func(inflight, _, _ int) bool { return inflight == 3 })
	other.await(t, "one attempt to other-ep is in flight", func(inflight, _, _ int) bool { return inflight == 1 })
	// Attempts end only when the test does; the claims a notification and the poll make now leave ep alone.
	for range 2 {
		h.w.Notify()
		h.poll <- h.clk.Now()
	}
	if _, peak, _ := slow.counts(); peak != 3 {
		t.Errorf("%d attempts to one endpoint in flight at once, cap 3", peak)
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("%s claimed %d times", id, n)
		}
	}
	for _, r := range h.q.Records() {
		if r.Releases != 0 || r.LeasedUntil.IsZero() {
			t.Errorf("%s: given back %d times, leased until %v: waiting ones stay claimed", r.Delivery.ID, r.Releases, r.LeasedUntil)
		}
	}
}

// A circuit opens after the endpoint times out Breaker.Threshold times in a row: no attempt is made to it until its
// cooldown ends (by the worker's clock) — a claim once the retries are due leaves it alone —, and once an attempt is
// answered the rest are delivered. Nothing waiting was failed meanwhile. (One attempt at a time while half-open:
// TestSchedulerHalfOpen.)
func TestCircuitBreakerOpensAndCloses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Concurrency, h.w.PerEndpoint = 8, 8
	h.w.Timeout = 100 * time.Millisecond
	h.w.Backoff = webhook.Backoff{Base: time.Second, Cap: time.Second, MaxAttempts: 100}
	h.w.Breaker = webhook.Breaker{Threshold: 5, Cooldown: time.Hour}
	h.q.OnFailed = nil // the clock moves only when the test moves it
	type claim struct {
		at time.Time
		n  int
	}
	claims := make(chan claim, 1000) // what each claim returned, and when
	h.q.OnClaim = func(at time.Time, ds []webhook.Delivery) { claims <- claim{at, len(ds)} }
	var healthy atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !healthy.Load() {
			<-r.Context().Done() // no answer: the attempt times out
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	for i := range 8 {
		id := fmt.Sprint("d", i)
		h.q.Add(webhook.Delivery{ID: id, EventID: id, EndpointID: "ep", URL: srv.URL, EventType: "ACTIVITY_UPDATES", OrgID: "org", Body: []byte("{}")}, start)
	}
	h.run()
	h.wait("every delivery has timed out once", func() bool {
		for _, r := range h.q.Records() {
			if r.Delivery.Attempts != 1 || !r.LeasedUntil.IsZero() {
				return false
			}
		}
		return true
	})
	// The retries are due; the circuit is open for an hour.
	due := start.Add(2 * time.Second)
	h.clk.AdvanceTo(due)
	h.w.Notify()
	var claimed claim
	for deadline := time.After(10 * time.Second); claimed.at.Before(due); {
		select {
		case claimed = <-claims:
		case <-deadline:
			t.Fatal("the worker did not claim once the retries were due")
		}
	}
	if claimed.n != 0 {
		t.Fatalf("with the circuit open, a claim took %d deliveries", claimed.n)
	}
	for _, r := range h.q.Records() {
		if r.State != webhooktest.Pending || r.Delivery.Attempts != 1 || !strings.Contains(r.LastErr, "timeout") {
			t.Fatalf("%s while the circuit is open: %s after %d attempts, %q", r.Delivery.ID, r.State, r.Delivery.Attempts, r.LastErr)
		}
	}
	healthy.Store(true)
	h.clk.AdvanceTo(start.Add(time.Hour + time.Minute))
	h.w.Notify()
	h.wait("everything is delivered once the circuit closes", h.q.Settled)
	for _, r := range h.q.Records() {
		if r.State != webhooktest.Delivered || r.Delivery.Attempts != 2 {
			t.Errorf("%s: %s after %d attempts", r.Delivery.ID, r.State, r.Delivery.Attempts)
		}
	}
}

// An answer of 200 MB is read no further than ResponseBodyLimit: the attempt ends, delivered, once that much is read,
// and the receiver's writes fail soon after, as the connection is closed.
func TestHugeAnswerIsNotRead(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		for range 200 << 20 / len(chunk) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	h.add(srv.URL, "ep", "s", 1)
	h.run()
	h.wait("delivered", h.q.Settled)
	if r, _ := h.q.Get("dlv-s-1"); r.State != webhooktest.Delivered {
		t.Fatalf("%+v", r)
	}
	srv.Close() // waits for the handler, which ends when its writes fail
	if n := written.Load(); n >= 200<<20 {
		t.Errorf("the receiver wrote all of its %d MiB: the worker read it to the end", n>>20)
	}
}
