package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ChainCursor is the next block a watcher of a network reads; found is false when it has never read one.
func (s *Store) ChainCursor(ctx context.Context, network, watcher string) (next uint64, found bool, err error) {
	var n int64
	err = s.queryRow(ctx, "SELECT next_block FROM chain_cursors WHERE network = ? AND watcher = ?", network, watcher).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: chain cursor: %w", err)
	}
	return uint64(n), true, nil
}

// SetChainCursor moves a watcher's cursor, in the transaction that records what it read.
func (t *Tx) SetChainCursor(ctx context.Context, network, watcher string, next uint64) error {
	_, err := t.exec(ctx, `INSERT INTO chain_cursors (network, watcher, next_block) VALUES (?, ?, ?)
		ON CONFLICT (network, watcher) DO UPDATE SET next_block = excluded.next_block`, network, watcher, int64(next))
	if err != nil {
		return fmt.Errorf("store: set chain cursor: %w", err)
	}
	return nil
}
