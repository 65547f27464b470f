// Package webhooktest has an in-memory webhook.Queue for tests: the
// reference behaviour an outbox table is expected to have, including
// per-subject order.
package webhooktest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sigil/sigil/internal/webhook"
)

// The states of a delivery in the Queue.
const (
	Pending   = "pending"
	Delivered = "delivered"
	Dead      = "dead"
)

// Record is what the Queue knows of one delivery.
type Record struct {
	Delivery    webhook.Delivery // Attempts is the number made so far
	State       string
	Due         time.Time
	LeasedUntil time.Time
	LastErr     string
	Status      int // of the last answer: the 2xx once delivered; 0 when the endpoint did not answer
	DeliveredAt time.Time
	Releases    int
}

// Queue is an in-memory webhook.Queue. Claim hands out due, unleased pending
// deliveries in the order they were added, except one behind an earlier
// delivery of the same endpoint and subject that is still pending (waiting
// for a retry or leased): subjects are delivered in order.
type Queue struct {
	// OnFailed, if set, is called after a failed attempt is recorded,
	// outside the Queue's lock; a test can move its clock to next and
	// notify the worker, so that retries come without waiting.
	OnFailed func(d webhook.Delivery, next time.Time, dead bool)
	// OnClaim, if set, is called after each Claim with what it returned.
	OnClaim func(now time.Time, claimed []webhook.Delivery)

	mu      sync.Mutex
	records []*Record
	byID    map[string]*Record
	changed chan struct{} // closed and replaced on every change
}

// New returns an empty Queue.
func New() *Queue {
	return &Queue{byID: map[string]*Record{}, changed: make(chan struct{})}
}

// changedLocked wakes Wait's callers.
func (q *Queue) changedLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// Add queues d, due at due.
func (q *Queue) Add(d webhook.Delivery, due time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.byID[d.ID]; ok {
		panic(fmt.Sprintf("webhooktest: delivery %q added twice", d.ID))
	}
	r := &Record{Delivery: d, State: Pending, Due: due}
	q.records = append(q.records, r)
	q.byID[d.ID] = r
	q.changedLocked()
}

// Claim implements webhook.Queue. Of each endpoint and subject it claims
// the longest run of due, unleased pending deliveries that starts with the
// subject's first pending one, so that none overtakes an earlier one; none
// of an endpoint or tenant (Tenant, or OrgID) that busy names.
func (q *Queue) Claim(_ context.Context, now time.Time, n int, lease time.Duration, busy webhook.Busy) ([]webhook.Delivery, error) {
	q.mu.Lock()
	var out []webhook.Delivery
	closed := map[[2]string]bool{}
	for _, r := range q.records {
		if r.State != Pending {
			continue
		}
		tenant := r.Delivery.Tenant
		if tenant == "" {
			tenant = r.Delivery.OrgID
		}
		if slices.Contains(busy.Endpoints, r.Delivery.EndpointID) || slices.Contains(busy.Tenants, tenant) {
			continue
		}
		k := [2]string{r.Delivery.EndpointID, r.Delivery.Subject}
		if r.Delivery.Subject != "" && closed[k] {
			continue
		}
		if len(out) >= n || r.Due.After(now) || r.LeasedUntil.After(now) {
			closed[k] = true
			continue
		}
		r.LeasedUntil = now.Add(lease)
		out = append(out, r.Delivery)
	}
	if len(out) > 0 {
		q.changedLocked()
	}
	hook := q.OnClaim
	q.mu.Unlock()
	if hook != nil {
		hook(now, out)
	}
	return out, nil
}

// get is the pending delivery ref names: its id, in its organization (a store's outbox is keyed by both).
func (q *Queue) get(ref webhook.Ref) (*Record, error) {
	id := ref.ID
	r, ok := q.byID[id]
	if !ok || r.Delivery.OrgID != ref.OrgID {
		return nil, fmt.Errorf("webhooktest: no delivery %q in organization %q", id, ref.OrgID)
	}
	if r.State != Pending {
		return nil, fmt.Errorf("webhooktest: delivery %q is already %s", id, r.State)
	}
	return r, nil
}

// Delivered implements webhook.Queue.
func (q *Queue) Delivered(_ context.Context, ref webhook.Ref, at time.Time, status int) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, err := q.get(ref)
	if err != nil {
		return err
	}
	r.State, r.Status, r.DeliveredAt, r.LeasedUntil = Delivered, status, at, time.Time{}
	r.Delivery.Attempts++
	q.changedLocked()
	return nil
}

// Failed implements webhook.Queue.
func (q *Queue) Failed(_ context.Context, ref webhook.Ref, f webhook.Failure) error {
	q.mu.Lock()
	r, err := q.get(ref)
	if err != nil {
		q.mu.Unlock()
		return err
	}
	r.Delivery.Attempts, r.Due, r.Status, r.LastErr, r.LeasedUntil = f.Attempts, f.Next, f.Status, f.Reason, time.Time{}
	if f.Dead {
		r.State = Dead
	}
	d := r.Delivery
	q.changedLocked()
	hook := q.OnFailed
	q.mu.Unlock()
	if hook != nil {
		hook(d, f.Next, f.Dead)
	}
	return nil
}

// Release implements webhook.Queue.
func (q *Queue) Release(_ context.Context, ref webhook.Ref, next time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, err := q.get(ref)
	if err != nil {
		return err
	}
	r.Due, r.LeasedUntil = next, time.Time{}
	r.Releases++
	q.changedLocked()
	return nil
}

// Get returns a copy of the record of delivery id.
func (q *Queue) Get(id string) (Record, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.byID[id]
	if !ok {
		return Record{}, false
	}
	return *r, true
}

// Records returns copies of every record, in the order added.
func (q *Queue) Records() []Record {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]Record, len(q.records))
	for i, r := range q.records {
		out[i] = *r
	}
	return out
}

// Settled reports whether every delivery is delivered or dead.
func (q *Queue) Settled() bool {
	for _, r := range q.Records() {
		if r.State == Pending {
			return false
		}
	}
	return true
}

// Wait blocks until cond (called without the Queue's lock) holds after some
// change, or ctx is done.
func (q *Queue) Wait(ctx context.Context, cond func() bool) error {
	for {
		q.mu.Lock()
		ch := q.changed
		q.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}
