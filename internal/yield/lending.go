package yield

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/sigil/sigil/internal/abis"
)

// lendingBuilder builds the transactions of an Aave v3 market: approve the pool on the token when the allowance is
// short, then supply(address,uint256,address,uint16); exit with withdraw(address,uint256,address), of everything
// (type(uint256).max) with useMaxAmount. The position is the aToken balance, which grows with the reserve's
// normalized income (the index sampled for the share price); the reward rate is the reserve's currentLiquidityRate.
type lendingBuilder struct{}

// lendingSupplyGas is the default gas of a supply after its approval (see vaultDepositGas).
const lendingSupplyGas = 1_200_000

func (lendingBuilder) enter(r *request, b *batch) plan {
	y := r.y
	balance := b.uint(y.token, &erc20ABI, "balanceOf", r.from)
	allowance := b.uint(y.token, &erc20ABI, "allowance", r.from, y.pool)
	return func() (built, error) {
		if err := checkCovered(r, balance, "the wallet's balance"); err != nil {
			return built{}, err
		}
		steps := approvalIfShort(r, y.token, y.pool, allowance)
		supply := step{
			Type:       "SUPPLY",
			Title:      fmt.Sprintf("Supply %s to %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.pool,
			Data:       mustPack(&aavePoolABI, "supply", y.token, r.amount, r.receiver, uint16(0)),
			Dependent:  len(steps) > 0,
			DefaultGas: lendingSupplyGas,
		}
		return built{steps: append(steps, supply), amount: r.amount}, nil
	}
}

func (lendingBuilder) exit(r *request, b *batch) plan {
	y := r.y
	position := b.uint(y.output, &erc20ABI, "balanceOf", r.from)
	return func() (built, error) {
		amount, request := r.amount, r.amount
		if r.useMax {
			if position.Sign() == 0 {
				return built{}, fieldError("arguments.useMaxAmount", "the wallet has nothing supplied to %s", y.cfg.ID)
			}
			// The pool withdraws the whole balance, including interest accrued until the block it is mined in.
			amount, request = position, math.MaxBig256
		} else if err := checkCovered(r, position, "the position"); err != nil {
			return built{}, err
		}
		return built{amount: amount, steps: []step{{
			Type:       "WITHDRAW",
			Title:      fmt.Sprintf("Withdraw %s from %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.pool,
			Data:       mustPack(&aavePoolABI, "withdraw", y.token, request, r.receiver),
			DefaultGas: lendingSupplyGas,
		}}}, nil
	}
}

func (lendingBuilder) manage(r *request, _ *batch) plan { return noManage(r) }

func (lendingBuilder) balances(r *request, b *batch) balancePlan {
	y := r.y
	supplied := b.uint(y.output, &erc20ABI, "balanceOf", r.from)
	return settled(func() []position {
		if supplied.Sign() == 0 {
			return nil
		}
		return []position{{Type: "active", Amount: supplied, Token: y.cfg.Token, IsEarning: true}}
	})
}

// sample reads the reserve's normalized income, a ray: 10^27 scaled units are worth that many base units (the share
// price), and its current liquidity rate from getReserveData: Aave's annual supply rate in ray, from which the
// reward rate is computed.
func (lendingBuilder) sample(y *yieldEntry, b *batch) samplePlan {
	index := b.uint(y.pool, &aavePoolABI, "getReserveNormalizedIncome", y.token)
	reserve := readReserveData(b, y.pool, y.token)
	return func() sampled {
		apr := new(big.Rat)
		if reserve.CurrentLiquidityRate != nil {
			apr.SetFrac(reserve.CurrentLiquidityRate, ray)
		}
		return sampled{shares: ray, assets: index, apr: apr}
	}
}

// readReserveData queues the Aave v3 Pool's getReserveData(asset), decoded once the batch has run (Aave's
// ReserveDataLegacy; the dev chain's LendingPool returns the same layout).
func readReserveData(b *batch, pool, asset common.Address) *abis.ReserveData {
	return readReserveDataWith(b, &aavePoolABI, pool, asset)
}
