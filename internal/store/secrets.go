package store

import (
	"context"
	"encoding/base64"
	"fmt"
)

// Secret is a sealed blob. The store never sees plaintext key material.
type Secret struct {
	ID        string
	OrgID     string // "" for the coordinator's own secrets
	Blob      []byte
	CreatedAt int64
}

// PutSecret stores a sealed blob.
func (t *Tx) PutSecret(ctx context.Context, s Secret) error {
	_, err := t.exec(ctx, "INSERT INTO sealed_secrets (id, org_id, blob, created_at) VALUES (?, ?, ?, ?)",
		s.ID, s.OrgID, base64.StdEncoding.EncodeToString(s.Blob), s.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: put secret: %w", err)
	}
	return nil
}

// DeleteSecrets removes sealed blobs.
func (t *Tx) DeleteSecrets(ctx context.Context, ids ...string) error {
	for _, id := range ids {
		if _, err := t.exec(ctx, "DELETE FROM sealed_secrets WHERE id = ?", id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteOrgSecrets removes every sealed blob of an organization, and the Secrets API's rows that name them.
func (t *Tx) DeleteOrgSecrets(ctx context.Context, orgID string) error {
	if err := t.deleteOrgSecretRows(ctx, orgID); err != nil {
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM sealed_secrets WHERE org_id = ?", orgID)
	return err
}

// SecretReader reads sealed blobs: the store outside any transaction, or a transaction, which takes no other
// connection.
type SecretReader interface {
	GetSecret(ctx context.Context, id string) (Secret, error)
}

// GetSecret reads a sealed blob.
func (s *Store) GetSecret(ctx context.Context, id string) (Secret, error) {
	return getSecret(ctx, s, id)
}

// GetSecret reads a sealed blob in the transaction.
func (t *Tx) GetSecret(ctx context.Context, id string) (Secret, error) { return getSecret(ctx, t, id) }

func getSecret(ctx context.Context, q queryer, id string) (Secret, error) {
	var sec Secret
	var blob string
	err := q.queryRow(ctx, "SELECT id, org_id, blob, created_at FROM sealed_secrets WHERE id = ?", id).Scan(&sec.ID, &sec.OrgID, &blob, &sec.CreatedAt)
	if err != nil {
		return Secret{}, notFound(err)
	}
	sec.Blob, err = base64.StdEncoding.DecodeString(blob)
	return sec, err
}

// SecretIDs lists the ids of every sealed blob, for master key rotation.
func (s *Store) SecretIDs(ctx context.Context) ([]string, error) {
	rows, err := s.query(ctx, "SELECT id FROM sealed_secrets ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// ReplaceSecretBlob swaps a blob for its rewrapped form, if it is still the one read.
func (s *Store) ReplaceSecretBlob(ctx context.Context, id string, old, blob []byte) error {
	return s.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, "UPDATE sealed_secrets SET blob = ? WHERE id = ? AND blob = ?",
			base64.StdEncoding.EncodeToString(blob), id, base64.StdEncoding.EncodeToString(old))
		return err
	})
}

// sealedColumns are the columns outside sealed_secrets that hold sealed blobs (base64): the yield webhook endpoints'
// secrets and the copies their pending deliveries carry (a delivery done or dead is never opened again). A master key
// rotation rewraps them too.
var sealedColumns = []struct{ table, column, where string }{
	{"yield_webhook_endpoints", "secret", ""},
	{"webhook_deliveries", "secret", " AND state = '" + DeliveryPending + "'"},
}

// RewrapSealedColumns gives every sealed blob of sealedColumns to rewrap and stores what it returns when changed, if
// the row still holds the blob read (a concurrent change is left for the next run). It returns how many it replaced.
func (s *Store) RewrapSealedColumns(ctx context.Context, rewrap func(blob []byte) (out []byte, changed bool, err error)) (int, error) {
	n := 0
	for _, c := range sealedColumns {
		rows, err := s.query(ctx, "SELECT id, "+c.column+" FROM "+c.table+" WHERE "+c.column+" <> ''"+c.where)
		if err != nil {
			return n, fmt.Errorf("store: read %s.%s: %w", c.table, c.column, err)
		}
		type sealed struct{ id, blob string }
		var all []sealed
		for rows.Next() {
			var r sealed
			if err := rows.Scan(&r.id, &r.blob); err != nil {
				rows.Close()
				return n, err
			}
			all = append(all, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, err
		}
		for _, r := range all {
			blob, err := base64.StdEncoding.DecodeString(r.blob)
			if err != nil {
				return n, fmt.Errorf("store: %s %s: the sealed %s is not base64: %w", c.table, r.id, c.column, err)
			}
			out, changed, err := rewrap(blob)
			if err != nil {
				return n, fmt.Errorf("%s %s: %w", c.table, r.id, err)
			}
			if !changed {
				continue
			}
			err = s.Write(ctx, func(tx *Tx) error {
				_, err := tx.exec(ctx, "UPDATE "+c.table+" SET "+c.column+" = ? WHERE id = ? AND "+c.column+" = ?",
					base64.StdEncoding.EncodeToString(out), r.id, r.blob)
				return err
			})
			if err != nil {
				return n, fmt.Errorf("store: rewrap %s %s: %w", c.table, r.id, err)
			}
			n++
		}
	}
	return n, nil
}
