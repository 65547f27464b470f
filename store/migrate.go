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
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("store: migration %s is not named NNNN_name.sql", e.Name())
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
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
			if applied[m.version] || m.version > upTo {
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
	rows, err := t.tx.QueryContext(ctx, "SELECT version FROM schema_migrations")
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
