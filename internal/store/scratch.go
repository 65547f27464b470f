package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
)

// ScratchPostgres creates a new, empty schema named prefix_<random> in the database of serverURL and returns a URL
// whose connections see only it (search_path), and drop, which deletes it with everything in it. Tests and
// benchmarks use it so that they never write beside anything else. A schema, not a database: PostgreSQL copies a
// template to create a database, a third of a second each, where a schema takes a millisecond.
func ScratchPostgres(ctx context.Context, serverURL, prefix string) (dbURL string, drop func() error, err error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("store: PostgreSQL URL: %w", err)
	}
	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	name := prefix + "_" + hex.EncodeToString(buf)
	admin := func(q string) error {
		db, err := sql.Open("pgx", serverURL)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, q)
		return err
	}
	if err := admin("CREATE SCHEMA " + name); err != nil {
		return "", nil, fmt.Errorf("store: create schema %s: %w", name, err)
	}
	q := u.Query()
	q.Set("search_path", name) // pgx sends query parameters it does not know as run-time parameters
	u.RawQuery = q.Encode()
	return u.String(), func() error { return admin("DROP SCHEMA IF EXISTS " + name + " CASCADE") }, nil
}
