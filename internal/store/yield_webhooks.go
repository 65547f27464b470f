package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
)

// YieldWebhookEndpoint is a yield project's webhook endpoint. Secret is sealed by the yield service; the store never
// sees it in plain form.
type YieldWebhookEndpoint struct {
	ID        string
	Project   string
	URL       string
	Events    []string // the event types it receives
	Secret    []byte   // sealed
	CreatedAt int64    // unix milliseconds
}

const yieldWebhookEndpointColumns = "id, project, url, events, secret, created_at"

func scanYieldWebhookEndpoint(row yieldRow) (YieldWebhookEndpoint, error) {
	var e YieldWebhookEndpoint
	var events, secret string
	if err := row.Scan(&e.ID, &e.Project, &e.URL, &events, &secret, &e.CreatedAt); err != nil {
		return e, notFound(err)
	}
	e.Events = strings.Split(events, ",")
	var err error
	e.Secret, err = base64.StdEncoding.DecodeString(secret)
	return e, err
}

// PutYieldWebhookEndpoint stores a new endpoint.
func (t *Tx) PutYieldWebhookEndpoint(ctx context.Context, e YieldWebhookEndpoint) error {
	_, err := t.exec(ctx, "INSERT INTO yield_webhook_endpoints ("+yieldWebhookEndpointColumns+") VALUES (?, ?, ?, ?, ?, ?)",
		e.ID, e.Project, e.URL, strings.Join(e.Events, ","), base64.StdEncoding.EncodeToString(e.Secret), e.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: put yield webhook endpoint: %w", err)
	}
	return nil
}

const yieldWebhookEndpointsQuery = "SELECT " + yieldWebhookEndpointColumns +
	" FROM yield_webhook_endpoints WHERE project = ? ORDER BY created_at, id"

// YieldWebhookEndpoints lists a project's endpoints, oldest first.
func (s *Store) YieldWebhookEndpoints(ctx context.Context, project string) ([]YieldWebhookEndpoint, error) {
	rows, err := s.query(ctx, yieldWebhookEndpointsQuery, project)
	if err != nil {
		return nil, fmt.Errorf("store: list yield webhook endpoints: %w", err)
	}
	return collectYieldWebhookEndpoints(rows)
}

// YieldWebhookEndpoints lists a project's endpoints, oldest first, in the transaction: the endpoints an event written
// in it goes to, and those a new one is counted with.
func (t *Tx) YieldWebhookEndpoints(ctx context.Context, project string) ([]YieldWebhookEndpoint, error) {
	rows, err := t.query(ctx, yieldWebhookEndpointsQuery, project)
	if err != nil {
		return nil, fmt.Errorf("store: list yield webhook endpoints: %w", err)
	}
	return collectYieldWebhookEndpoints(rows)
}

func collectYieldWebhookEndpoints(rows rowScanner) ([]YieldWebhookEndpoint, error) {
	defer rows.Close()
	var out []YieldWebhookEndpoint
	for rows.Next() {
		e, err := scanYieldWebhookEndpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan yield webhook endpoint: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DeleteYieldWebhookEndpoint removes one of a project's endpoints and moves its pending deliveries to the dead-letter
// state (reason, at in unix nanoseconds). An endpoint of another project, or none, is ErrNotFound.
func (t *Tx) DeleteYieldWebhookEndpoint(ctx context.Context, project, id, reason string, at int64) error {
	res, err := t.exec(ctx, "DELETE FROM yield_webhook_endpoints WHERE id = ? AND project = ?", id, project)
	if err != nil {
		return fmt.Errorf("store: delete yield webhook endpoint: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrNotFound
	}
	return t.AbandonWebhookDeliveries(ctx, id, reason, at)
}

// NextYieldWebhookSequence numbers a subject's next event: 1 for its first, then one more each time. The caller
// holds the lock of the subject's action (LockYieldAction), so the numbers follow the order of the changes.
func (t *Tx) NextYieldWebhookSequence(ctx context.Context, subject string) (int64, error) {
	_, err := t.exec(ctx, "INSERT INTO yield_webhook_sequences (subject, sequence) VALUES (?, 1) "+
		"ON CONFLICT (subject) DO UPDATE SET sequence = yield_webhook_sequences.sequence + 1", subject)
	if err != nil {
		return 0, fmt.Errorf("store: number a yield webhook event: %w", err)
	}
	var n int64
	err = t.queryRow(ctx, "SELECT sequence FROM yield_webhook_sequences WHERE subject = ?", subject).Scan(&n)
	return n, err
}
