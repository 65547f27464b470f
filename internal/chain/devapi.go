package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// evmAPI is the evm_ namespace scripts written for Hardhat and Anvil call to move the dev chain along:
// evm_mine seals a block, evm_increaseTime jumps the clock. Both seal a block at once (Anvil's
// evm_increaseTime only moves the next block's timestamp), so a script that mines after increasing
// time sees one block more than on Anvil; the timestamps agree.
type evmAPI struct{ n *Node }

// Mine seals a block one second after the latest and returns "0x0", as Anvil does.
func (a *evmAPI) Mine(ctx context.Context) (string, error) {
	if err := a.n.AdvanceTime(time.Second); err != nil {
		return "", err
	}
	return "0x0", nil
}

// IncreaseTime seals a block seconds later than the latest, pays the yield that time earned (as the protocols the
// fixtures stand for accrue with time, not on the simulator's wall-clock period) and returns seconds.
func (a *evmAPI) IncreaseTime(ctx context.Context, seconds uint64) (uint64, error) {
	if seconds == 0 || seconds > 10*365*24*3600 {
		return 0, errors.New("evm_increaseTime: seconds must be between 1 and ten years")
	}
	if err := a.n.AdvanceTime(time.Duration(seconds) * time.Second); err != nil {
		return 0, err
	}
	if a.n.readyFaucet() != nil { // set up: the simulator exists
		if _, err := a.n.simulator.Step(ctx); err != nil {
			return 0, err
		}
	}
	return seconds, nil
}

// Snapshot records the head block and returns its id ("0x1", "0x2", ...), as Anvil and Hardhat do. Snapshots live as
// long as the process.
func (a *evmAPI) Snapshot(ctx context.Context) (hexutil.Uint64, error) {
	return a.n.snapshot(ctx)
}

// Revert rewinds the chain to the head recorded by snapshot id and forgets that snapshot and every later one; it
// returns false for an unknown id, as Anvil and Hardhat do.
func (a *evmAPI) Revert(ctx context.Context, id hexutil.Uint64) (bool, error) {
	return a.n.revert(ctx, uint64(id))
}

// anvilAPI is the part of Anvil's anvil_ namespace the dev chain can honour.
type anvilAPI struct{ n *Node }

// SetBalance makes address hold wei. The dev chain is a real chain, whose state changes only by transactions, so it
// can raise a balance (a transfer from the dev account, mined at once) but not lower one; lowering is refused with an
// error rather than pretended.
func (a *anvilAPI) SetBalance(ctx context.Context, address common.Address, wei hexutil.Big) error {
	want := (*big.Int)(&wei)
	if address == a.n.DevAccount() {
		return errors.New("anvil_setBalance: the dev account funds every other balance; its own cannot be set")
	}
	have, err := a.n.client.BalanceAt(ctx, address, nil)
	if err != nil {
		return err
	}
	switch have.Cmp(want) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("anvil_setBalance: %s holds %s wei, more than %s; the dev chain can raise a balance but not lower it", address.Hex(), have, want)
	}
	_, err = a.n.dev.Transact(ctx, &address, new(big.Int).Sub(want, have), nil)
	return err
}
