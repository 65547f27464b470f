package yield

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// Staking of the network's native token, with value. Both kinds stake directly (stake()) or, when the yield's fee
// configuration takes a deposit fee, through the fee wrapper (stake(address,address)), which pays the fee and stakes
// the rest for the staker. Exit requests an unstake; once the cooldown has passed the balance is withdrawable and a
// manage WITHDRAW action (passthrough from the balance's pendingActions) pays it out.
//
// nativeStakingBuilder: the stake is an amount of ETH; rewards accrue separately and are claimed with a manage
// CLAIM_REWARDS action. providerStakingBuilder: the stake is a liquid staking token whose value in ETH rises with
// the rewards, after the provider's validator fee, part of which goes to the integrator (validator rebates).
type (
	nativeStakingBuilder   struct{}
	providerStakingBuilder struct{}
)

// stakeGas is the default gas of a staking step; staking steps never depend on an earlier one, so it is only a
// fallback.
const stakeGas = 800_000

func stakeStep(r *request) step {
	y := r.y
	s := step{
		Type:       "STAKE",
		Title:      fmt.Sprintf("Stake %s with %s", y.cfg.Token.Symbol, y.cfg.Name),
		To:         y.staking,
		Value:      r.amount,
		DefaultGas: stakeGas,
	}
	if y.cfg.feeWrapped() {
		s.Title += fmt.Sprintf(" (deposit fee %s%%)", bpsPercent(y.cfg.Fees.DepositBps))
		s.To = y.wrapper
		s.Data = mustPack(&feeWrapperABI, "stake", y.staking, r.from)
		return s
	}
	if y.cfg.Kind == KindNativeStaking {
		s.Data = mustPack(&nativeStakingABI, "stake")
	} else {
		s.Data = mustPack(&providerStakingABI, "stake")
	}
	return s
}

func stakingEnter(r *request, b *batch) plan {
	balance := b.balance(r.from)
	return func() (built, error) {
		if err := checkCovered(r, balance, "the wallet's balance"); err != nil {
			return built{}, err
		}
		return built{steps: []step{stakeStep(r)}, amount: r.amount}, nil
	}
}

// unstakeRequest reads the pending unstake (amount, unlock time) of an address.
type unstakeRequest struct {
	values *[]any
}

func readPendingUnstake(r *request, b *batch, a *abi.ABI) unstakeRequest {
	return unstakeRequest{values: b.read(r.y.staking, a, "pendingUnstakeOf", r.from)}
}

func (u unstakeRequest) get() (amount, unlock *big.Int) {
	if len(*u.values) < 2 {
		return new(big.Int), new(big.Int)
	}
	amount, _ = (*u.values)[0].(*big.Int)
	unlock, _ = (*u.values)[1].(*big.Int)
	if amount == nil || unlock == nil {
		return new(big.Int), new(big.Int)
	}
	return amount, unlock
}

// unstakePositions is the exiting balance while the cooldown runs and the withdrawable one after it.
func unstakePositions(r *request, u unstakeRequest) []position {
	amount, unlock := u.get()
	if amount.Sign() == 0 {
		return nil
	}
	if unlock.Uint64() > uint64(r.head.Time) {
		return []position{{Type: "exiting", Amount: amount, Token: r.y.cfg.Token, Date: unlock.Int64()}}
	}
	return []position{{Type: "withdrawable", Amount: amount, Token: r.y.cfg.Token, Date: unlock.Int64(),
		Pending: []pendingAction{pendingOf(r.y, r.from, "WITHDRAW", amount)}}}
}

// manageWithdraw builds the withdrawal of an unstake whose cooldown has passed.
func manageWithdraw(r *request, u unstakeRequest, a *abi.ABI) (built, error) {
	amount, unlock := u.get()
	if amount.Sign() == 0 {
		return built{}, fieldError("action", "WITHDRAW: %s has nothing unstaked to withdraw for %s", r.y.cfg.ID, r.from.Hex())
	}
	if unlock.Uint64() > uint64(r.head.Time) {
		return built{}, fieldError("action", "WITHDRAW: the unstaking cooldown ends at %s (in %s)",
			time.Unix(unlock.Int64(), 0).UTC().Format(time.RFC3339), time.Duration(unlock.Uint64()-uint64(r.head.Time))*time.Second)
	}
	return built{amount: amount, steps: []step{{
		Type:       "WITHDRAW",
		Title:      fmt.Sprintf("Withdraw unstaked %s from %s", r.y.cfg.Token.Symbol, r.y.cfg.Name),
		To:         r.y.staking,
		Data:       mustPack(a, "withdraw"),
		DefaultGas: stakeGas,
	}}}, nil
}

func unknownManageAction(r *request, actions string) error {
	return fieldError("action", "%q is not a manage action of %s (%s)", r.manageAction, r.y.cfg.ID, actions)
}

// ---- native staking ----

func (nativeStakingBuilder) enter(r *request, b *batch) plan { return stakingEnter(r, b) }

func (nativeStakingBuilder) exit(r *request, b *batch) plan {
	y := r.y
	staked := b.uint(y.staking, &nativeStakingABI, "stakedOf", r.from)
	return func() (built, error) {
		amount := r.amount
		if r.useMax {
			if staked.Sign() == 0 {
				return built{}, fieldError("arguments.useMaxAmount", "the wallet has nothing staked in %s", y.cfg.ID)
			}
			amount = staked
		} else if err := checkCovered(r, staked, "the stake"); err != nil {
			return built{}, err
		}
		return built{amount: amount, steps: []step{{
			Type:       "UNSTAKE",
			Title:      fmt.Sprintf("Request to unstake %s from %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.staking,
			Data:       mustPack(&nativeStakingABI, "requestUnstake", amount),
			DefaultGas: stakeGas,
		}}}, nil
	}
}

func (nativeStakingBuilder) manage(r *request, b *batch) plan {
	y := r.y
	pending := readPendingUnstake(r, b, &nativeStakingABI)
	rewards := b.uint(y.staking, &nativeStakingABI, "claimableRewards", r.from)
	return func() (built, error) {
		switch r.manageAction {
		case "WITHDRAW":
			return manageWithdraw(r, pending, &nativeStakingABI)
		case "CLAIM_REWARDS":
			if rewards.Sign() == 0 {
				return built{}, fieldError("action", "CLAIM_REWARDS: %s has no rewards to claim for %s", y.cfg.ID, r.from.Hex())
			}
			return built{amount: rewards, steps: []step{{
				Type:       "CLAIM_REWARDS",
				Title:      fmt.Sprintf("Claim %s rewards from %s", y.cfg.Token.Symbol, y.cfg.Name),
				To:         y.staking,
				Data:       mustPack(&nativeStakingABI, "claimRewards"),
				DefaultGas: stakeGas,
			}}}, nil
		}
		return built{}, unknownManageAction(r, "WITHDRAW, CLAIM_REWARDS")
	}
}

func (nativeStakingBuilder) balances(r *request, b *batch) balancePlan {
	y := r.y
	staked := b.uint(y.staking, &nativeStakingABI, "stakedOf", r.from)
	pending := readPendingUnstake(r, b, &nativeStakingABI)
	rewards := b.uint(y.staking, &nativeStakingABI, "claimableRewards", r.from)
	return settled(func() []position {
		var out []position
		if staked.Sign() > 0 {
			out = append(out, position{Type: "active", Amount: staked, Token: y.cfg.Token, IsEarning: true})
		}
		out = append(out, unstakePositions(r, pending)...)
		if rewards.Sign() > 0 {
			out = append(out, position{Type: "claimable", Amount: rewards, Token: y.cfg.Token,
				Pending: []pendingAction{pendingOf(y, r.from, "CLAIM_REWARDS", rewards)}})
		}
		return out
	})
}

// sample reads the rewards paid per staked wei so far (scaled by 10^18): 10^27 wei staked since the first
// distribution are worth 10^27 + rewardPerStake × 10^9; and the contract's current reward rate (rewardRateBps, an
// annual rate in basis points). Rewards do not compound, so the rate is an APR.
func (nativeStakingBuilder) sample(y *yieldEntry, b *batch) samplePlan {
	perStake := b.uint(y.staking, &nativeStakingABI, "rewardPerStake")
	rateBps := b.uint(y.staking, &nativeStakingABI, "rewardRateBps")
	return func() sampled {
		assets := new(big.Int).Mul(perStake, big.NewInt(1_000_000_000))
		return sampled{shares: ray, assets: assets.Add(assets, ray), apr: new(big.Rat).SetFrac(rateBps, big.NewInt(bpsPerOne))}
	}
}

// ---- provider staking (liquid staking token) ----

func (providerStakingBuilder) enter(r *request, b *batch) plan { return stakingEnter(r, b) }

// exit converts the amount of ETH to the liquid staking token at the pool's rate, rounding up so that the unstake
// is worth at least the amount, and never more than is held.
func (providerStakingBuilder) exit(r *request, b *batch) plan {
	y := r.y
	held := b.uint(y.output, &erc20ABI, "balanceOf", r.from)
	supply := b.uint(y.output, &erc20ABI, "totalSupply")
	pooled := b.uint(y.staking, &providerStakingABI, "totalPooledEther")
	return func() (built, error) {
		position := toEther(held, pooled, supply)
		amount, shares := r.amount, held
		if r.useMax {
			if held.Sign() == 0 {
				return built{}, fieldError("arguments.useMaxAmount", "the wallet holds none of %s's token", y.cfg.ID)
			}
			amount = position
		} else {
			if err := checkCovered(r, position, "the stake"); err != nil {
				return built{}, err
			}
			shares = ceilDiv(new(big.Int).Mul(r.amount, plusOne(supply)), plusOne(pooled))
			if shares.Cmp(held) > 0 {
				shares = held
			}
		}
		return built{amount: amount, steps: []step{{
			Type:       "UNSTAKE",
			Title:      fmt.Sprintf("Request to unstake %s from %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.staking,
			Data:       mustPack(&providerStakingABI, "requestUnstake", shares),
			DefaultGas: stakeGas,
		}}}, nil
	}
}

func (providerStakingBuilder) manage(r *request, b *batch) plan {
	pending := readPendingUnstake(r, b, &providerStakingABI)
	return func() (built, error) {
		if r.manageAction == "WITHDRAW" {
			return manageWithdraw(r, pending, &providerStakingABI)
		}
		return built{}, unknownManageAction(r, "WITHDRAW")
	}
}

func (providerStakingBuilder) balances(r *request, b *batch) balancePlan {
	y := r.y
	held := b.uint(y.output, &erc20ABI, "balanceOf", r.from)
	supply := b.uint(y.output, &erc20ABI, "totalSupply")
	pooled := b.uint(y.staking, &providerStakingABI, "totalPooledEther")
	pending := readPendingUnstake(r, b, &providerStakingABI)
	return settled(func() []position {
		var out []position
		if held.Sign() > 0 {
			out = append(out, position{Type: "active", Amount: toEther(held, pooled, supply), Token: y.cfg.Token,
				IsEarning: true, Shares: held})
		}
		return append(out, unstakePositions(r, pending)...)
	})
}

// sample reads the liquid staking token's value (convertToEther of 10^27 shares) and the contract's current reward
// rate: rewardRateBps is the pooled ether's annual rate before the provider's validator fee, so the stakers earn
// rewardRateBps × (1 − validatorFeeBps / 10000). The integrator's revenue share comes out of that fee, not out of
// the stakers' part.
func (providerStakingBuilder) sample(y *yieldEntry, b *batch) samplePlan {
	assets := b.uint(y.staking, &providerStakingABI, "convertToEther", ray)
	rateBps := b.uint(y.staking, &providerStakingABI, "rewardRateBps")
	feeBps := b.uint(y.staking, &providerStakingABI, "validatorFeeBps")
	return func() sampled {
		net := new(big.Int).Mul(rateBps, new(big.Int).Sub(big.NewInt(bpsPerOne), feeBps))
		return sampled{shares: ray, assets: assets, apr: new(big.Rat).SetFrac(net, big.NewInt(bpsPerOne*bpsPerOne))}
	}
}

// bpsPerOne is one (100%) in basis points.
const bpsPerOne = 10_000

// toEther is the staking contract's convertToEther, computed from the same reads: shares × (pooled + 1) / (supply + 1).
func toEther(shares, pooled, supply *big.Int) *big.Int {
	v := new(big.Int).Mul(shares, plusOne(pooled))
	return v.Quo(v, plusOne(supply))
}

func plusOne(v *big.Int) *big.Int { return new(big.Int).Add(v, big.NewInt(1)) }

func ceilDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
