package store

import (
	"context"
	"time"
)

// OpenAtVersionForTest opens a database migrated only up to a version, as an older release left it.
func OpenAtVersionForTest(ctx context.Context, url, dataDir string, version int) (*Store, error) {
	s, err := openUnmigrated(url, dataDir)
	if err != nil {
		return nil, err
	}
	if err := s.migrateUpTo(ctx, version); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// ExecForTest runs a statement in the transaction.
func ExecForTest(ctx context.Context, tx *Tx, q string, args ...any) error {
	_, err := tx.exec(ctx, q, args...)
	return err
}

// ForgetMigrationForTest removes a migration's record, as if a later release had added it below applied ones.
func ForgetMigrationForTest(ctx context.Context, tx *Tx, version int) error {
	_, err := tx.exec(ctx, "DELETE FROM schema_migrations WHERE version = ?", version)
	return err
}

// GroupCommitsForTest is how many transactions the SQLite group committer has ended.
func GroupCommitsForTest(s *Store) int64 { return s.group.commits.Load() }

// QueryIntForTest runs a query that answers one integer, in the transaction.
func QueryIntForTest(ctx context.Context, tx *Tx, q string) (int64, error) {
	var n int64
	err := tx.queryRow(ctx, q).Scan(&n)
	return n, err
}

// CheckpointsFinishedForTest is how many times the writer finished a background checkpoint, starting the WAL over.
func CheckpointsFinishedForTest(s *Store) int64 { return s.checkpoints.finishes.Load() }

// TuneCheckpointsForTest makes the background checkpointer run as often as every interval and the writer start the
// WAL over once it holds frames pages.
func TuneCheckpointsForTest(s *Store, interval time.Duration, frames int64) {
	s.checkpoints.interval.Store(int64(interval))
	s.checkpoints.restartFrames.Store(frames)
}

// CommitsForTest counts SQLite's commits begun and those synced.
func CommitsForTest(s *Store) (begun, synced int64) {
	return s.durable.begun.Load(), s.durable.synced.Load()
}
