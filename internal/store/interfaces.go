package store

import (
	"context"
	"fmt"
)

// ContractInterface is the body of an uploaded smart contract interface (an ABI or IDL as JSON).
type ContractInterface struct {
	ID        string
	OrgID     string
	Body      string
	CreatedAt int64 // unix nanoseconds
}

// PutContractInterface stores an interface's body.
func (t *Tx) PutContractInterface(ctx context.Context, ci ContractInterface) error {
	_, err := t.exec(ctx, "INSERT INTO contract_interfaces (id, org_id, body, created_at) VALUES (?, ?, ?, ?)",
		ci.ID, ci.OrgID, ci.Body, ci.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: put contract interface: %w", err)
	}
	return nil
}

// DeleteContractInterface removes an interface's body.
func (t *Tx) DeleteContractInterface(ctx context.Context, id string) error {
	if _, err := t.exec(ctx, "DELETE FROM contract_interfaces WHERE id = ?", id); err != nil {
		return fmt.Errorf("store: delete contract interface: %w", err)
	}
	return nil
}

// GetContractInterface reads an interface's body.
func (s *Store) GetContractInterface(ctx context.Context, id string) (ContractInterface, error) {
	var ci ContractInterface
	err := s.queryRow(ctx, "SELECT id, org_id, body, created_at FROM contract_interfaces WHERE id = ?", id).
		Scan(&ci.ID, &ci.OrgID, &ci.Body, &ci.CreatedAt)
	if err != nil {
		return ContractInterface{}, notFound(err)
	}
	return ci, nil
}
