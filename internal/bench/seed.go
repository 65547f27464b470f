package bench

import (
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// fillerChunk is how many rows one seeding statement writes.
const fillerChunk = 100_000

// SeedAccounts writes filler wallet accounts seq from..to of a wallet as rows, without the API: account i has the
// address 0x, the first 8 hex digits of the organization's id and i in 32 hex digits; the path m/44'/60'/1'/0/i; an id
// that grows with i, as the time-ordered ids of accounts made by the API do; and no key. backend is "sqlite" or
// "postgres".
func SeedAccounts(db *sql.DB, backend, orgID, walletID string, from, to int64) error {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	prefix := strings.ReplaceAll(orgID, "-", "")[:8]
	q := `WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n < ?)
		INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key, public_key, key_secret, created_at, updated_at)
		SELECT ?, n, substr(?, 1, 24) || printf('%012x', n), ?, '', 'CURVE_SECP256K1', 'PATH_FORMAT_BIP32', 'm/44''/60''/1''/0/' || n,
			'ADDRESS_FORMAT_ETHEREUM', '0x' || ? || printf('%032x', n), '0x' || ? || printf('%032x', n), '02' || printf('%064x', n), 'filler', ?, ? FROM g`
	if backend == "postgres" {
		q = `INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key, public_key, key_secret, created_at, updated_at)
			SELECT $3, n, substr($4, 1, 24) || lpad(to_hex(n), 12, '0'), $5, '', 'CURVE_SECP256K1', 'PATH_FORMAT_BIP32', 'm/44''/60''/1''/0/' || n,
				'ADDRESS_FORMAT_ETHEREUM', '0x' || $6 || lpad(to_hex(n), 32, '0'), '0x' || $7 || lpad(to_hex(n), 32, '0'), '02' || lpad(to_hex(n), 64, '0'), 'filler', $8, $9
			FROM generate_series($1::bigint, $2::bigint) n`
	}
	for lo := from; lo <= to; lo += fillerChunk {
		hi := min(lo+fillerChunk-1, to)
		if _, err := db.Exec(q, lo, hi, orgID, orgID, walletID, prefix, prefix, now, now); err != nil {
			return fmt.Errorf("bench: seeding accounts: %w", err)
		}
	}
	return nil
}

// SeedSubOrgs writes n filler sub-organizations of parent as rows (each indexed by its name, "filler i"), older than
// any made through the API.
func SeedSubOrgs(db *sql.DB, backend, parent string, n int) error {
	prefix := parent[:24]
	doc := `{"id":"%s","name":"filler","parentId":"` + parent + `","rootQuorum":{"userIds":[],"threshold":1},"users":[],"tags":[],"policies":[],"wallets":[],"privateKeys":[],"createdAt":"2026-12-01T00:00:00Z","updatedAt":"2026-12-01T00:00:00Z"}`
	before, after, _ := strings.Cut(doc, "%s")
	gen := `WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n < ?) `
	orgsQ := gen + `INSERT INTO organizations (id, parent_id, version, data, created_at)
		SELECT substr(?, 1, 24) || printf('%012x', n + 1000000000), ?, 1, ? || substr(?, 1, 24) || printf('%012x', n + 1000000000) || ?, n FROM g`
	indexQ := gen + `INSERT INTO org_index (kind, value, org_id, parent_id)
		SELECT 'NAME', 'filler ' || n, substr(?, 1, 24) || printf('%012x', n + 1000000000), ? FROM g`
	if backend == "postgres" {
		orgsQ = `INSERT INTO organizations (id, parent_id, version, data, created_at)
			SELECT substr($3, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0'), $4, 1, $5 || substr($6, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0') || $7, n
			FROM generate_series($1::bigint, $2::bigint) n`
		indexQ = `INSERT INTO org_index (kind, value, org_id, parent_id)
			SELECT 'NAME', 'filler ' || n, substr($3, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0'), $4 FROM generate_series($1::bigint, $2::bigint) n`
	}
	for lo := 1; lo <= n; lo += fillerChunk {
		hi := min(lo+fillerChunk-1, n)
		if _, err := db.Exec(orgsQ, lo, hi, prefix, parent, before, prefix, after); err != nil {
			return fmt.Errorf("bench: seeding sub-organizations: %w", err)
		}
		if _, err := db.Exec(indexQ, lo, hi, prefix, parent); err != nil {
			return fmt.Errorf("bench: seeding sub-organizations' index: %w", err)
		}
	}
	return nil
}
