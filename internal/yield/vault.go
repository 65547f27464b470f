package yield

import (
	"fmt"
	"math/big"
)

// vaultBuilder builds the transactions of an ERC-4626 vault, of an allocator vault (an ERC-4626 vault that takes its
// own fees) and, when the yield's fee configuration takes a deposit fee, the fee-wrapped deposit into a vault.
//
// Enter: approve the spender on the token when the allowance is short, then deposit(uint256,address) on the vault
// (0x6e553f65), or deposit(address,uint256,address) on the fee wrapper, which pays the fee and deposits the rest.
// Exit: redeem(uint256,address,address) (0xba087652) of the shares previewWithdraw names, or of every share.
type vaultBuilder struct{}

// Default gas of a vault deposit that follows its approval, for nodes that cannot simulate sequences. An allocator
// vault also accrues fees and invests in its underlying vault. They are generous (about three times what the dev
// chain's vaults use): an unused gas limit costs nothing, an exhausted one reverts the deposit.
const (
	vaultDepositGas     = 1_200_000
	allocatorDepositGas = 3_000_000
	wrappedDepositGas   = 1_800_000
)

func (vaultBuilder) enter(r *request, b *batch) plan {
	y := r.y
	spender := y.vault
	if y.cfg.feeWrapped() {
		spender = y.wrapper
	}
	balance := b.uint(y.token, &erc20ABI, "balanceOf", r.from)
	allowance := b.uint(y.token, &erc20ABI, "allowance", r.from, spender)
	maxDeposit := b.uint(y.vault, &erc4626ABI, "maxDeposit", r.receiver)
	return func() (built, error) {
		if err := checkCovered(r, balance, "the wallet's balance"); err != nil {
			return built{}, err
		}
		if err := checkCovered(r, maxDeposit, "what the vault accepts now"); err != nil {
			return built{}, err
		}
		steps := approvalIfShort(r, y.token, spender, allowance)
		deposit := step{
			Type:       "DEPOSIT",
			Title:      fmt.Sprintf("Deposit %s into %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.vault,
			Data:       mustPack(&erc4626ABI, "deposit", r.amount, r.receiver),
			Dependent:  len(steps) > 0,
			DefaultGas: vaultDepositGas,
		}
		if y.cfg.Kind == KindAllocatorVault {
			deposit.DefaultGas = allocatorDepositGas
		}
		if y.cfg.feeWrapped() {
			deposit.Title += fmt.Sprintf(" (deposit fee %s%%)", bpsPercent(y.cfg.Fees.DepositBps))
			deposit.To = y.wrapper
			deposit.Data = mustPack(&feeWrapperABI, "deposit", y.vault, r.amount, r.receiver)
			deposit.DefaultGas = wrappedDepositGas
		}
		return built{steps: append(steps, deposit), amount: r.amount}, nil
	}
}

func (vaultBuilder) exit(r *request, b *batch) plan {
	y := r.y
	shares := b.uint(y.vault, &erc4626ABI, "balanceOf", r.from)
	position := b.uint(y.vault, &erc4626ABI, "maxWithdraw", r.from)
	var needed *big.Int
	if !r.useMax {
		needed = b.uint(y.vault, &erc4626ABI, "previewWithdraw", r.amount)
	}
	return func() (built, error) {
		amount := r.amount
		redeem := needed
		if r.useMax {
			if shares.Sign() == 0 {
				return built{}, fieldError("arguments.useMaxAmount", "the wallet holds no shares of %s", y.cfg.ID)
			}
			amount, redeem = position, shares
		} else {
			if err := checkCovered(r, position, "the position"); err != nil {
				return built{}, err
			}
			// previewWithdraw rounds up; never ask for more shares than are held.
			if redeem.Cmp(shares) > 0 {
				redeem = shares
			}
		}
		return built{amount: amount, steps: []step{{
			Type:       "WITHDRAW",
			Title:      fmt.Sprintf("Withdraw %s from %s", y.cfg.Token.Symbol, y.cfg.Name),
			To:         y.vault,
			Data:       mustPack(&erc4626ABI, "redeem", redeem, r.receiver, r.from),
			DefaultGas: vaultDepositGas,
		}}}, nil
	}
}

func (vaultBuilder) manage(r *request, _ *batch) plan { return noManage(r) }

// balances: the active balance is the shares converted to assets, which needs the share balance first.
func (vaultBuilder) balances(r *request, b *batch) balancePlan {
	y := r.y
	shares := b.uint(y.vault, &erc4626ABI, "balanceOf", r.from)
	return func(next *batch) func() []position {
		if shares.Sign() == 0 {
			return func() []position { return nil }
		}
		assets := next.uint(y.vault, &erc4626ABI, "convertToAssets", shares)
		return func() []position {
			return []position{{Type: "active", Amount: assets, Token: y.cfg.Token, IsEarning: true, Shares: shares}}
		}
	}
}

func (vaultBuilder) sample(y *yieldEntry, b *batch) samplePlan {
	assets := b.uint(y.vault, &erc4626ABI, "convertToAssets", ray)
	accrual := b.optionalUint(y.vault, &erc4626ABI, "accrualRate")
	return func() sampled {
		s := sampled{shares: ray, assets: assets}
		if rate := accrual(); rate != nil {
			s.apr = new(big.Rat).SetFrac(rate, wad)
		}
		return s
	}
}

// bpsPercent writes basis points as a percentage with two decimals: 50 → "0.50".
func bpsPercent(bps int64) string { return fmt.Sprintf("%d.%02d", bps/100, bps%100) }
