package yield

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// verify checks the catalogue against each network in one batch: the chain id, token decimals, that a vault's asset
// is the yield's token, that a lending yield's output token is the pool's aToken of its token, and that the fees the
// catalogue advertises are the ones the contracts take.
func (s *Service) verify(ctx context.Context) error {
	var errs []error
	for id, c := range s.clients {
		b := c.newBatch()
		var chainID hexutil.Big
		b.add(&chainID, "eth_chainId")
		var checks []func() error
		for _, e := range s.yields {
			if e.network.ID == id {
				checks = append(checks, e.queueChecks(b)...)
			}
		}
		if err := b.run(ctx); err != nil {
			errs = append(errs, fmt.Errorf("network %s: %w", id, err))
			continue
		}
		if chainID.ToInt().Int64() != c.network.ChainID {
			errs = append(errs, fmt.Errorf("network %s: the node at %s is chain %s, the catalogue says %d",
				id, c.network.RPCURL, chainID.ToInt(), c.network.ChainID))
			continue
		}
		for _, check := range checks {
			if err := check(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("yield: the catalogue does not match the chain: %w", err)
	}
	return nil
}

// queueChecks queues the reads that check one yield and returns the checks to run on their results.
func (e *yieldEntry) queueChecks(b *batch) []func() error {
	y := e.cfg
	var checks []func() error
	equal := func(what string, got *big.Int, want int64) {
		checks = append(checks, func() error {
			if got.Cmp(big.NewInt(want)) != 0 {
				return fmt.Errorf("%s: %s is %s on chain, the catalogue says %d", y.ID, what, got, want)
			}
			return nil
		})
	}
	sameAddress := func(what string, got *[]any, want common.Address) {
		checks = append(checks, func() error {
			if len(*got) == 0 {
				return nil
			}
			if a, _ := (*got)[0].(common.Address); a != want {
				return fmt.Errorf("%s: %s is %s on chain, the catalogue says %s", y.ID, what, a.Hex(), want.Hex())
			}
			return nil
		})
	}
	if e.token != (common.Address{}) {
		equal("token decimals", b.uint(e.token, &erc20ABI, "decimals"), int64(y.Token.Decimals))
	}
	if y.OutputToken != nil {
		equal("outputToken decimals", b.uint(e.output, &erc20ABI, "decimals"), int64(y.OutputToken.Decimals))
	}
	switch y.Kind {
	case KindERC4626, KindAllocatorVault:
		sameAddress("the vault's asset", b.read(e.vault, &erc4626ABI, "asset"), e.token)
	case KindLending:
		reserve := readReserveData(b, e.pool, e.token)
		checks = append(checks, func() error {
			if got := reserve.ATokenAddress; got != e.output {
				return fmt.Errorf("%s: the pool's aToken of %s is %s on chain (zero: not a reserve), the catalogue says %s",
					y.ID, y.Token.Symbol, got.Hex(), e.output.Hex())
			}
			return nil
		})
	case KindNativeStaking:
		equal("the unstaking cooldown (seconds)", b.uint(e.staking, &nativeStakingABI, "cooldown"), y.CooldownSeconds)
	case KindProviderStaking:
		equal("the unstaking cooldown (seconds)", b.uint(e.staking, &providerStakingABI, "cooldown"), y.CooldownSeconds)
		sameAddress("the staking token", b.read(e.staking, &providerStakingABI, "stakingToken"), e.output)
	}
	if y.Kind == KindAllocatorVault {
		equal("the deposit fee (bps)", b.uint(e.vault, &allocatorABI, "depositFeeBps"), y.Fees.DepositBps)
		equal("the performance fee (bps)", b.uint(e.vault, &allocatorABI, "performanceFeeBps"), y.Fees.PerformanceBps)
		equal("the management fee (bps)", b.uint(e.vault, &allocatorABI, "managementFeeBps"), y.Fees.ManagementBps)
	}
	if y.feeWrapped() {
		equal("the fee wrapper's deposit fee (bps)", b.uint(e.wrapper, &feeWrapperABI, "feeBps"), y.Fees.DepositBps)
	}
	return checks
}
