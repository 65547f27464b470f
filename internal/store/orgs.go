package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Org is an organization's row: its document and its version.
type Org struct {
	ID        string
	ParentID  string // "" for a root organization
	Version   int64
	Data      []byte
	CreatedAt int64 // unix nanoseconds
}

// IndexEntry makes an organization findable by a value of a kind (a credential's public key, a user's e-mail, ...).
type IndexEntry struct {
	Kind  string
	Value string
}

// IndexHit is an organization found through the index.
type IndexHit struct {
	OrgID    string
	ParentID string
}

const orgColumns = "id, parent_id, version, data, created_at"

func scanOrg(row interface{ Scan(...any) error }) (Org, error) {
	var o Org
	var data string
	err := row.Scan(&o.ID, &o.ParentID, &o.Version, &data, &o.CreatedAt)
	o.Data = []byte(data)
	return o, notFound(err)
}

// LockOrg reads an organization and holds it for the rest of the transaction, so concurrent activities of one
// organization run one after the other.
func (t *Tx) LockOrg(ctx context.Context, id string) (Org, error) {
	return scanOrg(t.queryRow(ctx, "SELECT "+orgColumns+" FROM organizations WHERE id = ?"+t.d.forUpdate, id))
}

// LockOrgIfChanged is LockOrg that leaves Data nil (and CreatedAt zero) when the stored version is still the known
// one.
func (t *Tx) LockOrgIfChanged(ctx context.Context, id string, known int64) (Org, error) {
	return t.holdOrgIfChanged(ctx, id, known, t.d.forUpdate)
}

// ShareOrgIfChanged is LockOrgIfChanged for a transaction that only reads the organization: the hold is shared with
// other such transactions, which run at once, and only keeps the organization from changing until it ends.
func (t *Tx) ShareOrgIfChanged(ctx context.Context, id string, known int64) (Org, error) {
	return t.holdOrgIfChanged(ctx, id, known, t.d.forShare)
}

func (t *Tx) holdOrgIfChanged(ctx context.Context, id string, known int64, lock string) (Org, error) {
	// Both CASEs: created_at is stored after the document, so reading it would walk the document's overflow pages.
	return scanOrg(t.queryRow(ctx, "SELECT id, parent_id, version, CASE WHEN version = ? THEN '' ELSE data END, CASE WHEN version = ? THEN 0 ELSE created_at END FROM organizations WHERE id = ?"+lock, known, known, id))
}

// FirstRootOrg is the root organization created first, ("", ErrNotFound) when there is none. On PostgreSQL it first
// takes a lock of the whole database until the transaction ends, so that of processes starting at once over an empty
// database only one creates its root organization; SQLite has one writer anyway.
func (t *Tx) FirstRootOrg(ctx context.Context) (string, error) {
	if t.d.name == "postgres" {
		if _, err := t.exec(ctx, "SELECT pg_advisory_xact_lock(7305292)"); err != nil {
			return "", fmt.Errorf("store: root organization lock: %w", err)
		}
	}
	var id string
	err := t.queryRow(ctx, "SELECT id FROM organizations WHERE parent_id = '' ORDER BY created_at, id LIMIT 1").Scan(&id)
	return id, notFound(err)
}

// GetOrg reads an organization inside the transaction without holding it.
func (t *Tx) GetOrg(ctx context.Context, id string) (Org, error) {
	return scanOrg(t.queryRow(ctx, "SELECT "+orgColumns+" FROM organizations WHERE id = ?", id))
}

// InsertOrg creates an organization with its index entries.
func (t *Tx) InsertOrg(ctx context.Context, o Org, index []IndexEntry) error {
	if _, err := t.exec(ctx, "INSERT INTO organizations ("+orgColumns+") VALUES (?, ?, ?, ?, ?)",
		o.ID, o.ParentID, o.Version, string(o.Data), o.CreatedAt); err != nil {
		return fmt.Errorf("store: insert organization: %w", err)
	}
	return t.setIndex(ctx, o, index)
}

// UpdateOrg writes a new version of an organization's document and brings its index entries in step (nil index: the
// entries did not change). The version must be the one read; the stored version becomes o.Version+1.
func (t *Tx) UpdateOrg(ctx context.Context, o Org, index []IndexEntry) error {
	res, err := t.exec(ctx, "UPDATE organizations SET data = ?, version = version + 1 WHERE id = ? AND version = ?",
		string(o.Data), o.ID, o.Version)
	if err != nil {
		return fmt.Errorf("store: update organization: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("store: organization %s changed concurrently", o.ID)
	}
	if index == nil {
		return nil
	}
	return t.setIndex(ctx, o, index)
}

// DeleteOrg removes an organization, its index entries, its wallet accounts and its counters.
func (t *Tx) DeleteOrg(ctx context.Context, id string) error {
	for _, q := range []string{
		"DELETE FROM org_index WHERE org_id = ?",
		"DELETE FROM webauthn_counters WHERE org_id = ?",
		"DELETE FROM contract_interfaces WHERE org_id = ?",
		"DELETE FROM wallet_accounts WHERE org_id = ?",
		"DELETE FROM organizations WHERE id = ?",
	} {
		if _, err := t.exec(ctx, q, id); err != nil {
			return fmt.Errorf("store: delete organization: %w", err)
		}
	}
	return nil
}

// setIndex replaces the organization's index entries with want, touching only the rows that differ.
func (t *Tx) setIndex(ctx context.Context, o Org, want []IndexEntry) error {
	rows, err := t.query(ctx, "SELECT kind, value FROM org_index WHERE org_id = ?", o.ID)
	if err != nil {
		return err
	}
	have := map[IndexEntry]bool{}
	for rows.Next() {
		var e IndexEntry
		if err := rows.Scan(&e.Kind, &e.Value); err != nil {
			rows.Close()
			return err
		}
		have[e] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	wanted := map[IndexEntry]bool{}
	for _, e := range want {
		wanted[e] = true
		if !have[e] {
			if _, err := t.exec(ctx, "INSERT INTO org_index (kind, value, org_id, parent_id) VALUES (?, ?, ?, ?)",
				e.Kind, e.Value, o.ID, o.ParentID); err != nil {
				return fmt.Errorf("store: index %s: %w", e.Kind, err)
			}
		}
	}
	for e := range have {
		if !wanted[e] {
			if _, err := t.exec(ctx, "DELETE FROM org_index WHERE kind = ? AND value = ? AND org_id = ?", e.Kind, e.Value, o.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// GetOrg reads an organization.
func (s *Store) GetOrg(ctx context.Context, id string) (Org, error) {
	return scanOrg(s.queryRow(ctx, "SELECT "+orgColumns+" FROM organizations WHERE id = ?", id))
}

// GetOrgIfChanged reads an organization unless its stored version is still known: then Data is nil, and only the
// small columns crossed the connection.
func (s *Store) GetOrgIfChanged(ctx context.Context, id string, known int64) (Org, error) {
	return scanOrg(s.queryRow(ctx, "SELECT id, parent_id, version, CASE WHEN version = ? THEN '' ELSE data END, created_at FROM organizations WHERE id = ?", known, id))
}

// FindIndex lists the organizations indexed under a kind and value.
func (s *Store) FindIndex(ctx context.Context, kind, value string) ([]IndexHit, error) {
	rows, err := s.query(ctx, "SELECT org_id, parent_id FROM org_index WHERE kind = ? AND value = ? ORDER BY org_id", kind, value)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []IndexHit
	for rows.Next() {
		var h IndexHit
		if err := rows.Scan(&h.OrgID, &h.ParentID); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// SubOrgPage selects sub-organizations: all of a parent's, or those indexed under a kind and value or holding a wallet
// account at an address (either, when both are set); ordered by creation; After/Before are organization ids (cursors).
type SubOrgPage struct {
	ParentID          string
	Kind, Value       string
	AccountAddressKey string
	After, Before     string
	Limit             int
}

// ListSubOrgs lists sub-organization ids of a parent. A filtered list starts from the index, so its cost does not
// depend on how many sub-organizations the parent has.
func (s *Store) ListSubOrgs(ctx context.Context, p SubOrgPage) ([]string, error) {
	q := "SELECT o.id FROM organizations o WHERE o.parent_id = ?"
	var args []any
	var matches []string
	if p.Kind != "" {
		matches = append(matches, "SELECT org_id FROM org_index WHERE kind = ? AND value = ? AND parent_id = ?")
		args = append(args, p.Kind, p.Value, p.ParentID)
	}
	if p.AccountAddressKey != "" {
		matches = append(matches, "SELECT org_id FROM wallet_accounts"+s.dialect.indexedBy("wallet_accounts_address")+" WHERE address_key = ?")
		args = append(args, p.AccountAddressKey)
	}
	if len(matches) > 0 {
		// From the few matches to their rows, not through every sub-organization of the parent: SQLite joins a CROSS
		// JOIN in the order written.
		q = "SELECT o.id FROM (" + strings.Join(matches, " UNION ") + ") m CROSS JOIN organizations o WHERE o.id = m.org_id AND o.parent_id = ?"
	}
	args = append(args, p.ParentID)
	order := "ASC"
	if p.After != "" {
		q += " AND (o.created_at, o.id) > (SELECT created_at, id FROM organizations WHERE id = ?)"
		args = append(args, p.After)
	}
	if p.Before != "" {
		q += " AND (o.created_at, o.id) < (SELECT created_at, id FROM organizations WHERE id = ?)"
		args = append(args, p.Before)
		order = "DESC"
	}
	q += fmt.Sprintf(" ORDER BY o.created_at %s, o.id %s LIMIT %d", order, order, p.Limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if order == "DESC" {
		slices.Reverse(ids)
	}
	return ids, rows.Err()
}

// AdvanceSignCount stores a passkey's new signature counter if it is greater than the stored one, and reports whether
// it was (false means a replayed or cloned authenticator). Authenticators that keep no counter always send 0.
func (s *Store) AdvanceSignCount(ctx context.Context, orgID, credentialID string, count uint32) (bool, error) {
	ok := false
	err := s.Write(ctx, func(tx *Tx) error {
		var stored int64
		err := tx.queryRow(ctx, "SELECT sign_count FROM webauthn_counters WHERE org_id = ? AND credential_id = ?", orgID, credentialID).Scan(&stored)
		switch notFound(err) {
		case nil:
			if count == 0 && stored == 0 {
				ok = true // the authenticator keeps no counter
				return nil
			}
			if int64(count) <= stored {
				return nil
			}
			_, err = tx.exec(ctx, "UPDATE webauthn_counters SET sign_count = ? WHERE org_id = ? AND credential_id = ?", count, orgID, credentialID)
		case ErrNotFound:
			_, err = tx.exec(ctx, "INSERT INTO webauthn_counters (org_id, credential_id, sign_count) VALUES (?, ?, ?)", orgID, credentialID, count)
		}
		ok = err == nil
		return err
	})
	return ok, err
}

// SignCount reads a passkey's stored counter (0 when none is stored).
func (s *Store) SignCount(ctx context.Context, orgID, credentialID string) (uint32, error) {
	var n int64
	err := s.queryRow(ctx, "SELECT sign_count FROM webauthn_counters WHERE org_id = ? AND credential_id = ?", orgID, credentialID).Scan(&n)
	if notFound(err) == ErrNotFound {
		return 0, nil
	}
	return uint32(n), err
}
