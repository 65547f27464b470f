package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
)

// ScratchPostgres creates a new, empty database named prefix_<random> on the PostgreSQL server at serverURL and
// returns its URL, and drop, which deletes it, disconnecting whoever is still connected. Tests and benchmarks use it
// so that they never write into a database that holds anything else.
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
	if err := admin("CREATE DATABASE " + name); err != nil {
		return "", nil, fmt.Errorf("store: create database %s: %w", name, err)
	}
	u.Path = "/" + name
	return u.String(), func() error { return admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") }, nil
}
