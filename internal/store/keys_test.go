package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// notKeyedByOrganization are the PostgreSQL tables with an org_id column whose keys do not start with it, and why
// (docs/SCALING.md, on a distributed PostgreSQL).
var notKeyedByOrganization = map[string]string{
	"organizations": "keyed by id, the organization itself",
	"org_index":     "found by the looked-up value without the organization: distributed by that value",
	"used_tokens":   "a verification token is used once in whichever organization: keyed by the token",
}

// TestRowsKeyedByOrganization checks, on PostgreSQL, that every table of an organization's rows has a primary key
// starting with org_id and no unique key without it, as a database distributed by organization requires.
func TestRowsKeyedByOrganization(t *testing.T) {
	b := testdb.Postgres(t)
	ctx := context.Background()
	s, err := store.Open(ctx, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT c.relname, i.relname, ix.indisprimary,
			array_to_string(array(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
				JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.ord), ',')
		FROM pg_index ix JOIN pg_class c ON c.oid = ix.indrelid JOIN pg_class i ON i.oid = ix.indexrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND ix.indisunique
			AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var table, index, columns string
		var primary bool
		if err := rows.Scan(&table, &index, &primary, &columns); err != nil {
			t.Fatal(err)
		}
		tables[table] = true
		if _, ok := notKeyedByOrganization[table]; ok {
			continue
		}
		cols := strings.Split(columns, ",")
		if primary && cols[0] != "org_id" {
			t.Errorf("%s: primary key (%s) does not start with org_id", table, columns)
		}
		if !primary && !strings.Contains(","+columns+",", ",org_id,") {
			t.Errorf("%s: unique index %s (%s) lacks org_id", table, index, columns)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"activities", "sealed_secrets", "otp_codes", "webhook_deliveries", "wallet_accounts", "send_transactions"} {
		if !tables[want] {
			t.Errorf("table %s was not checked", want)
		}
	}
}
