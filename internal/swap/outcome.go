package swap

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/abis"
)

// Executed is what an included swap transaction did, from its receipt: what the router's swap gave (for a cross-chain
// swap, what it locked in the bridge) and, across chains, the lock the relayer releases.
type Executed struct {
	AmountOut *big.Int
	LockID    common.Hash // zero on one chain
}

// Executed reads an included swap transaction's receipt for the router's Swapped event of ref (and the bridge's Locked
// event of ref, across chains).
func (v *Venues) Executed(ctx context.Context, caip2 string, tx common.Hash, ref [32]byte, bridged bool) (*Executed, error) {
	x, err := v.get(caip2)
	if err != nil {
		return nil, err
	}
	var receipt *types.Receipt
	if err := x.rpc.CallContext(ctx, &receipt, "eth_getTransactionReceipt", tx); err != nil {
		return nil, &UpstreamError{CAIP2: caip2, Err: err}
	}
	if receipt == nil {
		return nil, fmt.Errorf("swap: %s has no receipt of %s", caip2, tx)
	}
	swapped, locked := abis.SwapFeeRouter.Events["Swapped"], abis.SigilBridge.Events["Locked"]
	out := &Executed{}
	for _, l := range receipt.Logs {
		switch {
		case l.Address == x.Router && len(l.Topics) == 4 && l.Topics[0] == swapped.ID && l.Topics[1] == ref:
			values, err := swapped.Inputs.NonIndexed().Unpack(l.Data)
			if err != nil {
				return nil, fmt.Errorf("swap: decode Swapped: %w", err)
			}
			out.AmountOut, _ = values[4].(*big.Int)
		case bridged && l.Address == x.Bridge && len(l.Topics) == 4 && l.Topics[0] == locked.ID && l.Topics[2] == ref:
			out.LockID = l.Topics[1]
		}
	}
	if out.AmountOut == nil || bridged && out.LockID == (common.Hash{}) {
		return nil, fmt.Errorf("swap: transaction %s on %s has no swap of %s", tx, caip2, hexutil.Encode(ref[:]))
	}
	return out, nil
}

// Release is a lock released on its destination chain: the transaction, and what the recipient received — the swap's
// output, or the bridged token itself when the swap would have given less than its minimum (Refunded).
type Release struct {
	TxHash    common.Hash
	Token     common.Address
	AmountOut *big.Int
	Refunded  bool
}

// Released looks for the release of a lock on the destination chain, from a block on; nil when it is not released yet.
func (v *Venues) Released(ctx context.Context, caip2 string, lockID common.Hash, fromBlock uint64) (*Release, error) {
	x, err := v.get(caip2)
	if err != nil {
		return nil, err
	}
	ev := abis.SigilBridge.Events["Released"]
	query := map[string]any{"address": x.Bridge, "topics": [][]common.Hash{{ev.ID}, {lockID}},
		"fromBlock": hexutil.Uint64(fromBlock), "toBlock": "latest"}
	var logs []types.Log
	if err := x.rpc.CallContext(ctx, &logs, "eth_getLogs", query); err != nil {
		return nil, &UpstreamError{CAIP2: caip2, Err: err}
	}
	for _, l := range logs {
		if l.Removed {
			continue
		}
		values, err := ev.Inputs.NonIndexed().Unpack(l.Data)
		if err != nil {
			return nil, fmt.Errorf("swap: decode Released: %w", err)
		}
		r := &Release{TxHash: l.TxHash}
		r.Token, _ = values[0].(common.Address)
		r.AmountOut, _ = values[1].(*big.Int)
		r.Refunded, _ = values[2].(bool)
		return r, nil
	}
	return nil, nil
}
