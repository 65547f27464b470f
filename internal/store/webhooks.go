package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/webhook"
)

// The states of a webhook delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

// The services whose deliveries share the outbox; each one's worker claims only its own.
const (
	WebhookSourceCoordinator = "coordinator"
	WebhookSourceYield       = "yield"
)

// WebhookDelivery is one event for one endpoint: a row of the webhook outbox.
type WebhookDelivery struct {
	ID, EventID, EndpointID, OrgID, URL, EventType, Subject string
	// Tenant is whose endpoint it is (webhook.Delivery.Tenant): the billing organization, or the yield project; ""
	// is written as OrgID.
	Tenant                                string
	Sequence                              int64 // the event's number within its subject
	Body                                  []byte
	State                                 string
	Attempts                              int
	NextAt, LeaseUntil, CreatedAt, DoneAt int64 // unix nanoseconds; 0 when not set
	LastStatus                            int
	LastError                             string
	Scheme                                string // webhook.SchemeTurnkey ("" too) or webhook.SchemeHMAC
	// Secret is the endpoint's secret as sealed by its service (HMAC only); the store never sees it in plain form.
	Secret []byte
	Source string // WebhookSourceCoordinator ("" too) or WebhookSourceYield
	// ByReference says the outbox keeps no copy of Body: what the delivery reports cannot change any more, and the
	// queue's RenderBodies renders it again from the store when the delivery is claimed. Body is still what the
	// writing process's worker is offered.
	ByReference bool
}

// EnqueueWebhookDeliveries adds deliveries to the outbox, due at once, in the transaction of the change they report:
// they exist exactly when it does. A delivery with LeaseUntil set is leased from the start to the writing process's
// worker, which is handed it after the commit (webhook.Worker.Offer): no worker claims it before the lease ends.
func (t *Tx) EnqueueWebhookDeliveries(ctx context.Context, ds []WebhookDelivery) error {
	for _, d := range ds {
		scheme, source := d.Scheme, d.Source
		if scheme == "" {
			scheme = webhook.SchemeTurnkey
		}
		if source == "" {
			source = WebhookSourceCoordinator
		}
		if d.ByReference {
			source = byReference(source)
		}
		tenant := d.Tenant
		if tenant == "" {
			tenant = d.OrgID
		}
		_, err := t.exec(ctx, `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, org_id, url, event_type, subject,
			sequence, body, state, attempts, next_at, lease_until, last_status, last_error, created_at, done_at, scheme, secret, source, tenant)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, '', ?, 0, ?, ?, ?, ?)`,
			d.ID, d.EventID, d.EndpointID, d.OrgID, d.URL, d.EventType, d.Subject, d.Sequence, d.storedBody(), DeliveryPending,
			d.CreatedAt, d.LeaseUntil, d.CreatedAt, scheme, base64.StdEncoding.EncodeToString(d.Secret), source, tenant)
		if err != nil {
			return fmt.Errorf("store: enqueue webhook delivery: %w", err)
		}
	}
	return nil
}

// byReference is the source of a service's deliveries written by reference. Only a worker that renders their bodies
// claims them (WebhookQueue.RenderBodies): a coordinator of an earlier release, sharing the database during an
// upgrade, claims its own source alone and would post them empty.
func byReference(source string) string { return source + ":by-reference" }

// storedBody is the body column: empty for a delivery by reference.
func (d WebhookDelivery) storedBody() string {
	if d.ByReference {
		return ""
	}
	return string(d.Body)
}

// RetargetWebhookDeliveries sends an endpoint's pending deliveries to its new URL.
func (t *Tx) RetargetWebhookDeliveries(ctx context.Context, endpointID, url string) error {
	_, err := t.exec(ctx, "UPDATE webhook_deliveries SET url = ? WHERE endpoint_id = ? AND state = ?", url, endpointID, DeliveryPending)
	if err != nil {
		return fmt.Errorf("store: retarget webhook deliveries: %w", err)
	}
	return nil
}

// AbandonWebhookDeliveries moves an endpoint's pending deliveries to the dead-letter state with the reason: the
// endpoint was deleted or deactivated, and nobody is to be called for them.
func (t *Tx) AbandonWebhookDeliveries(ctx context.Context, endpointID, reason string, at int64) error {
	_, err := t.exec(ctx, "UPDATE webhook_deliveries SET state = ?, last_error = ?, done_at = ?, lease_until = 0 WHERE endpoint_id = ? AND state = ?",
		DeliveryDead, reason, at, endpointID, DeliveryPending)
	if err != nil {
		return fmt.Errorf("store: abandon webhook deliveries: %w", err)
	}
	return nil
}

// ReplayWebhookDeliveries queues an endpoint's dead deliveries again, due at once with a full set of attempts and
// the endpoint's current URL, keeping their event ids and bodies: the named ones, or with none named its oldest dead
// ones up to limit. It returns the ids it queued; a named id that is not a dead delivery of the endpoint is an error
// wrapping ErrNotFound, naming it, and the caller's transaction must then be rolled back.
func (t *Tx) ReplayWebhookDeliveries(ctx context.Context, endpointID, url string, ids []string, at int64, limit int) ([]string, error) {
	if len(ids) == 0 {
		rows, err := t.query(ctx, "SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND state = ? ORDER BY seq LIMIT ?",
			endpointID, DeliveryDead, limit)
		if err != nil {
			return nil, fmt.Errorf("store: dead webhook deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return nil, fmt.Errorf("store: dead webhook deliveries: %w", err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: dead webhook deliveries: %w", err)
		}
		rows.Close() // before the updates: SQLite's one write connection
	}
	for _, id := range ids {
		res, err := t.exec(ctx, `UPDATE webhook_deliveries SET state = ?, attempts = 0, next_at = ?, lease_until = 0, done_at = 0, url = ?
			WHERE id = ? AND endpoint_id = ? AND state = ?`, DeliveryPending, at, url, id, endpointID, DeliveryDead)
		if err != nil {
			return nil, fmt.Errorf("store: replay webhook delivery: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return nil, fmt.Errorf("%w: %s is not a dead delivery of endpoint %s", ErrNotFound, id, endpointID)
		}
	}
	return ids, nil
}

// WebhookDeliveriesSince returns the deliveries of an event type whose subject begins with a prefix and whose sequence
// is at least from, in the order they were written, but not dead ones nor those whose event id begins with skipPrefix:
// e.g. a network's balance events of blocks a reorganisation replaced.
func (s *Store) WebhookDeliveriesSince(ctx context.Context, eventType, subjectPrefix string, from int64, skipPrefix string) ([]WebhookDelivery, error) {
	rows, err := s.query(ctx, `SELECT `+webhookDeliveryColumns+` FROM webhook_deliveries
		WHERE event_type = ? AND substr(subject, 1, ?) = ? AND sequence >= ? AND state <> ? AND substr(event_id, 1, ?) <> ? ORDER BY seq`,
		eventType, len(subjectPrefix), subjectPrefix, from, DeliveryDead, len(skipPrefix), skipPrefix)
	if err != nil {
		return nil, fmt.Errorf("store: webhook deliveries since: %w", err)
	}
	return collectDeliveries(rows)
}

// WebhookEventExists says whether an event was written for an endpoint already.
func (t *Tx) WebhookEventExists(ctx context.Context, endpointID, eventID string) (bool, error) {
	var n int
	err := t.queryRow(ctx, "SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?", endpointID, eventID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: webhook event exists: %w", err)
	}
	return n > 0, nil
}

const webhookDeliveryColumns = `id, event_id, endpoint_id, org_id, url, event_type, subject, sequence, body, state, attempts,
	next_at, lease_until, last_status, last_error, created_at, done_at, scheme, secret, source, tenant`

func scanWebhookDelivery(row interface{ Scan(...any) error }) (WebhookDelivery, error) {
	var d WebhookDelivery
	var body, secret string
	err := row.Scan(&d.ID, &d.EventID, &d.EndpointID, &d.OrgID, &d.URL, &d.EventType, &d.Subject, &d.Sequence, &body, &d.State,
		&d.Attempts, &d.NextAt, &d.LeaseUntil, &d.LastStatus, &d.LastError, &d.CreatedAt, &d.DoneAt, &d.Scheme, &secret, &d.Source, &d.Tenant)
	if err != nil {
		return d, err
	}
	d.Body = []byte(body)
	if source, ok := strings.CutSuffix(d.Source, byReference("")); ok {
		d.Source, d.ByReference = source, true
	}
	if secret != "" {
		if d.Secret, err = base64.StdEncoding.DecodeString(secret); err != nil {
			return d, fmt.Errorf("delivery %s: secret: %w", d.ID, err)
		}
	}
	return d, nil
}

// ListWebhookDeliveries is an endpoint's deliveries, newest first, at most limit; of one state unless state is "".
func (s *Store) ListWebhookDeliveries(ctx context.Context, endpointID, state string, limit int) ([]WebhookDelivery, error) {
	q, args := "SELECT "+webhookDeliveryColumns+" FROM webhook_deliveries WHERE endpoint_id = ?", []any{endpointID}
	if state != "" {
		q, args = q+" AND state = ?", append(args, state)
	}
	rows, err := s.query(ctx, q+" ORDER BY seq DESC LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list webhook deliveries: %w", err)
	}
	return collectDeliveries(rows)
}

func collectDeliveries(rows rowScanner) ([]WebhookDelivery, error) {
	defer rows.Close()
	var out []WebhookDelivery
	for rows.Next() {
		d, err := scanWebhookDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan webhook delivery: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// WebhookQueue is the outbox as a webhook.Worker's queue. Several processes may run workers over one PostgreSQL
// database: a claim locks the rows it takes (SKIP LOCKED, so workers do not wait on each other) and leases them, so
// each delivery is attempted by one worker at a time. On SQLite the one writer does the same by itself.
//
// Outcomes (Delivered, Failed, Release) are kept and written together, by the next claim's transaction or after
// outcomeFlushDelay, whichever comes first: one commit for a batch of deliveries instead of one each. An outcome
// lost with its process before it is written leaves its delivery leased; it is attempted again when the lease ends
// (at least once, with the same event id).
type WebhookQueue struct {
	s      *Store
	source string
	open   func(endpointID string, sealed []byte) ([]byte, error)
	render func(ctx context.Context, d WebhookDelivery) ([]byte, error)

	mu       sync.Mutex
	outcomes []outcome
	timer    *time.Timer
	counted  time.Time // when sigil_queue_pending was last counted
}

// outcome is an update of one delivery, waiting to be written.
type outcome struct {
	stmt string
	args []any
}

// outcomeFlushDelay bounds how long an outcome waits for a claim to carry it.
const outcomeFlushDelay = 20 * time.Millisecond

// WebhookQueue returns a queue over one source's deliveries in the outbox (WebhookSourceCoordinator or
// WebhookSourceYield): services share the table, and each one's worker signs and sends only its own. A process's
// worker keeps one.
func (s *Store) WebhookQueue(source string) *WebhookQueue { return &WebhookQueue{s: s, source: source} }

// OpenSecrets sets how a claim turns a delivery's sealed secret into the Delivery's Secret: the store holds secrets
// sealed and never opens them itself. A delivery whose secret does not open is dead, not claimed. It returns q.
func (q *WebhookQueue) OpenSecrets(open func(endpointID string, sealed []byte) ([]byte, error)) *WebhookQueue {
	q.open = open
	return q
}

// RenderBodies sets how a claim renders the body of a delivery written by reference (WebhookDelivery.ByReference),
// from what its subject names; only a queue that renders claims such deliveries. One whose body can never be rendered
// (the error is ErrUndeliverable) is dead; one whose rendering failed for now is claimed again later. It returns q.
func (q *WebhookQueue) RenderBodies(render func(ctx context.Context, d WebhookDelivery) ([]byte, error)) *WebhookQueue {
	q.render = render
	return q
}

// referenceSource is the source of this queue's deliveries written by reference: claimed only if it renders bodies.
func (q *WebhookQueue) referenceSource() string {
	if q.render == nil {
		return q.source
	}
	return byReference(q.source)
}

var _ webhook.Queue = (*WebhookQueue)(nil)

// Claim takes the due deliveries that head their endpoint's and subject's line: a delivery waits while an earlier one
// of its subject is pending, whether leased or waiting for a retry, so one subject's events arrive in order. It leaves
// alone the endpoints and tenants busy names (the worker's at their caps, or with an open circuit): the rows behind
// them are someone else's turn.
func (q *WebhookQueue) Claim(ctx context.Context, now time.Time, n int, lease time.Duration, busy webhook.Busy) ([]webhook.Delivery, error) {
	var claimed []WebhookDelivery
	outcomes := q.takeOutcomes()
	err := q.s.Write(ctx, func(t *Tx) error {
		if err := writeOutcomes(ctx, t, outcomes); err != nil {
			return err
		}
		lock := ""
		if t.d.forUpdate != "" {
			lock = " FOR UPDATE OF d SKIP LOCKED"
		}
		skip, skipArgs := busyFilter(busy)
		args := append([]any{q.source, q.referenceSource(), DeliveryPending, now.UnixNano(), now.UnixNano()}, skipArgs...)
		rows, err := t.query(ctx, `SELECT `+claimColumns+` FROM webhook_deliveries d
			WHERE d.source IN (?, ?) AND d.state = ? AND d.next_at <= ? AND d.lease_until <= ?`+skip+`
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.endpoint_id = d.endpoint_id AND e.subject = d.subject
				AND d.subject <> '' AND e.state = ? AND e.seq < d.seq)
			ORDER BY d.seq LIMIT ?`+lock, append(args, DeliveryPending, n)...)
		if err != nil {
			return fmt.Errorf("store: claim webhook deliveries: %w", err)
		}
		if claimed, err = collectDeliveries(rows); err != nil {
			return err
		}
		if err := q.countPending(ctx, t, now); err != nil {
			return err
		}
		for _, d := range claimed {
			if _, err := t.exec(ctx, "UPDATE webhook_deliveries SET lease_until = ? WHERE org_id = ? AND id = ?", now.Add(lease).UnixNano(), d.OrgID, d.ID); err != nil {
				return fmt.Errorf("store: lease webhook delivery: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		claimed = nil
		q.giveBack(outcomes)
	}
	out := make([]webhook.Delivery, 0, len(claimed))
	for _, d := range claimed {
		wd, why := q.complete(ctx, d)
		switch {
		case errors.Is(why, ErrUndeliverable):
			// No attempt can be made: dead at once, with why (never a secret), rather than retried for hours.
			_ = q.Failed(ctx, webhook.Ref{OrgID: d.OrgID, ID: d.ID}, webhook.Failure{Attempts: d.Attempts, Next: now, Dead: true, Reason: why.Error()})
		case why != nil: // e.g. the store could not be read: claimed again later
			_ = q.Release(ctx, webhook.Ref{OrgID: d.OrgID, ID: d.ID}, now.Add(renderRetry))
		default:
			out = append(out, wd)
		}
	}
	return out, err
}

// maxBusy bounds the endpoints and tenants a claim names to leave alone: beyond it the claim takes their rows, which
// the worker gives back (a worker posts at most a few dozen at once, so only open circuits can be this many).
const maxBusy = 500

// busyFilter is the claim's condition leaving busy's endpoints and tenants alone, and its arguments.
func busyFilter(busy webhook.Busy) (string, []any) {
	var cond strings.Builder
	var args []any
	for _, list := range []struct {
		column string
		ids    []string
	}{{"d.endpoint_id", busy.Endpoints}, {"d.tenant", busy.Tenants}} {
		ids := list.ids[:min(len(list.ids), maxBusy)]
		if len(ids) == 0 {
			continue
		}
		cond.WriteString(" AND " + list.column + " NOT IN (?" + strings.Repeat(", ?", len(ids)-1) + ")")
		for _, id := range ids {
			args = append(args, id)
		}
	}
	return cond.String(), args
}

// ErrUndeliverable marks why a claimed delivery can never be posted: its secret does not open, or its body, written
// by reference, cannot be rendered again (what it refers to is gone or has changed). Undeliverable makes such errors.
var ErrUndeliverable = errors.New("undeliverable")

// Undeliverable is an error that says why a delivery can never be posted, and is ErrUndeliverable.
func Undeliverable(format string, args ...any) error {
	return undeliverable(fmt.Sprintf(format, args...))
}

type undeliverable string

func (u undeliverable) Error() string        { return string(u) }
func (u undeliverable) Is(target error) bool { return target == ErrUndeliverable }

// renderRetry is how long a delivery whose body could not be rendered for now waits before it is claimed again.
const renderRetry = 5 * time.Second

// complete is a claimed row as the worker posts it: its secret opened and, written by reference, its body rendered.
func (q *WebhookQueue) complete(ctx context.Context, d WebhookDelivery) (webhook.Delivery, error) {
	wd := d.Delivery()
	if len(d.Secret) > 0 {
		secret, err := q.openSecret(d)
		if err != nil {
			return wd, Undeliverable("the endpoint's secret could not be opened: %v", err)
		}
		wd.Secret = secret
	}
	if d.ByReference { // claimed only by a queue that renders (referenceSource)
		body, err := q.render(ctx, d)
		if errors.Is(err, ErrUndeliverable) {
			return wd, Undeliverable("the event's body could not be rendered: %v", err)
		}
		if err != nil {
			return wd, fmt.Errorf("the event's body could not be rendered: %w", err)
		}
		wd.Body = body
	}
	return wd, nil
}

// Delivery is the row as a webhook.Worker posts it, without its secret (sealed).
func (d WebhookDelivery) Delivery() webhook.Delivery {
	return webhook.Delivery{ID: d.ID, EventID: d.EventID, EndpointID: d.EndpointID, URL: d.URL, EventType: d.EventType,
		OrgID: d.OrgID, Subject: d.Subject, Sequence: d.Sequence, Body: d.Body, Attempts: d.Attempts, Scheme: d.Scheme, Tenant: d.Tenant}
}

func (q *WebhookQueue) openSecret(d WebhookDelivery) ([]byte, error) {
	if q.open == nil {
		return nil, fmt.Errorf("the %s queue opens no secrets", q.source)
	}
	return q.open(d.EndpointID, d.Secret)
}

// countPending sets sigil_queue_pending to what waits, leased or not, at most once a second: a count walks every
// pending row, which a claim need not pay for each time under a backlog.
func (q *WebhookQueue) countPending(ctx context.Context, t *Tx, now time.Time) error {
	q.mu.Lock()
	due := q.s.metrics != nil && now.Sub(q.counted) >= time.Second
	if due {
		q.counted = now
	}
	q.mu.Unlock()
	if !due {
		return nil
	}
	var pending int
	if err := t.queryRow(ctx, "SELECT COUNT(*) FROM webhook_deliveries WHERE source IN (?, ?) AND state = ?", q.source, q.referenceSource(), DeliveryPending).Scan(&pending); err != nil {
		return fmt.Errorf("store: count webhook deliveries: %w", err)
	}
	q.s.metrics.Pending("webhooks_"+q.source, pending)
	return nil
}

// claimColumns are the outbox's columns as a claim names them, on its alias d.
var claimColumns = prefixed("d.", webhookDeliveryColumns)

func prefixed(p, columns string) string {
	fields := strings.Split(columns, ",")
	for i, f := range fields {
		fields[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fields, ", ")
}

// Delivered records a 2xx answer.
func (q *WebhookQueue) Delivered(_ context.Context, d webhook.Ref, at time.Time, status int) error {
	q.s.metrics.Delivery("delivered")
	q.record("UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, last_status = ?, last_error = '', done_at = ?, lease_until = 0 WHERE org_id = ? AND id = ?",
		DeliveryDelivered, status, at.UnixNano(), d.OrgID, d.ID)
	return nil
}

// Failed records a failed attempt, and the dead-letter state after the last.
func (q *WebhookQueue) Failed(_ context.Context, d webhook.Ref, f webhook.Failure) error {
	state, doneAt, result := DeliveryPending, int64(0), "failed"
	if f.Dead {
		state, doneAt, result = DeliveryDead, f.Next.UnixNano(), "dead"
	}
	q.s.metrics.Delivery(result)
	q.record("UPDATE webhook_deliveries SET state = ?, attempts = ?, next_at = ?, last_status = ?, last_error = ?, done_at = ?, lease_until = 0 WHERE org_id = ? AND id = ?",
		state, f.Attempts, f.Next.UnixNano(), f.Status, f.Reason, doneAt, d.OrgID, d.ID)
	return nil
}

// Release gives a claimed delivery back, due at next.
func (q *WebhookQueue) Release(_ context.Context, d webhook.Ref, next time.Time) error {
	q.record("UPDATE webhook_deliveries SET next_at = ?, lease_until = 0 WHERE org_id = ? AND id = ? AND state = ?", next.UnixNano(), d.OrgID, d.ID, DeliveryPending)
	return nil
}

// record keeps an outcome for the next write.
func (q *WebhookQueue) record(stmt string, args ...any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.outcomes = append(q.outcomes, outcome{stmt, args})
	if q.timer == nil {
		q.timer = time.AfterFunc(outcomeFlushDelay, func() { _ = q.Flush(context.Background()) })
	}
}

// Flush writes the outcomes kept so far; a worker's owner calls it when the worker has stopped.
func (q *WebhookQueue) Flush(ctx context.Context) error {
	outcomes := q.takeOutcomes()
	if len(outcomes) == 0 {
		return nil
	}
	err := q.s.Write(ctx, func(t *Tx) error { return writeOutcomes(ctx, t, outcomes) })
	if err != nil {
		q.giveBack(outcomes)
		return fmt.Errorf("store: webhook delivery outcomes: %w", err)
	}
	return nil
}

func (q *WebhookQueue) takeOutcomes() []outcome {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.outcomes
	q.outcomes = nil
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	return out
}

// giveBack returns outcomes a failed write did not record, to be written with the next.
func (q *WebhookQueue) giveBack(outcomes []outcome) {
	if len(outcomes) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.outcomes = append(outcomes, q.outcomes...)
	if q.timer == nil {
		q.timer = time.AfterFunc(outcomeFlushDelay, func() { _ = q.Flush(context.Background()) })
	}
}

func writeOutcomes(ctx context.Context, t *Tx, outcomes []outcome) error {
	for _, o := range outcomes {
		if _, err := t.exec(ctx, o.stmt, o.args...); err != nil {
			return fmt.Errorf("store: webhook delivery outcome: %w", err)
		}
	}
	return nil
}

// NewDeliveryID is a new delivery's id: time-ordered (a version 7 UUID), so that each delivery is appended to the
// outbox's id index instead of being written into a random page of it, as activity ids are (migration 0006).
func NewDeliveryID() string { return uuid.Must(uuid.NewV7()).String() }
