package chain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/ethdb"
)

// sealer decides when the simulated beacon seals a block: as soon as transactions arrive, on the
// block period if one is set, and when time is advanced. It does what the on-demand loop of
// catalyst.RegisterSimulatedBeaconAPIs does, but every seal, time jump and pool sync happens on
// this one goroutine: the beacon's sealing is not safe for concurrent use, and two concurrent
// TxPool.Sync calls can leave one of them waiting forever, which stalls the chain.
type sealer struct {
	beacon  *catalyst.SimulatedBeacon
	pool    *txpool.TxPool
	db      ethdb.KeyValueSyncer // nil for an ephemeral chain
	period  time.Duration
	advance chan advanceRequest
	rewinds chan rewindRequest
	syncs   chan chan error
	stop    chan struct{}
	done    chan struct{}
}

type advanceRequest struct {
	by    time.Duration
	reply chan error
}

type rewindRequest struct {
	to    common.Hash
	reply chan error
}

// maxSealRounds bounds the blocks sealed for one burst of transactions, so a transaction the
// miner never includes (say, a tip below its minimum) cannot keep the loop spinning.
const maxSealRounds = 64

func startSealer(beacon *catalyst.SimulatedBeacon, pool *txpool.TxPool, db ethdb.KeyValueSyncer, period time.Duration) *sealer {
	s := &sealer{beacon: beacon, pool: pool, db: db, period: period,
		advance: make(chan advanceRequest), rewinds: make(chan rewindRequest), syncs: make(chan chan error), stop: make(chan struct{}), done: make(chan struct{})}
	txs := make(chan core.NewTxsEvent, 64)
	sub := pool.SubscribeTransactions(txs, true)
	go s.run(txs, func() { sub.Unsubscribe() })
	return s
}

func (s *sealer) run(txs chan core.NewTxsEvent, unsubscribe func()) {
	defer close(s.done)
	defer unsubscribe()
	var tick <-chan time.Time
	if s.period > 0 {
		ticker := time.NewTicker(s.period)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case <-s.stop:
			return
		case <-txs:
			s.sealPending(txs)
		case <-tick:
			s.beacon.Commit()
		case req := <-s.advance:
			err := s.adjustTime(txs, req.by)
			s.persist() // a caller told the time moved can rely on every block before it being on disk
			req.reply <- err
			continue
		case req := <-s.rewinds:
			req.reply <- s.rewindTo(txs, req.to)
		case reply := <-s.syncs:
			reply <- s.pool.Sync()
			continue
		}
		s.persist()
	}
}

// sealPending seals blocks until no executable transaction is left.
func (s *sealer) sealPending(txs chan core.NewTxsEvent) {
	for range maxSealRounds {
		drain(txs) // everything announced so far goes into this block
		s.beacon.Commit()
		if err := s.pool.Sync(); err != nil {
			return
		}
		if executable, _ := s.pool.Stats(); executable == 0 {
			return
		}
	}
}

// adjustTime mines what is pending, then seals an empty block `by` later than the head.
func (s *sealer) adjustTime(txs chan core.NewTxsEvent, by time.Duration) error {
	if err := s.pool.Sync(); err != nil {
		return err
	}
	if executable, _ := s.pool.Stats(); executable > 0 {
		s.sealPending(txs)
	}
	return s.beacon.AdjustTime(by)
}

// rewindTo drops every pending transaction and makes block to the head again; the blocks after it leave the chain.
// The pool treats the rewind as a reorganisation and takes the dropped blocks' transactions back in; they are
// cleared again once it has, so nothing of what came after the snapshot is mined again.
func (s *sealer) rewindTo(txs chan core.NewTxsEvent, to common.Hash) error {
	s.beacon.Rollback()
	if err := s.beacon.Fork(to); err != nil {
		return err
	}
	if err := s.pool.Sync(); err != nil {
		return err
	}
	s.beacon.Rollback()
	drain(txs)
	return nil
}

// persist flushes the database's write-ahead log to disk. go-ethereum writes without syncing and
// pebble may hold the last writes in memory, so without this a killed process loses its last
// blocks. It costs one fsync per burst of blocks.
func (s *sealer) persist() {
	if s.db != nil {
		_ = s.db.SyncKeyValue() // a failure shows as lost blocks after a crash; nothing to do here
	}
}

func drain(txs chan core.NewTxsEvent) {
	for {
		select {
		case <-txs:
		default:
			return
		}
	}
}

var errSealerStopped = errors.New("chain: the dev chain is stopped")

// syncPool returns once the transaction pool has taken in every block sealed so far. A block's receipts can be read
// as soon as it is sealed, a moment before the pool has moved to it; a transaction sent in that moment is checked
// against the state before the block (a wallet just funded still has nothing, say).
func (s *sealer) syncPool(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case s.syncs <- reply:
	case <-s.done:
		return errSealerStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rewind asks the sealing goroutine to make block to the head and waits for it.
func (s *sealer) rewind(to common.Hash) error {
	req := rewindRequest{to: to, reply: make(chan error, 1)}
	select {
	case s.rewinds <- req:
	case <-s.done:
		return errSealerStopped
	}
	if err := <-req.reply; err != nil {
		return fmt.Errorf("chain: revert: %w", err)
	}
	return nil
}

// advanceTime asks the sealing goroutine for a time jump and waits for it.
func (s *sealer) advanceTime(by time.Duration) error {
	req := advanceRequest{by: by, reply: make(chan error, 1)}
	select {
	case s.advance <- req:
	case <-s.done:
		return errSealerStopped
	}
	if err := <-req.reply; err != nil {
		return fmt.Errorf("chain: advance time: %w", err)
	}
	return nil
}

func (s *sealer) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}
