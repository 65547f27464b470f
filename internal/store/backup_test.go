package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// A backup taken while the database is open is a database of its own with everything committed before it, readable by
// its owner only; an existing file is never overwritten.
func TestBackupIsAConsistentPrivateCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testdb.SQLite(t)
	s := open(t, b)
	if err := s.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertOrg(ctx, store.Org{ID: "o", Version: 1, Data: []byte(`{"n":1}`)}, []store.IndexEntry{{"credential", "k"}})
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := s.BackupTo(ctx, path); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v, want 0600", info.Mode().Perm())
	}
	if err := s.BackupTo(ctx, path); err == nil {
		t.Fatal("a backup overwrote an existing file")
	}

	copied, err := store.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	hits, err := copied.FindIndex(ctx, "credential", "k")
	if err != nil || len(hits) != 1 || hits[0].OrgID != "o" {
		t.Fatalf("the backup lacks the organization: %+v, %v", hits, err)
	}
}

func TestPostgresIsNotBackedUpHere(t *testing.T) {
	t.Parallel()
	s := open(t, testdb.Postgres(t))
	if err := s.BackupTo(context.Background(), filepath.Join(t.TempDir(), "b.db")); err == nil {
		t.Fatal("a PostgreSQL store wrote a SQLite backup")
	}
}
