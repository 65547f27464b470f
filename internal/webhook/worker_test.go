package webhook_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
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

var start = time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)

// clock is the tests' time: it moves only when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.t) {
		c.t = t
	}
}

// harness runs a Worker on an in-memory queue and a virtual clock. The poll
// timer fires only when the test sends on poll; a failed attempt moves the
// clock to its retry and notifies the worker, so that retries come at once
// and nothing sleeps.
type harness struct {
	t      *testing.T
	q      *webhooktest.Queue
	w      *webhook.Worker
	clk    *clock
	keys   []webhook.VerificationKey
	poll   chan time.Time
	mu     sync.Mutex
	afters []time.Duration
	// cancelled is closed once stop has cancelled the worker's context (before it waits for Run to return).
	cancelled chan struct{}
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	signer, err := webhook.NewSigner("whk_test", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{42}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, q: webhooktest.New(), clk: &clock{t: start}, poll: make(chan time.Time),
		keys: []webhook.VerificationKey{signer.VerificationKey()}, cancelled: make(chan struct{})}
	h.w = &webhook.Worker{
		Queue:        h.q,
		Signer:       signer,
		Guard:        webhook.Guard{AllowPrivate: true}, // the receivers are httptest servers on loopback
		Timeout:      2 * time.Second,
		Backoff:      webhook.Backoff{Base: time.Second, Cap: 30 * time.Second, MaxAttempts: 5},
		Concurrency:  4,
		PollInterval: time.Minute,
		Now:          h.clk.Now,
		After: func(d time.Duration) <-chan time.Time {
			h.mu.Lock()
			h.afters = append(h.afters, d)
			h.mu.Unlock()
			return h.poll
		},
		Jitter: func(max time.Duration) time.Duration { return max },
		Log:    slog.New(slog.DiscardHandler),
	}
	h.q.OnFailed = func(_ webhook.Delivery, next time.Time, dead bool) {
		if !dead {
			h.clk.AdvanceTo(next)
			h.w.Notify()
		}
	}
	return h
}

// run starts the worker; the returned function stops it and checks that it
// returned.
func (h *harness) run() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.w.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		close(h.cancelled)
		select {
		case err := <-done:
			if err != nil {
				h.t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			h.t.Fatal("Run did not return after its context was cancelled")
		}
	}
	h.t.Cleanup(stop)
	return stop
}

// wait blocks until cond holds, failing the test after 10 s.
func (h *harness) wait(what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.q.Wait(ctx, cond); err != nil {
		h.t.Fatalf("waiting until %s: %v\nqueue: %+v", what, err, h.q.Records())
	}
}

type payload struct {
	Subject string `json:"subject"`
	Seq     int64  `json:"seq"`
}

// add queues a Turnkey-style delivery of event <subject>-<seq>.
func (h *harness) add(url, endpoint, subject string, seq int64) string {
	id := fmt.Sprintf("%s-%d", subject, seq)
	body, _ := json.Marshal(payload{subject, seq})
	h.q.Add(webhook.Delivery{
		ID: "dlv-" + id, EventID: "evt-" + id, EndpointID: endpoint, URL: url, EventType: "ACTIVITY_UPDATES",
		OrgID: "org-1", Subject: subject, Sequence: seq, Body: body,
	}, start)
	return "dlv-" + id
}

// request is what a receiver saw of one attempt.
type request struct {
	eventID   string
	timestamp string
	signature string
	payload   payload
	err       error // verification
}

// receiver answers each event's attempts from a script: "ok", a status code,
// or "slow" (no answer until the client gives up).
type receiver struct {
	*httptest.Server
	h        *harness
	mu       sync.Mutex
	script   map[string][]string // event id -> answers, in attempt order; default "ok"
	requests []request
	attempts map[string]int
}

func newReceiver(h *harness, script map[string][]string, wrap ...func(http.Handler) http.Handler) *receiver {
	r := &receiver{h: h, script: script, attempts: map[string]int{}}
	var handler http.Handler = http.HandlerFunc(r.serve)
	for _, w := range wrap {
		handler = w(handler)
	}
	r.Server = httptest.NewServer(handler)
	h.t.Cleanup(r.Close)
	return r
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	_, verr := webhook.Verify(r.Header, body, rc.h.keys, 5*time.Minute, rc.h.clk.Now())
	var p payload
	_ = json.Unmarshal(body, &p)
	eid := r.Header.Get(webhook.HeaderEventID)
	rc.mu.Lock()
	rc.requests = append(rc.requests, request{eid, r.Header.Get(webhook.HeaderTimestamp), r.Header.Get(webhook.HeaderSignature), p, verr})
	n := rc.attempts[eid]
	rc.attempts[eid]++
	answer := "ok"
	if s := rc.script[eid]; n < len(s) {
		answer = s[n]
	}
	rc.mu.Unlock()
	switch answer {
	case "ok":
		w.WriteHeader(http.StatusNoContent)
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	default:
		var code int
		fmt.Sscan(answer, &code)
		w.WriteHeader(code)
		fmt.Fprintf(w, "answer %d\n\tfor %s", code, eid)
	}
}

func (rc *receiver) seen() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.requests...)
}

func TestWorkerDeliversEverythingInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Timeout = 150 * time.Millisecond // the "slow" answers wait for it
	script := map[string][]string{
		"evt-A-1": {"503", "ok"},
		"evt-A-2": {"slow", "ok"},
		"evt-A-4": {"500", "502", "ok"},
		"evt-B-2": {"503", "ok"},
		"evt-C-1": {"slow", "503", "ok"},
		"evt-C-3": {"429", "ok"}, // 429 is terminal for Turnkey-style deliveries
	}
	rc := newReceiver(h, script)
	var ids []string
	for seq := int64(1); seq <= 4; seq++ {
		for _, s := range []string{"A", "B", "C"} {
			ids = append(ids, h.add(rc.URL+"/hook", "ep-1", s, seq))
		}
	}
	h.run()
	h.wait("every delivery is settled", h.q.Settled)

	for _, id := range ids {
		r, _ := h.q.Get(id)
		evt := "evt-" + strings.TrimPrefix(id, "dlv-")
		wantAttempts := max(1, len(script[evt]))
		switch {
		case evt == "evt-C-3":
			if r.State != webhooktest.Dead || r.Delivery.Attempts != 1 || !strings.HasPrefix(r.LastErr, "HTTP 429") {
				t.Errorf("%s: %s after %d attempts (%q); a 429 is terminal", id, r.State, r.Delivery.Attempts, r.LastErr)
			}
		case r.State != webhooktest.Delivered || r.Status != http.StatusNoContent || r.Delivery.Attempts != wantAttempts:
			t.Errorf("%s: %s (HTTP %d) after %d attempts, want delivered after %d; last error %q",
				id, r.State, r.Status, r.Delivery.Attempts, wantAttempts, r.LastErr)
		}
	}
	if r, _ := h.q.Get("dlv-A-2"); !strings.Contains(r.LastErr, "timeout") {
		t.Errorf("A-2's slow answer: last error %q", r.LastErr)
	}
	if r, _ := h.q.Get("dlv-A-4"); !strings.HasPrefix(r.LastErr, "HTTP 502: answer 502 for evt-A-4") {
		t.Errorf("A-4: last error %q", r.LastErr)
	}

	// Per subject, no attempt of an event came before every attempt of the
	// events before it was over; every attempt verified, and the attempts
	// of one event carry its id and fresh signatures.
	lastSeq := map[string]int64{}
	sigs := map[string]bool{}
	byEvent := map[string][]request{}
	for _, r := range rc.seen() {
		if r.err != nil {
			t.Errorf("%s: %v", r.eventID, r.err)
		}
		if r.payload.Seq < lastSeq[r.payload.Subject] {
			t.Errorf("subject %s: event %d after %d", r.payload.Subject, r.payload.Seq, lastSeq[r.payload.Subject])
		}
		lastSeq[r.payload.Subject] = r.payload.Seq
		if want := fmt.Sprintf("evt-%s-%d", r.payload.Subject, r.payload.Seq); r.eventID != want {
			t.Errorf("event id %q on the delivery of %s", r.eventID, want)
		}
		if sigs[r.signature] {
			t.Errorf("%s: a signature was sent twice", r.eventID)
		}
		sigs[r.signature] = true
		byEvent[r.eventID] = append(byEvent[r.eventID], r)
	}
	for evt, rs := range byEvent {
		for i := 1; i < len(rs); i++ {
			if rs[i].timestamp <= rs[i-1].timestamp {
				t.Errorf("%s: attempt %d is timestamped %s, not after %s", evt, i+1, rs[i].timestamp, rs[i-1].timestamp)
			}
		}
	}
	if len(byEvent) != 12 {
		t.Errorf("%d events reached the receiver, want 12", len(byEvent))
	}
}

func TestWorkerKeepsOrderWithinAClaim(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var inflight, maxInflight atomic.Int32
	rc := newReceiver(h, map[string][]string{"evt-S-2": {"503", "ok"}}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for m := maxInflight.Load(); n > m && !maxInflight.CompareAndSwap(m, n); m = maxInflight.Load() {
			}
			next.ServeHTTP(w, r)
		})
	})
	for seq := int64(1); seq <= 4; seq++ {
		h.add(rc.URL, "ep-1", "S", seq)
	}
	// The whole subject is due at once and claimed together.
	var firstClaim atomic.Int32
	h.q.OnClaim = func(_ time.Time, ds []webhook.Delivery) { firstClaim.CompareAndSwap(0, int32(len(ds))) }
	h.run()
	h.wait("settled", h.q.Settled)
	if firstClaim.Load() != 4 {
		t.Fatalf("first claim took %d deliveries, want all 4", firstClaim.Load())
	}
	var order []int64
	for _, r := range rc.seen() {
		order = append(order, r.payload.Seq)
	}
	if fmt.Sprint(order) != "[1 2 2 3 4]" {
		t.Fatalf("attempts in order %v, want [1 2 2 3 4]", order)
	}
	if maxInflight.Load() != 1 {
		t.Fatalf("%d attempts of one subject at once", maxInflight.Load())
	}
	for _, id := range []string{"dlv-S-3", "dlv-S-4"} {
		if r, _ := h.q.Get(id); r.Releases != 1 || r.Delivery.Attempts != 1 {
			t.Errorf("%s: released %d times, %d attempts; it should have been given back once when S-2 failed", id, r.Releases, r.Delivery.Attempts)
		}
	}
}

func TestWorkerDeadLetter(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Backoff.MaxAttempts = 3
	long := strings.Repeat("x", 10<<10)
	var mu sync.Mutex
	var eventIDs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eid := r.Header.Get(webhook.HeaderEventID)
		mu.Lock()
		eventIDs = append(eventIDs, eid)
		mu.Unlock()
		if eid == "evt-D-2" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "database\r\n\x00 down: ", long)
	}))
	t.Cleanup(srv.Close)
	dead := h.add(srv.URL, "ep-1", "D", 1)
	after := h.add(srv.URL, "ep-1", "D", 2)
	h.run()
	h.wait("settled", h.q.Settled)

	r, _ := h.q.Get(dead)
	if r.State != webhooktest.Dead || r.Delivery.Attempts != 3 {
		t.Fatalf("%s after %d attempts, want dead after 3", r.State, r.Delivery.Attempts)
	}
	if !strings.HasPrefix(r.LastErr, "HTTP 500: database down: xxx") || !strings.HasSuffix(r.LastErr, "…") ||
		len(r.LastErr) > len("HTTP 500: ")+webhook.ReasonLimit+len("…") {
		t.Fatalf("last error (%d bytes) %q", len(r.LastErr), r.LastErr)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(eventIDs) != "[evt-D-1 evt-D-1 evt-D-1 evt-D-2]" {
		t.Fatalf("event ids of the attempts: %v", eventIDs)
	}
	// A dead delivery does not hold its subject back.
	if r, _ := h.q.Get(after); r.State != webhooktest.Delivered {
		t.Fatalf("the delivery after a dead one: %s", r.State)
	}
}

func TestWorkerTerminalAnswersAndHMAC(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	secret := []byte("yield-endpoint-secret-0123456789")
	var mu sync.Mutex
	got := map[string][]int{}
	hmacErrs := []error{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/turnkey-400":
			got[r.URL.Path] = append(got[r.URL.Path], 400)
			w.WriteHeader(http.StatusBadRequest)
		case "/turnkey-302":
			got[r.URL.Path] = append(got[r.URL.Path], 302)
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/elsewhere":
			got[r.URL.Path] = append(got[r.URL.Path], 200)
		case "/hmac":
			if _, err := webhook.VerifyHMAC(r.Header.Get(webhook.HeaderHMACSignature), body, [][]byte{secret}, 5*time.Minute, h.clk.Now()); err != nil {
				hmacErrs = append(hmacErrs, err)
			}
			if r.Header.Get(webhook.HeaderHMACEventID) != "evt-y1" || r.Header.Get(webhook.HeaderHMACEventType) != "transaction.status_changed" ||
				r.Header.Get(webhook.HeaderSignature) != "" {
				hmacErrs = append(hmacErrs, fmt.Errorf("headers %v", r.Header))
			}
			if len(got[r.URL.Path]) == 0 {
				got[r.URL.Path] = append(got[r.URL.Path], 400)
				w.WriteHeader(http.StatusBadRequest) // retried for HMAC deliveries
				return
			}
			got[r.URL.Path] = append(got[r.URL.Path], 200)
		}
	}))
	t.Cleanup(srv.Close)
	h.q.Add(webhook.Delivery{ID: "d400", EventID: "e400", URL: srv.URL + "/turnkey-400", Body: []byte("{}")}, start)
	h.q.Add(webhook.Delivery{ID: "d302", EventID: "e302", URL: srv.URL + "/turnkey-302", Body: []byte("{}")}, start)
	h.q.Add(webhook.Delivery{ID: "dh", EventID: "evt-y1", EventType: "transaction.status_changed", URL: srv.URL + "/hmac",
		Body: []byte(`{"type":"transaction.status_changed"}`), Scheme: webhook.SchemeHMAC, Secret: secret}, start)
	h.q.Add(webhook.Delivery{ID: "dbad", EventID: "evt-y2", URL: srv.URL + "/hmac", Body: []byte("{}"),
		Scheme: webhook.SchemeHMAC, Secret: []byte("too short")}, start)
	h.q.Add(webhook.Delivery{ID: "dodd", EventID: "evt-y3", URL: srv.URL + "/hmac", Body: []byte("{}"), Scheme: "rot13"}, start)
	h.run()
	h.wait("settled", h.q.Settled)

	for id, want := range map[string]struct {
		state    string
		attempts int
		reason   string
	}{
		"d400": {webhooktest.Dead, 1, "HTTP 400"},
		"d302": {webhooktest.Dead, 1, "HTTP 302 (redirects are not followed)"},
		"dh":   {webhooktest.Delivered, 2, "HTTP 400"},
		"dbad": {webhooktest.Dead, 1, "secret must be 24 to 255 characters"},
		"dodd": {webhooktest.Dead, 1, `unknown signing scheme "rot13"`},
	} {
		r, _ := h.q.Get(id)
		if r.State != want.state || r.Delivery.Attempts != want.attempts || !strings.Contains(r.LastErr, want.reason) {
			t.Errorf("%s: %s after %d attempts (%q), want %s after %d (%q)", id, r.State, r.Delivery.Attempts, r.LastErr,
				want.state, want.attempts, want.reason)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(got) != "map[/hmac:[400 200] /turnkey-302:[302] /turnkey-400:[400]]" {
		t.Errorf("the receiver saw %v", got)
	}
	if len(hmacErrs) > 0 {
		t.Errorf("HMAC deliveries: %v", hmacErrs)
	}
}

type mapResolver map[string]string

func (m mapResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := m[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

type countingResolver struct {
	webhook.Resolver
	n atomic.Int32
}

func (c *countingResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	c.n.Add(1)
	return c.Resolver.LookupIPAddr(ctx, host)
}

func TestWorkerChecksEveryAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Backoff.MaxAttempts = 3
	res := &countingResolver{Resolver: mapResolver{"hooks.example.test": "127.0.0.1"}}
	h.w.Guard = webhook.Guard{Resolver: res} // the safe default
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	h.q.Add(webhook.Delivery{ID: "plain", EventID: "e1", URL: srv.URL + "/hook", Body: []byte("{}")}, start)
	h.q.Add(webhook.Delivery{ID: "named", EventID: "e2", URL: "https://hooks.example.test:" + port + "/hook", Body: []byte("{}")}, start)
	h.q.Add(webhook.Delivery{ID: "metadata", EventID: "e3", URL: "https://169.254.169.254/latest/meta-data/", Body: []byte("{}")}, start)
	h.run()
	h.wait("settled", h.q.Settled)
	for id, want := range map[string]struct {
		attempts int
		reason   string
	}{
		"plain":    {1, "the scheme must be https"}, // refused for good
		"named":    {3, "resolves to 127.0.0.1"},    // may resolve elsewhere later: retried
		"metadata": {3, "169.254.169.254 is not a public address"},
	} {
		r, _ := h.q.Get(id)
		if r.State != webhooktest.Dead || r.Delivery.Attempts != want.attempts || !strings.Contains(r.LastErr, want.reason) {
			t.Errorf("%s: %s after %d attempts (%q), want dead after %d (%q)", id, r.State, r.Delivery.Attempts, r.LastErr, want.attempts, want.reason)
		}
	}
	if res.n.Load() != 3 {
		t.Errorf("the name was resolved %d times, want once per attempt", res.n.Load())
	}
	if hits.Load() != 0 {
		t.Fatalf("a refused destination was reached %d times", hits.Load())
	}
}

func TestWorkerNotifyAndPoll(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	claims := make(chan int, 100)
	h.q.OnClaim = func(_ time.Time, ds []webhook.Delivery) { claims <- len(ds) }
	rc := newReceiver(h, nil)
	h.run()
	idle := func() { // until a claim finds nothing: the worker then waits
		t.Helper()
		for {
			select {
			case n := <-claims:
				if n == 0 {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the worker does not claim")
			}
		}
	}
	idle()

	// Notify: delivered at once, with no poll tick.
	h.add(rc.URL, "ep", "N", 1)
	h.w.Notify()
	h.wait("notified delivery", func() bool { r, _ := h.q.Get("dlv-N-1"); return r.State == webhooktest.Delivered })
	idle()

	// Without Notify, the poll timer finds it.
	h.add(rc.URL, "ep", "P", 1)
	h.poll <- h.clk.Now()
	h.wait("polled delivery", func() bool { r, _ := h.q.Get("dlv-P-1"); return r.State == webhooktest.Delivered })
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range h.afters {
		if d != time.Minute {
			t.Fatalf("the worker waited %s, not its poll interval", d)
		}
	}
	if len(h.afters) == 0 {
		t.Fatal("the worker never started its poll timer")
	}
}

func TestWorkerConcurrencyLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Concurrency = 2
	var inflight, peak atomic.Int32
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
		}
		if n == 2 {
			once.Do(func() { close(reached) })
		}
		<-release
	}))
	t.Cleanup(srv.Close)
	for i := range 6 {
		h.q.Add(webhook.Delivery{ID: fmt.Sprint("d", i), EventID: fmt.Sprint("e", i), URL: srv.URL, Body: []byte("{}")}, start)
	}
	h.run()
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker never had two attempts in flight")
	}
	close(release)
	h.wait("settled", h.q.Settled)
	if peak.Load() != 2 {
		t.Fatalf("%d attempts in flight at once, limit 2", peak.Load())
	}
	for _, r := range h.q.Records() {
		if r.State != webhooktest.Delivered {
			t.Errorf("%s: %s", r.Delivery.ID, r.State)
		}
	}
}

func TestWorkerStopsCleanly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	entered, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	}))
	t.Cleanup(srv.Close)
	first := h.add(srv.URL, "ep", "Q", 1)
	second := h.add(srv.URL, "ep", "Q", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.w.Run(ctx) }()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no attempt started")
	}
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run returned (%v) with an attempt in flight", err)
	default:
	}
	close(release) // the attempt under way ends normally although Run was cancelled
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if r, _ := h.q.Get(first); r.State != webhooktest.Delivered {
		t.Errorf("the attempt in flight: %s (%q)", r.State, r.LastErr)
	}
	if r, _ := h.q.Get(second); r.State != webhooktest.Pending || r.Releases != 1 || r.Delivery.Attempts != 0 || !r.LeasedUntil.IsZero() {
		t.Errorf("the claimed, unattempted delivery: %+v; it should be released", r)
	}
}

func TestWorkerNeedsAQueue(t *testing.T) {
	t.Parallel()
	if err := (&webhook.Worker{}).Run(context.Background()); err == nil {
		t.Fatal("Run without a Queue")
	}
}

// With Gather, a notified worker waits that long before it claims, so that events written meanwhile are claimed
// together: three written one after the other go out in one claim.
func TestWorkerGathers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Gather = 20 * time.Millisecond
	claims := make(chan int, 100)
	h.q.OnClaim = func(_ time.Time, ds []webhook.Delivery) { claims <- len(ds) }
	gathers := make(chan time.Time)
	h.w.After = func(d time.Duration) <-chan time.Time {
		if d == h.w.Gather {
			return gathers
		}
		return h.poll
	}
	rc := newReceiver(h, nil)
	h.run()
	if n := <-claims; n != 0 {
		t.Fatalf("first claim took %d", n)
	}
	for _, s := range []string{"A", "B", "C"} {
		h.add(rc.URL, "ep", s, 1)
		h.w.Notify()
	}
	select {
	case n := <-claims:
		t.Fatalf("claimed %d before the gathering wait ended", n)
	case gathers <- h.clk.Now():
	}
	if n := <-claims; n != 3 {
		t.Fatalf("the claim after gathering took %d deliveries, want 3", n)
	}
	h.wait("all delivered", func() bool {
		for _, s := range []string{"A", "B", "C"} {
			if r, _ := h.q.Get("dlv-" + s + "-1"); r.State != webhooktest.Delivered {
				return false
			}
		}
		return true
	})
}

// Offered deliveries (leased to the worker by the process that wrote them) are posted without being claimed, and
// their ends call for no claim; a worker that is not running takes none, and one that stops releases those it had
// not started.
func TestWorkerOffer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	claims := make(chan int, 100)
	h.q.OnClaim = func(_ time.Time, ds []webhook.Delivery) { claims <- len(ds) }
	rc := newReceiver(h, nil)
	offer := func(subject string) (webhook.Delivery, bool) {
		body, _ := json.Marshal(payload{subject, 1})
		d := webhook.Delivery{ID: "dlv-" + subject, EventID: "evt-" + subject, EndpointID: "ep", URL: rc.URL,
			EventType: "ACTIVITY_UPDATES", OrgID: "org-1", Subject: subject, Sequence: 1, Body: body}
		h.q.Add(d, start.Add(time.Hour)) // leased: no claim returns it
		return d, h.w.Offer([]webhook.Delivery{d})
	}
	if _, taken := offer("before"); taken {
		t.Fatal("a worker that is not running took an offer")
	}
	stop := h.run()
	if n := <-claims; n != 0 {
		t.Fatalf("the first claim took %d", n)
	}
	for _, subject := range []string{"A", "B", "C"} {
		if _, taken := offer(subject); !taken {
			t.Fatalf("the running worker refused %s", subject)
		}
	}
	h.wait("offered deliveries", func() bool {
		for _, id := range []string{"dlv-A", "dlv-B", "dlv-C"} {
			if r, _ := h.q.Get(id); r.State != webhooktest.Delivered {
				return false
			}
		}
		return true
	})
	if r, _ := h.q.Get("dlv-before"); r.State != webhooktest.Pending {
		t.Errorf("the refused offer: %+v", r)
	}
	stop()
	select {
	case n := <-claims:
		t.Errorf("offered deliveries called for a claim (of %d)", n)
	default:
	}
}

// An offer that waited for a free slot until too little of its lease is left for an attempt is dropped (claimed when
// the lease ends, not posted while another worker may claim it), and a worker that stops releases the offers it had
// not started.
func TestWorkerOfferWaitsNoLongerThanItsLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.w.Concurrency = 1
	h.w.OfferLease = 8 * time.Second // 2 s attempts: an offer may wait 1 s for a slot
	entered := make(chan struct{}, 1)
	releases := map[string]chan struct{}{"evt-busy": make(chan struct{}), "evt-busy2": make(chan struct{})}
	var posted sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Turnkey-Event-Id")
		posted.Store(id, true)
		if release, ok := releases[id]; ok {
			entered <- struct{}{}
			<-release
		}
	}))
	t.Cleanup(srv.Close)
	offer := func(id string) {
		d := webhook.Delivery{ID: id, EventID: "evt-" + id, EndpointID: "ep", URL: srv.URL, EventType: "ACTIVITY_UPDATES",
			Subject: id, Sequence: 1, Body: []byte("{}")}
		h.q.Add(d, start.Add(time.Hour))
		if !h.w.Offer([]webhook.Delivery{d}) {
			t.Fatalf("offer %s refused", id)
		}
	}
	claimed := make(chan struct{}, 100)
	h.q.OnClaim = func(time.Time, []webhook.Delivery) { claimed <- struct{}{} }
	stop := h.run()
	<-claimed // running
	offer("busy")
	<-entered // the one slot is taken
	offer("late")
	h.clk.AdvanceTo(start.Add(2 * time.Second))
	offer("left")
	close(releases["evt-busy"])
	h.wait("the busy one", func() bool { r, _ := h.q.Get("busy"); return r.State == webhooktest.Delivered })
	h.wait("the one offered last", func() bool { r, _ := h.q.Get("left"); return r.State == webhooktest.Delivered })
	if _, ok := posted.Load("evt-late"); ok {
		t.Error("an offer whose lease was running out was posted")
	}
	if r, _ := h.q.Get("late"); r.State != webhooktest.Pending || r.Releases != 0 {
		t.Errorf("the dropped offer: %+v", r)
	}

	// Stopping with an offer not started releases it.
	offer("busy2")
	<-entered
	offer("queued")
	go func() { <-h.cancelled; close(releases["evt-busy2"]) }() // the attempt in flight ends once the worker is stopping
	stop()
	if r, _ := h.q.Get("queued"); r.Releases != 1 {
		t.Errorf("an offer not started when the worker stopped: %+v", r)
	}
}

// DNS rebinding at delivery time: the endpoint's name resolves to a public address when the worker checks the URL
// before the attempt, and to loopback, where a receiver listens, when the client dials. The dial resolves again and
// refuses, so nothing reaches the receiver and the delivery fails with the reason.
func TestDeliveryRefusesANameReboundAtDial(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	res := &rebinding{name: "rebind.example.com", answers: []string{"93.184.216.34", "127.0.0.1"}}
	h.w.Guard = webhook.Guard{Resolver: res}
	h.w.Backoff.MaxAttempts = 1
	h.q.Add(webhook.Delivery{ID: "dlv-1", EventID: "evt-1", EndpointID: "ep", URL: "https://rebind.example.com:" + port + "/hook",
		EventType: "ACTIVITY_UPDATES", OrgID: "org-1", Body: []byte("{}")}, start)
	h.run()
	h.wait("the delivery ends", h.q.Settled)
	r, _ := h.q.Get("dlv-1")
	if r.State != webhooktest.Dead || !strings.Contains(r.LastErr, "127.0.0.1 is not a public address") {
		t.Errorf("the rebound delivery: %s %q, want dead with the dialled address refused", r.State, r.LastErr)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the receiver on loopback was reached %d times", n)
	}
	if got := res.lookups(); got != 2 {
		t.Errorf("%d lookups, want 2: the check before the attempt and the dial's", got)
	}
}

// rebinding answers the lookups of one name from a script, one answer each, the last repeating.
type rebinding struct {
	name    string
	mu      sync.Mutex
	answers []string
	n       int
}

func (r *rebinding) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if host != r.name {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a := r.answers[min(r.n, len(r.answers)-1)]
	r.n++
	return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
}

func (r *rebinding) lookups() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}
