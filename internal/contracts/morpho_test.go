package contracts_test

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/contracts"
)

// Morpho Blue's own code under the ERC-4626 vault: a deposit lands in the market as the vault's supply, the share
// price grows with block time at the rate the borrower pays, and a redemption withdraws from the market.
func TestMorphoMarketVault(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, vault := c.alice.addr, c.addr(contracts.MorphoVaultUSDC)
	amount := tokens(1_000, 6)
	c.mintTo(contracts.USDC, alice, amount)
	c.alice.send(contracts.USDC, "approve", vault, amount)
	c.alice.send(contracts.MorphoVaultUSDC, "deposit", amount, alice)
	shares := c.balance(contracts.MorphoVaultUSDC, alice)
	if c.balance(contracts.USDC, vault).Sign() != 0 {
		t.Fatal("the vault kept USDC instead of supplying it to Morpho")
	}
	before := c.uint(contracts.MorphoVaultUSDC, "convertToAssets", shares)
	accrual, _ := new(big.Rat).SetFrac(c.uint(contracts.MorphoVaultUSDC, "accrualRate"), big.NewInt(1e18)).Float64()

	c.advance(365 * 24 * time.Hour)
	after := c.uint(contracts.MorphoVaultUSDC, "convertToAssets", shares)
	// 20% utilisation at IrmMock's 20% borrow rate, compounded per second by Morpho: about 4.4% a year for suppliers.
	earned := sub(after, before)
	if earned.Cmp(tokens(38, 6)) < 0 || earned.Cmp(tokens(50, 6)) > 0 {
		t.Fatalf("a year earned %s USDC units on 1,000", earned)
	}
	// The accrual rate the vault published at the start, compounded, is what the year paid, but for the utilisation's
	// drift as borrowers' interest outgrows suppliers'.
	growth, _ := new(big.Rat).SetFrac(earned, before).Float64()
	if predicted := math.Expm1(accrual); accrual <= 0 || math.Abs(predicted-growth) > 0.1*growth {
		t.Fatalf("accrualRate %.6f predicts %.6f a year; the year paid %.6f", accrual, predicted, growth)
	}
	c.alice.send(contracts.MorphoVaultUSDC, "redeem", shares, alice, alice)
	if got := c.balance(contracts.USDC, alice); got.Cmp(after) < 0 || got.Cmp(new(big.Int).Add(after, tokens(1, 6))) > 0 {
		t.Fatalf("redeemed %s, the shares were worth %s", got, after)
	}
}
