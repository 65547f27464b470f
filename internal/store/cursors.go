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

// RecordChainBlock keeps the hash of a block a watcher read, in the transaction that moves its cursor past it, and
// forgets those keep blocks or more behind it.
func (t *Tx) RecordChainBlock(ctx context.Context, network, watcher string, number uint64, hash string, keep uint64) error {
	_, err := t.exec(ctx, `INSERT INTO chain_blocks (network, watcher, number, hash) VALUES (?, ?, ?, ?)
		ON CONFLICT (network, watcher, number) DO UPDATE SET hash = excluded.hash`, network, watcher, int64(number), hash)
	if err == nil && number >= keep {
		_, err = t.exec(ctx, "DELETE FROM chain_blocks WHERE network = ? AND watcher = ? AND number <= ?", network, watcher, int64(number-keep))
	}
	if err != nil {
		return fmt.Errorf("store: record chain block: %w", err)
	}
	return nil
}

// ForgetChainBlocks drops the hashes a watcher kept of blocks from a height on: the chain replaced them.
func (t *Tx) ForgetChainBlocks(ctx context.Context, network, watcher string, from uint64) error {
	if _, err := t.exec(ctx, "DELETE FROM chain_blocks WHERE network = ? AND watcher = ? AND number >= ?", network, watcher, int64(from)); err != nil {
		return fmt.Errorf("store: forget chain blocks: %w", err)
	}
	return nil
}

// ChainBlocks returns the hashes a watcher kept of the blocks from..to, by number.
func (s *Store) ChainBlocks(ctx context.Context, network, watcher string, from, to uint64) (map[uint64]string, error) {
	rows, err := s.query(ctx, "SELECT number, hash FROM chain_blocks WHERE network = ? AND watcher = ? AND number >= ? AND number <= ?",
		network, watcher, int64(from), int64(to))
	if err != nil {
		return nil, fmt.Errorf("store: chain blocks: %w", err)
	}
	defer rows.Close()
	out := map[uint64]string{}
	for rows.Next() {
		var n int64
		var h string
		if err := rows.Scan(&n, &h); err != nil {
			return nil, fmt.Errorf("store: chain blocks: %w", err)
		}
		out[uint64(n)] = h
	}
	return out, rows.Err()
}
