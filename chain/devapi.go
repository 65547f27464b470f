package chain

import (
	"context"
	"errors"
	"time"
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

// IncreaseTime seals a block seconds later than the latest and returns seconds.
func (a *evmAPI) IncreaseTime(ctx context.Context, seconds uint64) (uint64, error) {
	if seconds == 0 || seconds > 10*365*24*3600 {
		return 0, errors.New("evm_increaseTime: seconds must be between 1 and ten years")
	}
	if err := a.n.AdvanceTime(time.Duration(seconds) * time.Second); err != nil {
		return 0, err
	}
	return seconds, nil
}
