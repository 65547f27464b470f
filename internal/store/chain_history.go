package store

import (
	"context"
	"fmt"
	"slices"
)

// ChainTransaction is one transaction in the history of one address: where it is (block and position in the block,
// which order the history) and its entry seen from that address, as JSON.
type ChainTransaction struct {
	Network, Address string
	Block            uint64
	Position         int
	TxHash           string
	Item             []byte
}

// RecordChainTransactions writes history entries, in the transaction that moves the watcher past their block; an
// entry read again (the block read again) replaces the one written before.
func (t *Tx) RecordChainTransactions(ctx context.Context, txs []ChainTransaction) error {
	for _, c := range txs {
		_, err := t.exec(ctx, `INSERT INTO chain_transactions (network, address, block_number, position, tx_hash, item) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (network, address, block_number, position) DO UPDATE SET tx_hash = excluded.tx_hash, item = excluded.item`,
			c.Network, c.Address, int64(c.Block), c.Position, c.TxHash, string(c.Item))
		if err != nil {
			return fmt.Errorf("store: record chain transaction: %w", err)
		}
	}
	return nil
}

// ForgetChainTransactions drops the history entries of a network's blocks from a height on: a reorganisation replaced
// them, and the watcher reads the new ones.
func (t *Tx) ForgetChainTransactions(ctx context.Context, network string, from uint64) error {
	if _, err := t.exec(ctx, "DELETE FROM chain_transactions WHERE network = ? AND block_number >= ?", network, int64(from)); err != nil {
		return fmt.Errorf("store: forget chain transactions: %w", err)
	}
	return nil
}

// HistoryCursor is a place in a history: the transaction at Position in Block.
type HistoryCursor struct {
	Block    uint64
	Position int
}

// HistoryPage is a page of an address's history, the most recent first: after a cursor, the older entries; before
// one, the newer (the page still the most recent first).
type HistoryPage struct {
	Network, Address string
	After, Before    *HistoryCursor
	Limit            int
}

// ChainTransactions reads a page of an address's history by its index, from the cursor on, so that a page costs the
// same at any depth.
func (s *Store) ChainTransactions(ctx context.Context, p HistoryPage) ([]ChainTransaction, error) {
	q := "SELECT block_number, position, tx_hash, item FROM chain_transactions WHERE network = ? AND address = ?"
	args := []any{p.Network, p.Address}
	order := "DESC"
	switch {
	case p.After != nil:
		q += " AND (block_number, position) < (?, ?)"
		args = append(args, int64(p.After.Block), p.After.Position)
	case p.Before != nil:
		q += " AND (block_number, position) > (?, ?)"
		args = append(args, int64(p.Before.Block), p.Before.Position)
		order = "ASC"
	}
	q += fmt.Sprintf(" ORDER BY block_number %s, position %s LIMIT %d", order, order, p.Limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: chain transactions: %w", err)
	}
	defer rows.Close()
	var out []ChainTransaction
	for rows.Next() {
		c := ChainTransaction{Network: p.Network, Address: p.Address}
		var block int64
		var item string
		if err := rows.Scan(&block, &c.Position, &c.TxHash, &item); err != nil {
			return nil, fmt.Errorf("store: chain transactions: %w", err)
		}
		c.Block, c.Item = uint64(block), []byte(item)
		out = append(out, c)
	}
	if order == "ASC" {
		slices.Reverse(out)
	}
	return out, rows.Err()
}

// SentTransaction is what the coordinator knows of a transaction it sent: the activity that sent it and whether a gas
// sponsor paid.
type SentTransaction struct {
	TxHash, ActivityFingerprint string
	Sponsored                   bool
	SubmittedAt                 int64 // unix nanoseconds: when the send was accepted
}

// SentTransactions finds, among the hashes, the transactions the organization's sends put on the chain.
func (s *Store) SentTransactions(ctx context.Context, orgID string, hashes []string) (map[string]SentTransaction, error) {
	out := map[string]SentTransaction{}
	if len(hashes) == 0 {
		return out, nil
	}
	args := []any{orgID}
	for _, h := range hashes {
		args = append(args, h)
	}
	rows, err := s.query(ctx, `SELECT s.tx_hash, a.fingerprint, s.sponsor_org, s.created_at FROM send_transactions s
		JOIN activities a ON a.id = s.activity_id WHERE s.org_id = ? AND s.tx_hash IN (`+placeholders(len(hashes))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("store: sent transactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t SentTransaction
		var sponsor string
		if err := rows.Scan(&t.TxHash, &t.ActivityFingerprint, &sponsor, &t.SubmittedAt); err != nil {
			return nil, fmt.Errorf("store: sent transactions: %w", err)
		}
		t.Sponsored = sponsor != ""
		out[t.TxHash] = t
	}
	return out, rows.Err()
}

// HeldAddresses are the values among addressKeys that are a wallet account's address in some organization. A watcher
// asks once per block for every address the block's transactions touch, in chunks that keep a statement's parameters
// few.
func (s *Store) HeldAddresses(ctx context.Context, addressKeys []string) (map[string]bool, error) {
	held := map[string]bool{}
	for start := 0; start < len(addressKeys); start += 500 {
		chunk := addressKeys[start:min(len(addressKeys), start+500)]
		args := make([]any, len(chunk))
		for i, v := range chunk {
			args[i] = v
		}
		rows, err := s.query(ctx, `SELECT DISTINCT address_key FROM wallet_accounts`+s.dialect.indexedBy("wallet_accounts_address")+
			` WHERE address_key IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: held addresses: %w", err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: held addresses: %w", err)
			}
			held[v] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: held addresses: %w", err)
		}
	}
	return held, nil
}
