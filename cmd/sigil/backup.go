package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sigil/sigil/internal/store"
)

// runBackup copies a running stack's SQLite database to a new file. The master key file is not in it: it is kept
// apart, and a backup without it holds only sealed key material.
func runBackup(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of sigil up")
	out := fs.String("out", "", "file to write the copy to (must not exist)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return e.usageErrorf("--out FILE is required")
	}
	db := filepath.Join(*dir, "sigil.db")
	if _, err := os.Stat(db); err != nil { // opening would create an empty one
		return fmt.Errorf("backup: no database at %s (a stack on PostgreSQL is backed up with pg_dump): %w", db, err)
	}
	st, err := store.Open(ctx, db, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.BackupTo(ctx, *out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s, a copy of %s; back up the master key file (%s) separately\n", *out, db, filepath.Join(*dir, "master.key"))
	return nil
}
