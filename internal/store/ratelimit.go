package store

import (
	"context"
	"fmt"
	"math"
	"time"
)

// TakeToken takes one token from the named bucket, which refills at perSecond up to burst, and says whether there
// was one or, when not, how long until there is. The bucket's row is locked for the take (FOR UPDATE), so processes
// sharing the database share the bucket exactly. Buckets idle long enough to be full again are deleted by
// SweepRateLimits.
func (s *Store) TakeToken(ctx context.Context, bucket string, now time.Time, perSecond float64, burst int) (bool, time.Duration, error) {
	if perSecond <= 0 {
		return true, 0, nil
	}
	var ok bool
	var wait time.Duration
	err := s.Write(ctx, func(t *Tx) error {
		// A new bucket is made full first, so that the row exists to be locked: two first takes at once then queue on
		// it instead of both finding none.
		if _, err := t.exec(ctx, "INSERT INTO rate_buckets (bucket, tokens, updated_ns) VALUES (?, ?, ?) ON CONFLICT (bucket) DO NOTHING",
			bucket, float64(burst), now.UnixNano()); err != nil {
			return err
		}
		var tokens float64
		var updated int64
		err := t.queryRow(ctx, "SELECT tokens, updated_ns FROM rate_buckets WHERE bucket = ?"+t.d.forUpdate, bucket).Scan(&tokens, &updated)
		if err != nil {
			return err
		}
		if elapsed := now.UnixNano() - updated; elapsed > 0 {
			tokens = math.Min(float64(burst), tokens+float64(elapsed)/1e9*perSecond)
		}
		if ok = tokens >= 1; ok {
			tokens--
		} else {
			wait = time.Duration((1 - tokens) / perSecond * 1e9)
		}
		_, err = t.exec(ctx, "UPDATE rate_buckets SET tokens = ?, updated_ns = ? WHERE bucket = ?", tokens, max(updated, now.UnixNano()), bucket)
		return err
	})
	if err != nil {
		return false, 0, fmt.Errorf("store: rate bucket: %w", err)
	}
	return ok, wait, nil
}

// CountRequest counts one request in the named fixed window (started at windowStart) and returns the count with it:
// one statement, so processes sharing the database count exactly.
func (s *Store) CountRequest(ctx context.Context, bucket string, windowStart time.Time) (int, error) {
	var n int
	err := s.Write(ctx, func(t *Tx) error {
		return t.queryRow(ctx, `INSERT INTO rate_windows (bucket, window_start, count) VALUES (?, ?, 1)
			ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
			bucket, windowStart.UnixNano()).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("store: rate window: %w", err)
	}
	return n, nil
}

// SweepRateLimits deletes the token buckets untouched since before (a bucket idle for a whole refill is full, the same
// as one that does not exist) and the windows that started before it.
func (s *Store) SweepRateLimits(ctx context.Context, before time.Time) error {
	return s.Write(ctx, func(t *Tx) error {
		if _, err := t.exec(ctx, "DELETE FROM rate_buckets WHERE updated_ns < ?", before.UnixNano()); err != nil {
			return err
		}
		_, err := t.exec(ctx, "DELETE FROM rate_windows WHERE window_start < ?", before.UnixNano())
		return err
	})
}
