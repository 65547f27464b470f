// Package testdb gives tests a fresh database of each backend: SQLite always, PostgreSQL when SIGIL_TEST_POSTGRES_URL
// names a server (the README's test command starts one). Under CI a missing PostgreSQL is a failure, not a skip, so
// both backends really are tested on every run.
//
// SIGIL_TEST_BACKENDS (a comma-separated list: sqlite, postgres; both when unset) limits a run to some backends, so
// that the test command can run a package's tests on one backend under the race detector and on the other without
// it, each test once on each backend.
package testdb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/sigil/sigil/internal/store"
)

// Backend is a database a test may open with store.Open(ctx, URL, Dir).
type Backend struct {
	Name string // "sqlite" or "postgres"
	URL  string
	Dir  string
}

// Each runs fn once per backend, each with a database of its own (the backends SIGIL_TEST_BACKENDS lists).
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	if Listed("sqlite") {
		t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	}
	if Listed("postgres") {
		t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
	}
}

// Listed says whether this run tests the backend: SIGIL_TEST_BACKENDS lists it, or is unset.
func Listed(backend string) bool {
	list := os.Getenv("SIGIL_TEST_BACKENDS")
	if list == "" {
		return true
	}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == backend {
			return true
		}
	}
	return false
}

// skipUnlisted skips a test of a backend this run does not test.
func skipUnlisted(t testing.TB, backend string) {
	if !Listed(backend) {
		t.Skipf("SIGIL_TEST_BACKENDS=%s: this run does not test %s", os.Getenv("SIGIL_TEST_BACKENDS"), backend)
	}
}

// Another returns a fresh database of b's kind, for a second, independent deployment in one test.
func Another(t testing.TB, b Backend) Backend {
	if b.Name == "postgres" {
		return Postgres(t)
	}
	return SQLite(t)
}

// SQLite returns a fresh SQLite database in a temporary directory.
func SQLite(t testing.TB) Backend {
	skipUnlisted(t, "sqlite")
	dir := t.TempDir()
	return Backend{Name: "sqlite", URL: filepath.Join(dir, "sigil.db"), Dir: dir}
}

// Postgres creates a fresh PostgreSQL database (a schema of its own), dropped when the test ends.
func Postgres(t testing.TB) Backend {
	skipUnlisted(t, "postgres")
	admin := os.Getenv("SIGIL_TEST_POSTGRES_URL")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("SIGIL_TEST_POSTGRES_URL is not set: under CI both database backends must be tested (run the README's test command)")
		}
		t.Skip("SIGIL_TEST_POSTGRES_URL is not set; run the README's test command to test PostgreSQL too")
	}
	dbURL, drop, err := store.ScratchPostgres(context.Background(), admin, "sigil_test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })
	return Backend{Name: "postgres", URL: dbURL, Dir: t.TempDir()}
}

// Dump returns every byte the database holds that a thief of its files or a database dump would see: the SQLite
// files (with the write-ahead log), or every row of every table of the PostgreSQL database as text.
func Dump(t testing.TB, b Backend) []byte {
	t.Helper()
	if b.Name == "sqlite" {
		var out []byte
		for _, suffix := range []string{"", "-wal", "-shm"} {
			data, err := os.ReadFile(b.URL + suffix)
			if err == nil {
				out = append(out, data...)
			}
		}
		return out
	}
	db, err := sql.Open("pgx", b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	var out []byte
	for _, table := range tables {
		rows, err := db.Query("SELECT t::text FROM " + table + " t")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			_ = rows.Scan(&line)
			out = append(out, line...)
			out = append(out, '\n')
		}
		rows.Close()
	}
	return out
}
