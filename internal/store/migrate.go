package store

import (
	"context"
	"embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	dialect string // "" for both backends, else the only one it applies to
	sql     string
}

// migrations lists the embedded migrations in version order. A migration is NNNN_name.sql, for both backends; where
// they need different statements (SQLite cannot drop a constraint without rebuilding the table), a version has a
// NNNN_name.sqlite.sql and a NNNN_name.postgres.sql instead.
func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, rest, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(rest, ".sql") {
			return nil, fmt.Errorf("store: migration %s is not named NNNN_name.sql", e.Name())
		}
		m := migration{version: v, name: e.Name()}
		for _, d := range []dialect{sqliteDialect, postgresDialect} {
			if strings.HasSuffix(rest, "."+d.name+".sql") {
				m.dialect = d.name
			}
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		m.sql = string(body)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, checkDialects(out)
}

// checkDialects refuses a version with both a shared migration and dialect ones, or with one dialect's only.
func checkDialects(all []migration) error {
	byVersion := map[int][]migration{}
	for _, m := range all {
		byVersion[m.version] = append(byVersion[m.version], m)
	}
	for v, ms := range byVersion {
		if len(ms) == 1 && ms[0].dialect == "" {
			continue
		}
		if len(ms) != 2 || ms[0].dialect == "" || ms[1].dialect == "" || ms[0].dialect == ms[1].dialect {
			return fmt.Errorf("store: migration %04d needs one NNNN_name.sql, or one .sqlite.sql and one .postgres.sql", v)
		}
	}
	return nil
}

// migrate applies every migration not applied yet, each in its own transaction. On PostgreSQL an advisory lock keeps
// processes that start together from migrating twice; on SQLite the write transaction already is exclusive.
func (s *Store) migrate(ctx context.Context) error { return s.migrateUpTo(ctx, math.MaxInt) }

// migrateUpTo applies the migrations not applied yet whose version is at most upTo.
func (s *Store) migrateUpTo(ctx context.Context, upTo int) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	return s.Write(ctx, func(tx *Tx) error {
		tx.stmts = nil // schema changes are run once, never prepared and kept
		if s.dialect.name == "postgres" {
			// A migration may rewrite every row (0050 moves every wallet account), and a process starting beside
			// one that migrates waits for it: neither is given up after the server timeouts of requests.
			for _, q := range []string{"SET LOCAL statement_timeout = 0", "SET LOCAL lock_timeout = 0"} {
				if _, err := tx.exec(ctx, q); err != nil {
					return fmt.Errorf("store: migration timeouts: %w", err)
				}
			}
			if _, err := tx.exec(ctx, "SELECT pg_advisory_xact_lock(7305291)"); err != nil {
				return fmt.Errorf("store: migration lock: %w", err)
			}
		}
		if _, err := tx.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("store: create schema_migrations: %w", err)
		}
		applied, err := tx.appliedMigrations(ctx)
		if err != nil {
			return err
		}
		for _, m := range all {
			if applied[m.version] || m.version > upTo || (m.dialect != "" && m.dialect != s.dialect.name) {
				continue
			}
			for _, stmt := range splitStatements(s.dialect.migration(m.sql)) {
				if _, err := tx.exec(ctx, stmt); err != nil {
					return fmt.Errorf("store: migration %s: %w", m.name, err)
				}
			}
			if _, err := tx.exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.version, m.name, time.Now().Unix()); err != nil {
				return err
			}
		}
		return nil
	})
}

// splitStatements splits a migration on semicolons at line ends, dropping comment lines.
func splitStatements(sql string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

// appliedMigrations reads the versions applied so far. Each is recorded on its own, so a migration numbered below one
// already applied (the coordinator's and the yield service's numbers interleave) is still applied.
func (t *Tx) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	rows, err := t.query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// Ready checks that the database answers and holds every migration this build embeds: a process started against a
// database another process has not finished migrating, or one an older build migrated, is not ready.
func (s *Store) Ready(ctx context.Context) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	var applied int
	if err := s.queryRow(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&applied); err != nil {
		return fmt.Errorf("store: the database does not answer: %w", err)
	}
	want := 0 // a version may have one file per dialect: count this database's
	for _, m := range all {
		if m.dialect == "" || m.dialect == s.dialect.name {
			want++
		}
	}
	if applied < want {
		return fmt.Errorf("store: %d of %d migrations applied", applied, want)
	}
	return nil
}
