package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// OrgSecret is one secret of the Secrets API: what anyone who reads the organization may see of it, and the sealed
// row (sealed_secrets) that holds its value.
type OrgSecret struct {
	ID, OrgID string
	Name      string // "" when it has none
	// Properties are its static properties as JSON (a list of {key, value}), bound to it for good.
	Properties []byte
	SealedID   string
	CreatedAt  int64 // unix milliseconds
}

// ErrSecretName is the error of a secret whose name another secret of the organization has.
var ErrSecretName = errors.New("store: another secret of the organization has this name")

const orgSecretColumns = "id, org_id, name, properties, sealed_id, created_at"

func scanOrgSecret(row interface{ Scan(...any) error }) (OrgSecret, error) {
	var s OrgSecret
	var name sql.NullString
	var props string
	err := row.Scan(&s.ID, &s.OrgID, &name, &props, &s.SealedID, &s.CreatedAt)
	s.Name, s.Properties = name.String, []byte(props)
	return s, err
}

// InsertOrgSecret records a secret whose value is sealed already (PutSecret), in the transaction of its import.
func (t *Tx) InsertOrgSecret(ctx context.Context, s OrgSecret) error {
	var name any
	if s.Name != "" {
		name = s.Name
		var taken int
		err := t.queryRow(ctx, "SELECT 1 FROM org_secrets WHERE org_id = ? AND name = ?", s.OrgID, s.Name).Scan(&taken)
		if err == nil {
			return ErrSecretName
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: insert secret: %w", err)
		}
	}
	_, err := t.exec(ctx, "INSERT INTO org_secrets ("+orgSecretColumns+") VALUES (?, ?, ?, ?, ?, ?)",
		s.ID, s.OrgID, name, string(s.Properties), s.SealedID, s.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert secret: %w", err)
	}
	return nil
}

// OrgSecrets reads secrets of an organization by id, in the transaction that acts on them; an id it does not have is
// missing from the map.
func (t *Tx) OrgSecrets(ctx context.Context, orgID string, ids []string) (map[string]OrgSecret, error) {
	if len(ids) == 0 {
		return map[string]OrgSecret{}, nil
	}
	args := []any{orgID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := t.query(ctx, "SELECT "+orgSecretColumns+" FROM org_secrets WHERE org_id = ? AND id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("store: secrets: %w", err)
	}
	defer rows.Close()
	out := map[string]OrgSecret{}
	for rows.Next() {
		s, err := scanOrgSecret(rows)
		if err != nil {
			return nil, fmt.Errorf("store: secrets: %w", err)
		}
		out[s.ID] = s
	}
	return out, rows.Err()
}

// DeleteOrgSecret removes a secret and its sealed value.
func (t *Tx) DeleteOrgSecret(ctx context.Context, s OrgSecret) error {
	if _, err := t.exec(ctx, "DELETE FROM org_secrets WHERE id = ? AND org_id = ?", s.ID, s.OrgID); err != nil {
		return fmt.Errorf("store: delete secret: %w", err)
	}
	return t.DeleteSecrets(ctx, s.SealedID)
}

// SecretPage is a page of an organization's secrets, newest first: after an id, the older ones; before an id, the
// newer ones (the page still newest first).
type SecretPage struct {
	OrgID         string
	After, Before string
	Limit         int
}

// ListOrgSecrets reads a page of an organization's secrets.
func (s *Store) ListOrgSecrets(ctx context.Context, p SecretPage) ([]OrgSecret, error) {
	q := "SELECT " + orgSecretColumns + " FROM org_secrets WHERE org_id = ?"
	args := []any{p.OrgID}
	order := "DESC"
	switch {
	case p.After != "":
		q += " AND id < ?"
		args = append(args, p.After)
	case p.Before != "":
		q += " AND id > ?"
		args = append(args, p.Before)
		order = "ASC"
	}
	q += fmt.Sprintf(" ORDER BY id %s LIMIT %d", order, p.Limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list secrets: %w", err)
	}
	defer rows.Close()
	var out []OrgSecret
	for rows.Next() {
		sec, err := scanOrgSecret(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list secrets: %w", err)
		}
		out = append(out, sec)
	}
	if order == "ASC" {
		slices.Reverse(out)
	}
	return out, rows.Err()
}

// ImportTarget is a one-time key of INIT_IMPORT_SECRETS: its public key (uncompressed P-256, hex) and the sealed row
// holding its private half.
type ImportTarget struct {
	OrgID, UserID, PublicKey, SealedID string
	CreatedAt                          int64
}

// ReplaceImportTargets deletes the user's one-time import keys (and their sealed halves) and records new ones.
func (t *Tx) ReplaceImportTargets(ctx context.Context, orgID, userID string, targets []ImportTarget) error {
	old, err := t.ImportTargets(ctx, orgID, userID)
	if err != nil {
		return err
	}
	for _, o := range old {
		if err := t.DeleteImportTarget(ctx, o); err != nil {
			return err
		}
	}
	for _, k := range targets {
		_, err := t.exec(ctx, "INSERT INTO secret_import_targets (org_id, user_id, public_key, sealed_id, created_at) VALUES (?, ?, ?, ?, ?)",
			k.OrgID, k.UserID, k.PublicKey, k.SealedID, k.CreatedAt)
		if err != nil {
			return fmt.Errorf("store: record import target: %w", err)
		}
	}
	return nil
}

// ImportTargets are the user's one-time import keys.
func (t *Tx) ImportTargets(ctx context.Context, orgID, userID string) ([]ImportTarget, error) {
	rows, err := t.query(ctx, "SELECT org_id, user_id, public_key, sealed_id, created_at FROM secret_import_targets WHERE org_id = ? AND user_id = ?", orgID, userID)
	if err != nil {
		return nil, fmt.Errorf("store: import targets: %w", err)
	}
	defer rows.Close()
	var out []ImportTarget
	for rows.Next() {
		var k ImportTarget
		if err := rows.Scan(&k.OrgID, &k.UserID, &k.PublicKey, &k.SealedID, &k.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: import targets: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// DeleteImportTarget removes a one-time import key and its sealed half: it was used, or replaced.
func (t *Tx) DeleteImportTarget(ctx context.Context, k ImportTarget) error {
	if _, err := t.exec(ctx, "DELETE FROM secret_import_targets WHERE org_id = ? AND user_id = ? AND public_key = ?", k.OrgID, k.UserID, k.PublicKey); err != nil {
		return fmt.Errorf("store: delete import target: %w", err)
	}
	return t.DeleteSecrets(ctx, k.SealedID)
}

// deleteOrgSecretRows removes the Secrets API's rows of an organization (its sealed blobs go with DeleteOrgSecrets).
func (t *Tx) deleteOrgSecretRows(ctx context.Context, orgID string) error {
	for _, q := range []string{"DELETE FROM org_secrets WHERE org_id = ?", "DELETE FROM secret_import_targets WHERE org_id = ?"} {
		if _, err := t.exec(ctx, q, orgID); err != nil {
			return fmt.Errorf("store: delete secrets: %w", err)
		}
	}
	return nil
}

// placeholders is "?, ?, ..." for n values.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
