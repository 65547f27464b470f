package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// BackupTo writes a consistent copy of a SQLite database to path while the database stays in use: a snapshot as of
// one moment, read in one read transaction (SQLite's VACUUM INTO), that writers do not wait for. The file must not
// exist yet; it is created readable by its owner only, as it holds the same sealed key material as the database. A
// PostgreSQL database is backed up with PostgreSQL's own tools.
func (s *Store) BackupTo(ctx context.Context, path string) error {
	if s.dialect.name != "sqlite" {
		return errors.New("store: back up a PostgreSQL database with pg_dump")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("store: backup file: %w", err)
	}
	f.Close()
	// A connection of its own: the readers are query-only, and the writer's one connection must stay free for writes.
	db, err := sql.Open("sqlite", sqliteDSN(s.sqlitePath))
	if err == nil {
		_, err = db.ExecContext(ctx, "VACUUM INTO ?", path)
		db.Close()
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("store: back up to %s: %w", path, err)
	}
	return nil
}
