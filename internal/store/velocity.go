package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
)

// VelocityBucket is where one velocity control keeps the measures of one group (the organization, a user, a wallet).
type VelocityBucket struct {
	ControlID string
	Bucket    string
}

// VelocityTotal is a bucket's state: the sum of the window asked for, and the last event (for appending).
type VelocityTotal struct {
	Window     *big.Int // the sum of the events after the window's start
	LastSeq    int64    // 0 when the bucket is empty
	LastAtMs   int64
	Cumulative *big.Int // the running total at the last event
}

type rowQuerier interface {
	queryRow(ctx context.Context, q string, args ...any) durableRow
}

// VelocityTotal reads a bucket's total after sinceMs (exclusive) in the transaction, which holds the organization, so
// that what it reads stays true until the transaction appends to it or ends.
func (t *Tx) VelocityTotal(ctx context.Context, b VelocityBucket, sinceMs int64) (VelocityTotal, error) {
	return velocityTotal(ctx, t, b, sinceMs)
}

// VelocityTotal reads a bucket's total after sinceMs (exclusive), outside any transaction (a dry run).
func (s *Store) VelocityTotal(ctx context.Context, b VelocityBucket, sinceMs int64) (VelocityTotal, error) {
	return velocityTotal(ctx, s, b, sinceMs)
}

// velocityTotal reads a bucket's last event and the running total before the window in one statement: two index seeks
// (the bucket's newest row; its newest row at or before the window's start), one round trip.
func velocityTotal(ctx context.Context, q rowQuerier, b VelocityBucket, sinceMs int64) (VelocityTotal, error) {
	tot := VelocityTotal{Window: new(big.Int), Cumulative: new(big.Int)}
	var seq, at sql.NullInt64
	var cum, before sql.NullString
	err := q.queryRow(ctx, `SELECT
		(SELECT seq FROM velocity_events WHERE control_id = ? AND bucket = ? ORDER BY seq DESC LIMIT 1),
		(SELECT at_ms FROM velocity_events WHERE control_id = ? AND bucket = ? ORDER BY seq DESC LIMIT 1),
		(SELECT cumulative FROM velocity_events WHERE control_id = ? AND bucket = ? ORDER BY seq DESC LIMIT 1),
		(SELECT cumulative FROM velocity_events WHERE control_id = ? AND bucket = ? AND at_ms <= ? ORDER BY at_ms DESC, seq DESC LIMIT 1)`,
		b.ControlID, b.Bucket, b.ControlID, b.Bucket, b.ControlID, b.Bucket, b.ControlID, b.Bucket, sinceMs).Scan(&seq, &at, &cum, &before)
	if err != nil {
		return VelocityTotal{}, fmt.Errorf("store: velocity total: %w", err)
	}
	if !seq.Valid {
		return tot, nil // an empty bucket
	}
	tot.LastSeq, tot.LastAtMs = seq.Int64, at.Int64
	if _, ok := tot.Cumulative.SetString(cum.String, 10); !ok {
		return VelocityTotal{}, fmt.Errorf("store: velocity total: cumulative %q is not a decimal integer", cum.String)
	}
	tot.Window.Set(tot.Cumulative)
	if before.Valid {
		start, ok := new(big.Int).SetString(before.String, 10)
		if !ok {
			return VelocityTotal{}, fmt.Errorf("store: velocity total: cumulative %q is not a decimal integer", before.String)
		}
		tot.Window.Sub(tot.Window, start)
	}
	return tot, nil
}

// AppendVelocityEvent records what an activity added to a bucket after its last event (read with VelocityTotal in the
// same transaction). Its time is never before the last event's, so the running total stays in time order.
func (t *Tx) AppendVelocityEvent(ctx context.Context, b VelocityBucket, last VelocityTotal, atMs int64, amount *big.Int, activityID string) error {
	atMs = max(atMs, last.LastAtMs)
	cum := new(big.Int).Add(last.Cumulative, amount)
	_, err := t.exec(ctx, "INSERT INTO velocity_events (control_id, bucket, seq, at_ms, amount, cumulative, activity_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
		b.ControlID, b.Bucket, last.LastSeq+1, atMs, amount.String(), cum.String(), activityID)
	if err != nil {
		return fmt.Errorf("store: append velocity event: %w", err)
	}
	return nil
}

// DeleteVelocityEvents forgets what a deleted control measured.
func (t *Tx) DeleteVelocityEvents(ctx context.Context, controlID string) error {
	if _, err := t.exec(ctx, "DELETE FROM velocity_events WHERE control_id = ?", controlID); err != nil {
		return fmt.Errorf("store: delete velocity events: %w", err)
	}
	return nil
}
