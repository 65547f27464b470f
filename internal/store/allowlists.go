package store

import (
	"context"
	"fmt"
)

// IPAllowlist is an organization's IP allowlist (PublicKey "") or one API key's: its rules as JSON (a list of {cidr,
// label, createdAt}).
type IPAllowlist struct {
	OrgID, PublicKey  string
	Enabled           bool
	OnEvaluationError string
	Rules             []byte
	UpdatedAt         int64 // unix milliseconds
}

// IPAllowlists reads every allowlist of an organization: its own and its keys'.
func (s *Store) IPAllowlists(ctx context.Context, orgID string) ([]IPAllowlist, error) {
	return s.ipAllowlists(ctx, "SELECT org_id, public_key, enabled, on_evaluation_error, rules, updated_at FROM ip_allowlists WHERE org_id = ?", orgID)
}

// IPAllowlistsOf reads the allowlists that may judge one credential: the organization's and its key's (at most two
// rows, by the primary key). It runs on every authenticated request of a parent organization's credential, so that a
// change holds at once everywhere.
func (s *Store) IPAllowlistsOf(ctx context.Context, orgID, publicKey string) ([]IPAllowlist, error) {
	return s.ipAllowlists(ctx, "SELECT org_id, public_key, enabled, on_evaluation_error, rules, updated_at FROM ip_allowlists WHERE org_id = ? AND public_key IN ('', ?)",
		orgID, publicKey)
}

func (s *Store) ipAllowlists(ctx context.Context, q string, args ...any) ([]IPAllowlist, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: ip allowlists: %w", err)
	}
	defer rows.Close()
	var out []IPAllowlist
	for rows.Next() {
		var l IPAllowlist
		var enabled int
		var rules string
		if err := rows.Scan(&l.OrgID, &l.PublicKey, &enabled, &l.OnEvaluationError, &rules, &l.UpdatedAt); err != nil {
			return nil, fmt.Errorf("store: ip allowlists: %w", err)
		}
		l.Enabled, l.Rules = enabled != 0, []byte(rules)
		out = append(out, l)
	}
	return out, rows.Err()
}

// PutIPAllowlist writes an allowlist, replacing the one of the same organization and key.
func (t *Tx) PutIPAllowlist(ctx context.Context, l IPAllowlist) error {
	enabled := 0
	if l.Enabled {
		enabled = 1
	}
	_, err := t.exec(ctx, `INSERT INTO ip_allowlists (org_id, public_key, enabled, on_evaluation_error, rules, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, public_key) DO UPDATE SET enabled = excluded.enabled, on_evaluation_error = excluded.on_evaluation_error,
		rules = excluded.rules, updated_at = excluded.updated_at`, l.OrgID, l.PublicKey, enabled, l.OnEvaluationError, string(l.Rules), l.UpdatedAt)
	if err != nil {
		return fmt.Errorf("store: put ip allowlist: %w", err)
	}
	return nil
}

// RemoveIPAllowlist deletes an organization's allowlist (publicKey "") or a key's, and reports whether there was one.
func (t *Tx) RemoveIPAllowlist(ctx context.Context, orgID, publicKey string) (bool, error) {
	res, err := t.exec(ctx, "DELETE FROM ip_allowlists WHERE org_id = ? AND public_key = ?", orgID, publicKey)
	if err != nil {
		return false, fmt.Errorf("store: remove ip allowlist: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RemoveIPAllowlists deletes every allowlist of an organization, its keys' too: the operator's way back in when the
// lists lock everyone out (sigil allowlist clear, on the server). It returns how many it deleted.
func (s *Store) RemoveIPAllowlists(ctx context.Context, orgID string) (int, error) {
	var n int64
	err := s.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, "DELETE FROM ip_allowlists WHERE org_id = ?", orgID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: remove ip allowlists: %w", err)
	}
	return int(n), nil
}
