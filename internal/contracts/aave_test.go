package contracts_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
)

// Aave v3's own bytecode, deployed and listed as Aave's scripts do: the stablecoins earn from the first block (the
// deployer borrows against WETH), a supplier's aToken grows with time by Aave's own index, and withdraw pays it out.
func TestAaveV3Market(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	usdc := c.addr(contracts.USDC)
	values, err := contracts.MustLoad(contracts.AavePool).Call(t.Context(), c.client, c.addr(contracts.AavePoolName), "getReserveData", usdc)
	if err != nil {
		t.Fatal(err)
	}
	reserve, err := abis.AsReserveData(values[0])
	if err != nil {
		t.Fatal(err)
	}
	if reserve.ATokenAddress != c.addr(contracts.AaveAUSDC) {
		t.Fatalf("USDC's aToken %s, fixture %s", reserve.ATokenAddress, c.addr(contracts.AaveAUSDC))
	}
	// 80% utilisation on a 6.5% slope to 90%, less a 10% reserve factor: about 4.1% a year.
	rate, _ := new(big.Float).Quo(new(big.Float).SetInt(reserve.CurrentLiquidityRate), big.NewFloat(1e27)).Float64()
	if rate < 0.035 || rate > 0.05 {
		t.Fatalf("USDC supply rate %.4f, want about 4%%", rate)
	}
	if got := c.call(contracts.AaveAUSDC, "symbol"); got != "aSigUSDC" {
		t.Fatalf("aToken symbol %v", got)
	}

	alice, pool := c.alice.addr, c.addr(contracts.AavePoolName)
	supply := tokens(1_000, 6)
	c.mintTo(contracts.USDC, alice, supply)
	c.alice.send(contracts.USDC, "approve", pool, supply)
	c.alice.send(contracts.AavePoolName, "supply", usdc, supply, alice, uint16(0))
	wantEq(t, "aUSDC after supply", c.balance(contracts.AaveAUSDC, alice), supply)

	c.advance(365 * 24 * time.Hour)
	grown := c.balance(contracts.AaveAUSDC, alice)
	if earned := sub(grown, supply); earned.Cmp(tokens(35, 6)) < 0 || earned.Cmp(tokens(50, 6)) > 0 {
		t.Fatalf("a year at about 4%% earned %s USDC units on 1,000", earned)
	}
	c.alice.send(contracts.AavePoolName, "withdraw", usdc, maxUint256, alice)
	if got := c.balance(contracts.USDC, alice); got.Cmp(grown) < 0 { // the withdrawal's block is a second later
		t.Fatalf("withdrew %s USDC units, the aToken held %s", got, grown)
	}
	wantEq(t, "aUSDC left", c.balance(contracts.AaveAUSDC, alice), new(big.Int))
}
