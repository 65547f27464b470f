package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Activity is an activity's row. Record is the coordinator's JSON of the whole activity; Evaluations its JSON of the
// policy engine's verdicts on the activity's votes, kept apart because only the policy evaluation query reads them.
// An activity is its body: (OrgID, TimestampMs, Fingerprint) is unique.
type Activity struct {
	ID          string
	OrgID       string
	Fingerprint string // of the request's body
	TimestampMs int64  // the request's timestampMs, part of the body
	Type        string
	Status      string
	Record      []byte
	Evaluations []byte
	CreatedAt   int64 // unix nanoseconds
	UpdatedAt   int64
}

// StatusAwaitingVotes and StatusAwaitingAuthenticators are the statuses of the activities a vote may be for, the only
// ones found by fingerprint alone: waiting for consensus, or for a second factor of a voter (MFA policies).
const (
	StatusAwaitingVotes          = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
	StatusAwaitingAuthenticators = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
)

const activityColumns = "id, org_id, fingerprint, timestamp_ms, type, status, record, evaluations, created_at, updated_at"

func scanActivity(row interface{ Scan(...any) error }) (Activity, error) {
	var a Activity
	var rec, evaluations string
	err := row.Scan(&a.ID, &a.OrgID, &a.Fingerprint, &a.TimestampMs, &a.Type, &a.Status, &rec, &evaluations, &a.CreatedAt, &a.UpdatedAt)
	a.Record, a.Evaluations = []byte(rec), []byte(evaluations)
	return a, notFound(err)
}

// InsertActivity records an activity unless its organization already has one with the same body, and says whether it
// did: an identical body is one activity. A transaction that holds its organization shared (ShareOrgIfChanged) relies
// on it, as an identical body may be recorded by another one at the same time; the first recorded stands.
func (t *Tx) InsertActivity(ctx context.Context, a Activity) (bool, error) {
	return inserted(t.exec(ctx, "INSERT INTO activities ("+activityColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, timestamp_ms, fingerprint) DO NOTHING",
		a.ID, a.OrgID, a.Fingerprint, a.TimestampMs, a.Type, a.Status, string(a.Record), string(a.evaluations()), a.CreatedAt, a.UpdatedAt))
}

// InsertActivityAtOrgVersion records an activity decided against its organization at orgVersion, if the organization
// is still at that version, and says whether it did. It is one statement (on PostgreSQL its own transaction, holding
// nothing); it records nothing when the organization has changed or is gone, or when the same body is recorded
// already, and the caller then decides again in a transaction that holds the organization. The webhook deliveries
// that report the activity are written with it, in one transaction, when there are any.
func (s *Store) InsertActivityAtOrgVersion(ctx context.Context, a Activity, orgVersion int64, deliveries []WebhookDelivery) (bool, error) {
	const q = "INSERT INTO activities (" + activityColumns + ") SELECT ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT)" +
		" FROM organizations WHERE id = ? AND version = ? ON CONFLICT (org_id, timestamp_ms, fingerprint) DO NOTHING"
	args := []any{a.ID, a.OrgID, a.Fingerprint, a.TimestampMs, a.Type, a.Status, string(a.Record), string(a.evaluations()),
		a.CreatedAt, a.UpdatedAt, a.OrgID, orgVersion}
	if s.group == nil && len(deliveries) == 0 {
		return inserted(s.exec(ctx, q, args...))
	}
	var ok bool
	err := s.Write(ctx, func(tx *Tx) (err error) {
		if ok, err = inserted(tx.exec(ctx, q, args...)); !ok || err != nil {
			return err
		}
		return tx.EnqueueWebhookDeliveries(ctx, deliveries)
	})
	return ok, err
}

// inserted says whether an insert wrote its row.
func inserted(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("store: insert activity: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (a Activity) evaluations() []byte {
	if len(a.Evaluations) == 0 {
		return []byte("[]")
	}
	return a.Evaluations
}

// ActivityByBody reads, inside the transaction, the activity recorded for a body: its organization, timestampMs and
// fingerprint.
func (t *Tx) ActivityByBody(ctx context.Context, orgID string, timestampMs int64, fingerprint string) (Activity, error) {
	return scanActivity(t.queryRow(ctx, "SELECT "+activityColumns+" FROM activities WHERE org_id = ? AND timestamp_ms = ? AND fingerprint = ?", orgID, timestampMs, fingerprint))
}

// ActivityAwaitingVotes reads, inside the transaction, the organization's activity with the fingerprint whose status
// is StatusAwaitingVotes or StatusAwaitingAuthenticators; ErrNotFound when none is (whether it never existed or is
// decided). Each status is looked up alone, so that each lookup uses its partial index.
func (t *Tx) ActivityAwaitingVotes(ctx context.Context, orgID, fingerprint string) (Activity, error) {
	a, err := scanActivity(t.queryRow(ctx, "SELECT "+activityColumns+" FROM activities WHERE org_id = ? AND fingerprint = ? AND status = '"+StatusAwaitingVotes+"'", orgID, fingerprint))
	if !errors.Is(err, ErrNotFound) {
		return a, err
	}
	return scanActivity(t.queryRow(ctx, "SELECT "+activityColumns+" FROM activities WHERE org_id = ? AND fingerprint = ? AND status = '"+StatusAwaitingAuthenticators+"'", orgID, fingerprint))
}

// LockActivity reads an organization's activity by id and holds it for the rest of the transaction (votes on one
// activity run one after the other).
func (t *Tx) LockActivity(ctx context.Context, orgID, id string) (Activity, error) {
	return scanActivity(t.queryRow(ctx, "SELECT "+activityColumns+" FROM activities WHERE org_id = ? AND id = ?"+t.d.forUpdate, orgID, id))
}

// UpdateActivity stores an activity's new status, record and evaluations.
func (t *Tx) UpdateActivity(ctx context.Context, a Activity) error {
	_, err := t.exec(ctx, "UPDATE activities SET status = ?, record = ?, evaluations = ?, updated_at = ? WHERE org_id = ? AND id = ?",
		a.Status, string(a.Record), string(a.evaluations()), a.UpdatedAt, a.OrgID, a.ID)
	if err != nil {
		return fmt.Errorf("store: update activity: %w", err)
	}
	return nil
}

// ActivityByID reads an organization's activity; ErrNotFound when the organization has none by that id.
func (s *Store) ActivityByID(ctx context.Context, orgID, id string) (Activity, error) {
	return scanActivity(s.queryRow(ctx, "SELECT "+activityColumns+" FROM activities WHERE org_id = ? AND id = ?", orgID, id))
}

// ActivityPage selects an organization's activities, newest first. After and Before are activity ids: After continues
// to older activities than that one, Before to newer ones.
type ActivityPage struct {
	OrgID         string
	Statuses      []string
	Types         []string
	After, Before string
	Limit         int
}

// ListActivities lists activities.
func (s *Store) ListActivities(ctx context.Context, p ActivityPage) ([]Activity, error) {
	q := "SELECT " + activityColumns + " FROM activities WHERE org_id = ?"
	args := []any{p.OrgID}
	q, args = inList(q, args, "status", p.Statuses)
	q, args = inList(q, args, "type", p.Types)
	order := "DESC"
	if p.After != "" {
		q += " AND seq < (SELECT seq FROM activities WHERE org_id = ? AND id = ?)"
		args = append(args, p.OrgID, p.After)
	}
	if p.Before != "" {
		q += " AND seq > (SELECT seq FROM activities WHERE org_id = ? AND id = ?)"
		args = append(args, p.OrgID, p.Before)
		order = "ASC"
	}
	q += fmt.Sprintf(" ORDER BY seq %s LIMIT %d", order, p.Limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		a, err := scanActivity(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if order == "ASC" {
		slices.Reverse(out)
	}
	return out, rows.Err()
}

func inList(q string, args []any, column string, values []string) (string, []any) {
	if len(values) == 0 {
		return q, args
	}
	q += " AND " + column + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(values)), ", ") + ")"
	for _, v := range values {
		args = append(args, v)
	}
	return q, args
}
