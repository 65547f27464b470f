package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
)

// Relayer is the relayer of Sigil's bridge between dev chains: it watches each chain's bridge for Locked events and
// releases each lock on its destination chain, from that chain's dev account (which the deployment makes the bridge's
// relayer). It keeps no state but a block cursor per chain: a release already made is skipped, and one that fails
// (the destination's inventory short, the node away) is tried again on the next pass.
type Relayer struct {
	nodes  map[int64]*Node
	log    *slog.Logger
	mu     sync.Mutex
	cursor map[int64]uint64       // the next block to read, per chain
	retry  map[common.Hash]locked // locks whose release failed, by id

	cancel context.CancelFunc
	done   chan struct{}
}

// locked is a Locked event with the chain it was locked on.
type locked struct {
	origin int64
	lock   bridgeLock
	dest   int64
}

// bridgeLock is SigilBridge.Lock.
type bridgeLock struct {
	Id            [32]byte //nolint:revive // go-ethereum matches the ABI's id
	Ref           [32]byte
	OriginChainId *big.Int //nolint:revive
	Token         common.Address
	Amount        *big.Int
	Recipient     common.Address
	DestPath      []byte
	DestMinOut    *big.Int
}

// NewRelayer returns a relayer between the given dev chains; Step runs one pass, Start runs passes on a period.
func NewRelayer(nodes []*Node, logger *slog.Logger) *Relayer {
	if logger == nil {
		logger = slog.Default()
	}
	r := &Relayer{nodes: map[int64]*Node{}, log: logger, cursor: map[int64]uint64{}, retry: map[common.Hash]locked{}}
	for _, n := range nodes {
		r.nodes[n.ChainID().Int64()] = n
	}
	return r
}

// Start runs a pass every period until Close.
func (r *Relayer) Start(period time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				if _, err := r.Step(ctx); err != nil && ctx.Err() == nil {
					r.log.Warn("bridge relayer pass failed", "err", err)
				}
			}
		}
	}()
}

// Close stops the passes Start runs.
func (r *Relayer) Close() error {
	if r.cancel != nil {
		r.cancel()
		<-r.done
	}
	return nil
}

// Step reads every chain's new Locked events and releases them, with the failed releases of earlier passes; it
// returns how many it released. Passes never overlap.
func (r *Relayer) Step(ctx context.Context) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var firstErr error
	for id, n := range r.nodes {
		if err := r.read(ctx, id, n); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	released := 0
	for id, l := range r.retry {
		err := r.release(ctx, l)
		if err != nil {
			r.log.Warn("bridge release failed; it is tried again on the next pass", "lock", common.Hash(id), "from", l.origin, "to", l.dest, "err", err)
			continue
		}
		delete(r.retry, id)
		released++
	}
	return released, firstErr
}

// read queues the locks a chain's bridge announced since the last pass.
func (r *Relayer) read(ctx context.Context, chainID int64, n *Node) error {
	bridge, ok := n.Contracts()[contracts.Bridge]
	if !ok {
		return nil
	}
	head, err := n.Client().BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("chain %d: %w", chainID, err)
	}
	from := r.cursor[chainID]
	if from > head {
		return nil
	}
	ev := contracts.MustLoad(contracts.SigilBridge).ABI.Events["Locked"]
	logs, err := n.Client().FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(head),
		Addresses: []common.Address{bridge}, Topics: [][]common.Hash{{ev.ID}}})
	if err != nil {
		return fmt.Errorf("chain %d: read Locked events: %w", chainID, err)
	}
	for _, l := range logs {
		lk, err := decodeLocked(chainID, l)
		if err != nil {
			r.log.Warn("bridge relayer skips an event it cannot read", "chain", chainID, "tx", l.TxHash, "err", err)
			continue
		}
		r.retry[common.Hash(lk.lock.Id)] = lk
	}
	r.cursor[chainID] = head + 1
	return nil
}

func decodeLocked(chainID int64, l types.Log) (locked, error) {
	ev := contracts.MustLoad(contracts.SigilBridge).ABI.Events["Locked"]
	if len(l.Topics) != 4 {
		return locked{}, fmt.Errorf("Locked has %d topics", len(l.Topics))
	}
	values, err := ev.Inputs.NonIndexed().Unpack(l.Data)
	if err != nil {
		return locked{}, err
	}
	amount, _ := values[1].(*big.Int)
	dest, _ := values[2].(*big.Int)
	destToken, _ := values[3].(common.Address)
	recipient, _ := values[4].(common.Address)
	destPath, _ := values[5].([]byte)
	destMinOut, _ := values[6].(*big.Int)
	if amount == nil || dest == nil || destMinOut == nil {
		return locked{}, fmt.Errorf("Locked carries no amounts")
	}
	return locked{origin: chainID, dest: dest.Int64(), lock: bridgeLock{Id: l.Topics[1], Ref: l.Topics[2], OriginChainId: big.NewInt(chainID),
		Token: destToken, Amount: amount, Recipient: recipient, DestPath: destPath, DestMinOut: destMinOut}}, nil
}

// release releases a lock on its destination chain, unless it was released already.
func (r *Relayer) release(ctx context.Context, l locked) error {
	n, ok := r.nodes[l.dest]
	if !ok {
		return fmt.Errorf("no dev chain %d to release on", l.dest)
	}
	bridge := n.Contracts()[contracts.Bridge]
	a := contracts.MustLoad(contracts.SigilBridge)
	done, err := a.Call(ctx, n.Client(), bridge, "released", l.lock.Id)
	if err != nil {
		return err
	}
	if already, _ := done[0].(bool); already {
		return nil
	}
	data, err := a.Pack("release", l.lock)
	if err != nil {
		return err
	}
	if _, err := n.dev.Transact(ctx, &bridge, nil, data); err != nil {
		return err
	}
	r.log.Info("bridge lock released", "lock", common.Hash(l.lock.Id), "from", l.origin, "to", l.dest, "recipient", l.lock.Recipient)
	return nil
}
