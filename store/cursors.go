package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ChainCursor is where a watcher of a network is: the next block it reads and the hash of the last one it read ("" when
// unknown); found is false when it has never read one.
type ChainCursor struct {
	Next     uint64
	LastHash string
}

// ChainCursor returns a watcher's cursor.
func (s *Store) ChainCursor(ctx context.Context, network, watcher string) (c ChainCursor, found bool, err error) {
	var n int64
	err = s.queryRow(ctx, "SELECT next_block, last_hash FROM chain_cursors WHERE network = ? AND watcher = ?", network, watcher).Scan(&n, &c.LastHash)
	if errors.Is(err, sql.ErrNoRows) {
		return ChainCursor{}, false, nil
	}
	if err != nil {
		return ChainCursor{}, false, fmt.Errorf("store: chain cursor: %w", err)
	}
	c.Next = uint64(n)
	return c, true, nil
}

// SetChainCursor moves a watcher's cursor, in the transaction that records what it read.
func (t *Tx) SetChainCursor(ctx context.Context, network, watcher string, c ChainCursor) error {
	_, err := t.exec(ctx, `INSERT INTO chain_cursors (network, watcher, next_block, last_hash) VALUES (?, ?, ?, ?)
		ON CONFLICT (network, watcher) DO UPDATE SET next_block = excluded.next_block, last_hash = excluded.last_hash`,
		network, watcher, int64(c.Next), c.LastHash)
	if err != nil {
		return fmt.Errorf("store: set chain cursor: %w", err)
	}
	return nil
}
