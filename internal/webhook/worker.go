package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The signing schemes of a delivery.
const (
	SchemeTurnkey = "turnkey" // Ed25519, X-Turnkey-* headers; the default
	SchemeHMAC    = "hmac"    // HMAC-SHA256 under the endpoint's secret, X-Sigil-* headers
)

// Delivery is one event to be posted to one endpoint.
type Delivery struct {
	ID         string // the delivery's own id, for the Queue
	EventID    string // sent as the event id header; the same on every attempt
	EndpointID string
	URL        string
	EventType  string
	OrgID      string // X-Turnkey-Organization-Id
	// Subject groups deliveries whose order matters (e.g. one transaction's
	// status changes). A Worker posts the deliveries of one endpoint and
	// subject in the order Claim returned them, one at a time; "" means none.
	Subject  string
	Sequence int64 // the event's number within its subject, for the Queue
	// Tenant is whose endpoint it is, for the worker's caps per tenant (PerTenant): the organization that
	// registered it, or its billing organization; "" counts as OrgID.
	Tenant   string
	Body     []byte
	Attempts int    // attempts already made
	Scheme   string // SchemeTurnkey ("" too) or SchemeHMAC
	Secret   []byte // the endpoint's secret, HMAC only
}

// Queue is where a Worker takes deliveries from and reports to; the outbox
// tables implement it elsewhere.
//
// To keep one subject's deliveries in order across retries, Claim must not
// return a delivery while an earlier one of the same endpoint and subject is
// neither delivered nor dead (it is waiting for a retry, or leased), and must
// return one subject's deliveries in sequence order.
type Queue interface {
	// Claim returns up to n deliveries due at now, leased until now+lease
	// so that another worker does not take them meanwhile, none of them to
	// an endpoint or for a tenant that busy names.
	Claim(ctx context.Context, now time.Time, n int, lease time.Duration, busy Busy) ([]Delivery, error)
	// Delivered records a 2xx answer.
	Delivered(ctx context.Context, d Ref, at time.Time, status int) error
	// Failed records a failed attempt.
	Failed(ctx context.Context, d Ref, f Failure) error
	// Release gives a claimed delivery back without attempting it, due at
	// next: it waited behind one of its subject that failed, or the worker
	// is stopping.
	Release(ctx context.Context, d Ref, next time.Time) error
}

// Ref names a claimed delivery to its Queue: its organization (an outbox
// is keyed by it) and its id.
type Ref struct{ OrgID, ID string }

// Ref is the delivery's name for its Queue.
func (d Delivery) Ref() Ref { return Ref{OrgID: d.OrgID, ID: d.ID} }

// Failure is a failed attempt as the Queue records it.
type Failure struct {
	Attempts int       // attempts made so far, this one included
	Status   int       // the HTTP status the endpoint answered, 0 if it did not answer
	Reason   string    // why the attempt failed
	Dead     bool      // no attempt follows: the dead-letter state
	Next     time.Time // when the next attempt is due or, if Dead, when it died
}

// Backoff is the retry schedule: after the nth failed attempt the next is
// due after a random delay between 0 and min(Cap, Base·2^(n-1)) ("full
// jitter"), and after MaxAttempts failed attempts the delivery is dead.
type Backoff struct {
	Base        time.Duration // default 10 s
	Cap         time.Duration // default 1 h
	MaxAttempts int           // default 10
}

func (b Backoff) withDefaults() Backoff {
	if b.Base <= 0 {
		b.Base = 10 * time.Second
	}
	if b.Cap <= 0 {
		b.Cap = time.Hour
	}
	if b.MaxAttempts <= 0 {
		b.MaxAttempts = 10
	}
	return b
}

// Ceiling is the longest delay after the attempt-th failed attempt.
func (b Backoff) Ceiling(attempt int) time.Duration {
	b = b.withDefaults()
	d := b.Base
	for i := 1; i < attempt && d < b.Cap; i++ {
		d *= 2
	}
	return min(d, b.Cap)
}

// Delay is the delay after the attempt-th failed attempt: jitter(Ceiling),
// where jitter returns a duration in [0, max] (nil: uniformly random).
func (b Backoff) Delay(attempt int, jitter func(max time.Duration) time.Duration) time.Duration {
	c := b.Ceiling(attempt)
	if jitter == nil {
		return time.Duration(rand.Int64N(int64(c) + 1))
	}
	return min(max(jitter(c), 0), c)
}

// ResponseBodyLimit is the most a Worker reads of a response's body, and
// ReasonLimit the most of it kept in a failure's reason.
const (
	ResponseBodyLimit = 4 << 10
	ReasonLimit       = 256
)

// DefaultRetry says whether a failed attempt is worth another: a network
// error or timeout (status 0) always is. For Turnkey-style deliveries only a
// 5xx is, as Turnkey documents: 3xx, 4xx and 429 answers are terminal. For
// HMAC deliveries every non-2xx answer is retried.
func DefaultRetry(d Delivery, status int) bool {
	if status == 0 {
		return true
	}
	if d.Scheme == SchemeHMAC {
		return true
	}
	return status >= 500
}

// Worker posts queued deliveries. Set Queue (and Signer for Turnkey-style
// deliveries); every other field has a default.
type Worker struct {
	Queue  Queue
	Signer *Signer // signs SchemeTurnkey deliveries
	Guard  Guard   // checked before every attempt
	// Client overrides Guard.Client(Timeout). It must not follow redirects.
	Client      *http.Client
	Timeout     time.Duration // one attempt; default DefaultTimeout
	Backoff     Backoff
	Concurrency int // attempts in flight at once; default 8
	// PerEndpoint and PerTenant cap the attempts in flight to one endpoint and for one tenant (Delivery.Tenant):
	// defaults DefaultPerEndpoint and DefaultPerTenant, at most Concurrency. Breaker opens the circuit of an endpoint
	// that keeps timing out. See Busy.
	PerEndpoint  int
	PerTenant    int
	Breaker      Breaker
	PollInterval time.Duration // between claims when not notified; default 5 s
	// Gather is how long the worker waits, once woken by Notify, before it
	// claims: deliveries written close together are then claimed in one claim
	// and their outcomes recorded together, which costs the store one write
	// for many instead of one each. 0 claims at once.
	Gather time.Duration
	// Lease is how long a claim holds its deliveries; default long enough
	// for Concurrency attempts one after the other.
	Lease     time.Duration
	Retry     func(d Delivery, status int) bool // default DefaultRetry
	UserAgent string                            // default "Sigil-Webhooks/1"
	Log       *slog.Logger                      // default slog.Default()

	// Now, After and Jitter are the clock, the poll timer and the backoff's
	// randomness (defaults time.Now, time.After, uniform), injectable so that
	// tests never sleep.
	Now    func() time.Time
	After  func(time.Duration) <-chan time.Time
	Jitter func(max time.Duration) time.Duration

	once   sync.Once
	wake   chan struct{}
	offers chan struct{} // something was offered

	// OfferLease is how long the deliveries its process Offers are leased to it (default 2 minutes). One still
	// waiting for a free slot when too little of its lease is left for an attempt is dropped, to be claimed
	// when the lease ends, rather than posted while another worker may claim it too.
	OfferLease time.Duration

	mu      sync.Mutex
	running bool    // Run is taking offers
	offered []offer // handed over by Offer, not started yet
}

// offer is a delivery handed over by Offer, and when.
type offer struct {
	d  Delivery
	at time.Time
}

// DefaultOfferLease is OfferLease's default: a wait for a free slot and an attempt, with room to spare.
const DefaultOfferLease = 2 * time.Minute

// maxOffered bounds the deliveries offered and not started: beyond it the oldest are dropped, to be claimed when their
// lease ends (a tenant whose endpoints are all at their caps could otherwise pile up its new activities' deliveries).
const maxOffered = 4096

func (w *Worker) init() {
	w.once.Do(func() { w.wake, w.offers = make(chan struct{}, 1), make(chan struct{}, 1) })
}

// Offer hands a running worker deliveries its process has just written and leased to itself (lease_until set in the
// transaction that wrote them): it posts them as if it had claimed them, without a claim. The caller must offer only
// deliveries no earlier one of their subject waits for (e.g. a new activity's first update). It reports whether the
// worker took them; when it did not (it is not running), they are claimed when their lease ends. A worker that stops
// releases what it was offered and had not started.
func (w *Worker) Offer(ds []Delivery) bool {
	w.init()
	now := w.now()
	w.mu.Lock()
	taken := w.running
	if taken {
		for _, d := range ds {
			w.offered = append(w.offered, offer{d, now})
		}
		if over := len(w.offered) - maxOffered; over > 0 {
			w.log().Warn("webhook: too many offered deliveries wait for a free slot; the oldest are claimed when their lease ends", "dropped", over)
			w.offered = slices.Delete(w.offered, 0, over)
		}
	}
	w.mu.Unlock()
	if taken {
		select {
		case w.offers <- struct{}{}:
		default:
		}
	}
	return taken
}

// takeOffered returns runs of offered deliveries to start, in the order offered, at most n, each admitted by the
// scheduler (runs of one endpoint and subject, as groupBySubject makes them). It drops those whose lease may end before
// their attempt does, returns in held those an open circuit holds (to be released until it closes), and leaves the
// others offered: their endpoint or tenant is at its cap.
func (w *Worker) takeOffered(n int, s *scheduler) (runs [][]Delivery, held []heldRun) {
	lease := w.OfferLease
	if lease <= 0 {
		lease = DefaultOfferLease
	}
	margin := lease - w.timeout() - 5*time.Second // the longest an offer may wait (none is dropped if it is not positive)
	now := w.now()
	oldest := now.Add(-margin)
	w.mu.Lock()
	defer w.mu.Unlock()
	index := map[[2]string]int{} // runs by endpoint and subject
	kept := w.offered[:0]
	for _, o := range w.offered {
		if margin > 0 && o.at.Before(oldest) {
			w.log().Warn("webhook: an offered delivery waited too long for a free slot; it is claimed when its lease ends",
				"delivery", o.d.ID, "event", o.d.EventID)
			continue
		}
		k := [2]string{o.d.EndpointID, o.d.Subject}
		if i, ok := index[k]; ok && o.d.Subject != "" {
			runs[i] = append(runs[i], o.d)
			continue
		}
		if len(runs) == n {
			kept = append(kept, o)
			continue
		}
		switch a, until := s.admit(o.d, now); a {
		case admitted:
			index[k] = len(runs)
			runs = append(runs, []Delivery{o.d})
		case open:
			held = append(held, heldRun{[]Delivery{o.d}, until})
		default:
			kept = append(kept, o)
		}
	}
	clear(w.offered[len(kept):])
	w.offered = kept
	return runs, held
}

// heldRun is a run of deliveries an open circuit holds until.
type heldRun struct {
	ds    []Delivery
	until time.Time
}

// setRunning opens or closes the worker to offers; closing returns what was offered and not started.
func (w *Worker) setRunning(running bool) []Delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running = running
	left := make([]Delivery, len(w.offered))
	for i, o := range w.offered {
		left[i] = o.d
	}
	w.offered = nil
	return left
}

// Notify wakes a running worker to claim at once, e.g. after an event was
// written. It never blocks; notifications while it is busy coalesce.
func (w *Worker) Notify() {
	w.init()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) after(d time.Duration) <-chan time.Time {
	if w.After != nil {
		return w.After(d)
	}
	return time.After(d)
}

func (w *Worker) timeout() time.Duration {
	if w.Timeout > 0 {
		return w.Timeout
	}
	return DefaultTimeout
}

func (w *Worker) concurrency() int {
	if w.Concurrency > 0 {
		return w.Concurrency
	}
	return 8
}

func (w *Worker) pollInterval() time.Duration {
	if w.PollInterval > 0 {
		return w.PollInterval
	}
	return 5 * time.Second
}

func (w *Worker) lease() time.Duration {
	if w.Lease > 0 {
		return w.Lease
	}
	return time.Duration(w.concurrency())*(w.timeout()+5*time.Second) + time.Minute
}

func (w *Worker) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}

// Run claims and posts deliveries until ctx is done: at once when notified
// (after Gather), PollInterval after its last claim otherwise, and whenever
// an attempt ends while more may be due. It posts what its process Offers
// without claiming it. Deliveries of different subjects are posted
// concurrently, up to Concurrency at once. When ctx is done it claims no more, lets the attempts
// in flight end (each within Timeout), releases what it had claimed but not
// attempted, and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	if w.Queue == nil {
		return errors.New("webhook: Worker has no Queue")
	}
	w.init()
	client := w.Client
	if client == nil {
		client = w.Guard.Client(w.timeout())
	}
	slots := w.concurrency()
	r := &run{w: w, ctx: ctx, client: client, slots: slots, done: make(chan ended, slots), wanted: true,
		sched: newScheduler(w.PerEndpoint, w.PerTenant, slots, w.Breaker)}
	defer r.wg.Wait()
	w.setRunning(true)
	defer func() { w.release(context.WithoutCancel(ctx), w.setRunning(false), w.now()) }()
	defer r.releaseWaiting()
	for ctx.Err() == nil {
		// Claimed runs that waited for their endpoint's or tenant's turn first, then offered deliveries: they are
		// due, and already leased to this worker.
		r.startWaiting()
		runs, held := w.takeOffered(r.free(), r.sched)
		r.start(runs, r.claims)
		for _, h := range held {
			w.release(context.WithoutCancel(ctx), h.ds, h.until)
		}
		if r.wanted && r.free() > 0 && r.claim() {
			continue
		}
		if !r.wait() {
			return nil
		}
	}
	return nil
}

// run is the state of one Run: the attempts in flight and whether a claim is wanted.
//
// A claim is wanted at the start, when notified, when the poll interval has passed since the last, and when attempts
// end (a delivery that waited behind one of its subject may now be due) — but not when offered deliveries end with
// no claim since they were offered: nothing can have waited behind them, and a claim would cost the queue a write for
// nothing.
type run struct {
	w      *Worker
	ctx    context.Context
	client *http.Client
	slots  int
	sched  *scheduler
	done   chan ended // runs of deliveries that ended
	wg     sync.WaitGroup

	inflight int              // runs started and not ended
	waiting  []waitingRun     // claimed runs whose endpoint or tenant was at its cap, in claim order
	claims   int              // claims made
	wanted   bool             // a claim is wanted
	poll     <-chan time.Time // the poll interval since the last claim; nil before it is set
}

func (r *run) free() int { return r.slots - r.inflight }

// start posts runs the scheduler admitted, one goroutine each; claim is the claim they came from (claimed), or the
// number of claims made when they were offered.
func (r *run) start(runs [][]Delivery, claim int) {
	for _, g := range runs {
		r.inflight++
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.w.deliverGroup(r.ctx, r.client, r.sched, g)
			r.sched.done(g[0])
			r.done <- ended{claim}
		}()
	}
}

// waitingRun is a claimed run waiting for its endpoint's or tenant's turn, since it was claimed.
type waitingRun struct {
	ds    []Delivery
	since time.Time
}

// admit splits runs into those the scheduler admits, to start, and the others: kept waiting, leased to this worker,
// when their endpoint or tenant is at its cap (claims leave it alone meanwhile), given back until its circuit closes
// when it is open.
func (r *run) admit(runs []waitingRun) [][]Delivery {
	var start [][]Delivery
	now := r.w.now()
	for _, g := range runs {
		if len(start) == r.free() {
			r.waiting = append(r.waiting, g)
			continue
		}
		switch a, until := r.sched.admit(g.ds[0], now); a {
		case admitted:
			start = append(start, g.ds)
		case open:
			r.w.release(context.WithoutCancel(r.ctx), g.ds, until)
		default:
			r.waiting = append(r.waiting, g)
		}
	}
	return start
}

// claimedRuns are a claim's runs, waiting from now.
func claimedRuns(ds []Delivery, now time.Time) []waitingRun {
	groups := groupBySubject(ds)
	out := make([]waitingRun, len(groups))
	for i, g := range groups {
		out[i] = waitingRun{g, now}
	}
	return out
}

// startWaiting starts the waiting runs the scheduler now admits, in the order they were claimed. One that has waited
// half its lease is given back instead, so that it is never posted while another worker may claim it.
func (r *run) startWaiting() {
	if len(r.waiting) == 0 {
		return
	}
	oldest := r.w.now().Add(-r.w.lease() / 2)
	waiting := r.waiting[:0]
	for _, g := range r.waiting {
		if g.since.Before(oldest) {
			r.w.release(context.WithoutCancel(r.ctx), g.ds, r.w.now())
			continue
		}
		waiting = append(waiting, g)
	}
	r.waiting = nil
	r.start(r.admit(waiting), claimed)
}

// releaseWaiting gives back the runs still waiting when Run ends.
func (r *run) releaseWaiting() {
	for _, g := range r.waiting {
		r.w.release(context.WithoutCancel(r.ctx), g.ds, r.w.now())
	}
	r.waiting = nil
}

// busy is what the next claim must leave alone: what the scheduler names, and the endpoints of the runs waiting,
// which have their share already.
func (r *run) busy() Busy {
	b := r.sched.busy(r.w.now())
	for _, g := range r.waiting {
		if !slices.Contains(b.Endpoints, g.ds[0].EndpointID) {
			b.Endpoints = append(b.Endpoints, g.ds[0].EndpointID)
		}
	}
	slices.Sort(b.Endpoints)
	return b
}

// claim claims as many due deliveries as there are free slots and starts them. It reports whether to claim again at
// once: a full claim that fitted in fewer slots may leave some free, and more may be due.
func (r *run) claim() bool {
	w, free := r.w, r.free()
	ds, err := w.Queue.Claim(r.ctx, w.now(), free, w.lease(), r.busy())
	if err != nil && r.ctx.Err() == nil {
		w.log().Error("webhook: claiming deliveries", "err", err)
	}
	if len(ds) > free { // a Queue that ignores n: give the excess back
		w.log().Error("webhook: Claim returned more deliveries than asked for", "asked", free, "got", len(ds))
		w.release(context.WithoutCancel(r.ctx), ds[free:], w.now())
		ds = ds[:free]
	}
	r.claims++
	r.start(r.admit(claimedRuns(ds, w.now())), claimed)
	r.poll, r.wanted = nil, false
	if err == nil && len(ds) == free && r.inflight < r.slots {
		r.wanted = true
		return true
	}
	return false
}

// wait waits for something to do: an attempt ending, a notification (then Gather), an offer, or the poll interval.
// It then counts every attempt that ended meanwhile. It reports false when ctx is done.
func (r *run) wait() bool {
	w := r.w
	if r.poll == nil {
		r.poll = w.after(w.pollInterval())
	}
	woken := false
	select {
	case <-r.ctx.Done():
		return false
	case e := <-r.done:
		r.settle(e)
	case <-w.wake:
		woken, r.wanted = true, true
	case <-w.offers:
	case <-r.poll:
		r.poll, r.wanted = nil, true
	}
	if woken && w.Gather > 0 {
		select {
		case <-r.ctx.Done():
			return false
		case <-w.after(w.Gather):
		}
	}
	for {
		select {
		case e := <-r.done:
			r.settle(e)
		default:
			return true
		}
	}
}

// settle counts a run of deliveries that ended.
func (r *run) settle(e ended) {
	r.inflight--
	r.wanted = r.wanted || e.claim != r.claims
}

// ended is a run of deliveries that ended: claimed, or offered when the worker had made claim claims.
type ended struct{ claim int }

// claimed marks a run that came from a claim.
const claimed = -1

// groupBySubject splits a claim into runs posted one after the other: one
// per endpoint and subject, in claim order, and one per subject-less
// delivery.
func groupBySubject(ds []Delivery) [][]Delivery {
	var groups [][]Delivery
	index := map[[2]string]int{}
	for _, d := range ds {
		if d.Subject == "" {
			groups = append(groups, []Delivery{d})
			continue
		}
		k := [2]string{d.EndpointID, d.Subject}
		if i, ok := index[k]; ok {
			groups[i] = append(groups[i], d)
			continue
		}
		index[k] = len(groups)
		groups = append(groups, []Delivery{d})
	}
	return groups
}

// deliverGroup posts one subject's deliveries in order. After a failure that
// will be retried, the rest wait for it: they are released, due no earlier
// than its retry. A dead one does not hold the rest back.
func (w *Worker) deliverGroup(ctx context.Context, client *http.Client, s *scheduler, g []Delivery) {
	// An attempt under way ends on its own timeout, not on ctx.
	bg := context.WithoutCancel(ctx)
	for i, d := range g {
		if ctx.Err() != nil {
			w.release(bg, g[i:], w.now())
			return
		}
		res := w.attempt(bg, client, s, d)
		if !res.delivered && !res.dead {
			w.release(bg, g[i+1:], res.next)
			return
		}
	}
}

func (w *Worker) release(ctx context.Context, ds []Delivery, next time.Time) {
	for _, d := range ds {
		if err := w.Queue.Release(ctx, d.Ref(), next); err != nil {
			w.log().Error("webhook: releasing a delivery", "delivery", d.ID, "err", err)
		}
	}
}

type result struct {
	delivered, dead bool
	next            time.Time
}

// attempt makes one attempt, tells the scheduler whether it was answered, and records its outcome in the Queue.
func (w *Worker) attempt(ctx context.Context, client *http.Client, s *scheduler, d Delivery) result {
	n := d.Attempts + 1
	status, reason, perm, timedOut := w.post(ctx, client, d)
	if cooldown := s.attempted(d.EndpointID, timedOut, w.now()); cooldown > 0 {
		w.log().Warn("webhook: an endpoint keeps timing out; no attempt is made to it for a while", "endpoint", d.EndpointID,
			"url", d.URL, "for", cooldown)
	}
	if reason == "" {
		if err := w.Queue.Delivered(ctx, d.Ref(), w.now(), status); err != nil {
			w.log().Error("webhook: recording a delivery", "delivery", d.ID, "err", err)
		}
		return result{delivered: true}
	}
	retry := w.Retry
	if retry == nil {
		retry = DefaultRetry
	}
	b := w.Backoff.withDefaults()
	res := result{dead: perm || !retry(d, status) || n >= b.MaxAttempts}
	if !res.dead {
		res.next = w.now().Add(b.Delay(n, w.Jitter))
	}
	log := w.log().With("delivery", d.ID, "event", d.EventID, "endpoint", d.EndpointID, "attempt", n, "reason", reason)
	if res.dead {
		log.Warn("webhook: delivery failed for good")
	} else {
		log.Info("webhook: delivery failed; will retry", "next", res.next)
	}
	at := res.next
	if res.dead {
		at = w.now() // when it died
	}
	if err := w.Queue.Failed(ctx, d.Ref(), Failure{Attempts: n, Status: status, Reason: reason, Dead: res.dead, Next: at}); err != nil {
		w.log().Error("webhook: recording a failed delivery", "delivery", d.ID, "err", err)
	}
	return res
}

// post makes one HTTP attempt. It returns the status (0 if there was no
// answer) and, unless the answer was a 2xx, why the attempt failed,
// whether no later attempt can succeed, and whether it timed out (it held
// its slot for the whole timeout).
func (w *Worker) post(ctx context.Context, client *http.Client, d Delivery) (status int, reason string, perm, timedOut bool) {
	timeout := w.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := w.Guard.CheckURL(ctx, d.URL); err != nil {
		return 0, err.Error(), IsPermanent(err), ctx.Err() != nil
	}
	m := Meta{EventID: d.EventID, EventType: d.EventType, OrganizationID: d.OrgID}
	var h http.Header
	var err error
	switch d.Scheme {
	case SchemeTurnkey, "":
		if w.Signer == nil {
			return 0, "webhook: no signing key is configured", false, false
		}
		h, err = w.Signer.Headers(m, d.Body, w.now())
	case SchemeHMAC:
		h, err = HMACHeaders(d.Secret, m, d.Body, w.now())
	default:
		err = fmt.Errorf("webhook: unknown signing scheme %q", d.Scheme)
	}
	if err != nil {
		return 0, err.Error(), true, false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, err.Error(), true, false
	}
	req.Header = h
	ua := w.UserAgent
	if ua == "" {
		ua = "Sigil-Webhooks/1"
	}
	req.Header.Set("User-Agent", ua)
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
			return 0, fmt.Sprintf("timeout: no answer within %s", timeout), false, true
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the "Post <url>:" prefix
		}
		return 0, err.Error(), false, false
	}
	body, readErr := readLimited(resp.Body, ResponseBodyLimit)
	resp.Body.Close()
	// A body dripped until the timeout held the slot as long as no answer would: it counts as a timeout.
	timedOut = readErr != nil && ctx.Err() != nil
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, "", false, timedOut
	}
	reason = fmt.Sprintf("HTTP %d", resp.StatusCode)
	if resp.StatusCode/100 == 3 {
		reason += " (redirects are not followed)"
	}
	if s := snippet(body, ReasonLimit); s != "" {
		reason += ": " + s
	} else if timedOut {
		reason += fmt.Sprintf(" (body not read within %s)", timeout)
	}
	return resp.StatusCode, reason, false, timedOut
}

// readLimited reads at most limit bytes of r.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, limit))
}

// snippet is body made fit for a log line: valid UTF-8, control characters
// and runs of spaces as one space, at most limit bytes with "…" if cut.
func snippet(body []byte, limit int) string {
	var b strings.Builder
	space := false
	for len(body) > 0 {
		r, size := utf8.DecodeRune(body)
		body = body[size:]
		if r == utf8.RuneError && size <= 1 {
			r = '\uFFFD'
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			if b.Len()+1 > limit {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > limit {
			return b.String() + "…"
		}
		b.WriteRune(r)
	}
	return b.String()
}
