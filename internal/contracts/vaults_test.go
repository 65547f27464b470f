package contracts_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

func TestDeployRegistersEveryFixture(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	if err := contracts.Verify(t.Context(), c.client, c.addresses); err != nil {
		t.Fatal(err)
	}
	seen := map[common.Address]string{}
	for _, f := range contracts.Fixtures {
		addr := c.addr(f.Name)
		if other, dup := seen[addr]; dup {
			t.Fatalf("%s and %s share address %s", f.Name, other, addr)
		}
		seen[addr] = f.Name
		if f.Decimals == 0 {
			continue
		}
		got, ok := c.call(f.Name, "decimals").(uint8)
		if !ok || got != f.Decimals {
			t.Errorf("%s decimals = %v, want %d", f.Name, c.call(f.Name, "decimals"), f.Decimals)
		}
	}
	for vault, asset := range map[string]string{
		contracts.VaultUSDC: contracts.USDC, contracts.VaultDAI: contracts.DAI, contracts.VaultWETH: contracts.WETH,
		contracts.OAV10USDC: contracts.USDC, contracts.OAV20USDC: contracts.USDC,
	} {
		if got := c.call(vault, "asset").(common.Address); got != c.addr(asset) {
			t.Errorf("%s asset = %s, want %s (%s)", vault, got, asset, c.addr(asset))
		}
	}
	wantEq(t, "oav10 performance fee", c.uint(contracts.OAV10USDC, "performanceFeeBps"), big.NewInt(1000))
	wantEq(t, "oav20 performance fee", c.uint(contracts.OAV20USDC, "performanceFeeBps"), big.NewInt(2000))
	if got := c.call(contracts.OAV10USDC, "feeRecipient").(common.Address); got != c.feeTo {
		t.Errorf("oav10 fee recipient = %s, want %s", got, c.feeTo)
	}
}

func TestVaultDepositMintWithdrawRedeem(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	for _, tc := range []struct {
		vault, asset string
		decimals     int
	}{
		{contracts.VaultUSDC, contracts.USDC, 6},
		{contracts.VaultDAI, contracts.DAI, 18},
		{contracts.VaultWETH, contracts.WETH, 18},
		{contracts.OAV10USDC, contracts.USDC, 6},
		{contracts.OAV20USDC, contracts.USDC, 6},
	} {
		t.Run(tc.vault, func(t *testing.T) {
			c := chain.with(t)
			alice := c.alice.addr
			vault := c.addr(tc.vault)
			c.fund(c.alice, tc.asset, tokens(1000, tc.decimals))
			c.alice.send(tc.asset, "approve", vault, maxUint256)

			assets0, shares0 := c.balance(tc.asset, alice), c.balance(tc.vault, alice)
			deposit := tokens(400, tc.decimals)
			wantShares := c.uint(tc.vault, "previewDeposit", deposit)
			c.alice.send(tc.vault, "deposit", deposit, alice)
			wantEq(t, "assets after deposit", c.balance(tc.asset, alice), sub(assets0, deposit))
			wantEq(t, "shares after deposit", c.balance(tc.vault, alice), add(shares0, wantShares))

			mintShares := new(big.Int).Div(wantShares, big.NewInt(2))
			wantAssets := c.uint(tc.vault, "previewMint", mintShares)
			assets1, shares1 := c.balance(tc.asset, alice), c.balance(tc.vault, alice)
			c.alice.send(tc.vault, "mint", mintShares, alice)
			wantEq(t, "assets after mint", c.balance(tc.asset, alice), sub(assets1, wantAssets))
			wantEq(t, "shares after mint", c.balance(tc.vault, alice), add(shares1, mintShares))

			withdraw := tokens(100, tc.decimals)
			burned := c.uint(tc.vault, "previewWithdraw", withdraw)
			assets2, shares2 := c.balance(tc.asset, alice), c.balance(tc.vault, alice)
			c.alice.send(tc.vault, "withdraw", withdraw, alice, alice)
			wantEq(t, "assets after withdraw", c.balance(tc.asset, alice), add(assets2, withdraw))
			wantEq(t, "shares after withdraw", c.balance(tc.vault, alice), sub(shares2, burned))

			redeem := new(big.Int).Div(c.balance(tc.vault, alice), big.NewInt(3))
			paid := c.uint(tc.vault, "previewRedeem", redeem)
			assets3 := c.balance(tc.asset, alice)
			c.alice.send(tc.vault, "redeem", redeem, alice, alice)
			wantEq(t, "assets after redeem", c.balance(tc.asset, alice), add(assets3, paid))

			// Withdraw everything withdrawable, then redeem whatever dust of shares is left.
			maxWithdraw := c.uint(tc.vault, "maxWithdraw", alice)
			assets4 := c.balance(tc.asset, alice)
			c.alice.send(tc.vault, "withdraw", maxWithdraw, alice, alice)
			wantEq(t, "assets after max withdraw", c.balance(tc.asset, alice), add(assets4, maxWithdraw))
			if rest := c.uint(tc.vault, "maxRedeem", alice); rest.Sign() > 0 {
				c.alice.send(tc.vault, "redeem", rest, alice, alice)
			}
			wantEq(t, "shares left", c.balance(tc.vault, alice), new(big.Int))
			wantEq(t, "max withdraw left", c.uint(tc.vault, "maxWithdraw", alice), new(big.Int))

			// Over the maximum is refused.
			_, err := c.alice.trySend(nil, tc.vault, "redeem", big.NewInt(1), alice, alice)
			wantRevert(t, err, artifactOf(t, tc.vault).Name, "ERC4626ExceededMaxRedeem")
		})
	}
}

func TestDepositWithoutApprovalReverts(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	for _, tc := range []struct{ vault, asset string }{
		{contracts.VaultUSDC, contracts.USDC},
		{contracts.VaultWETH, contracts.WETH},
		{contracts.OAV10USDC, contracts.USDC},
	} {
		t.Run(tc.vault, func(t *testing.T) {
			c := chain.with(t)
			c.fund(c.bob, tc.asset, big.NewInt(1_000_000))
			_, err := c.bob.trySend(nil, tc.vault, "deposit", big.NewInt(1_000_000), c.bob.addr)
			wantRevert(t, err, artifactOf(t, tc.asset).Name, "ERC20InsufficientAllowance")
		})
	}
}

func TestAllocatorVaultFeesOverAYear(t *testing.T) {
	t.Parallel()
	const year = 365 * 24 * time.Hour
	chain := newTestChain(t)
	for _, tc := range []struct {
		vault             string
		performanceFeeBps int64
		yield             int64 // USDC minted into the underlying vault during the year
	}{
		{contracts.OAV10USDC, 1000, 25_000},
		{contracts.OAV20USDC, 2000, 40_000},
	} {
		t.Run(tc.vault, func(t *testing.T) {
			c := chain.with(t)
			alice, oav := c.alice.addr, c.addr(tc.vault)
			bps := big.NewInt(10_000)
			depositFeeBps := c.uint(tc.vault, "depositFeeBps")
			managementFeeBps := c.uint(tc.vault, "managementFeeBps")
			wantEq(t, "performance fee bps", c.uint(tc.vault, "performanceFeeBps"), big.NewInt(tc.performanceFeeBps))

			// Deposit fee: taken in the asset at deposit, rounded up.
			deposit := tokens(1_000_000, 6)
			c.mintTo(contracts.USDC, alice, deposit)
			c.alice.send(contracts.USDC, "approve", oav, deposit)
			recipientUSDC := c.balance(contracts.USDC, c.feeTo)
			c.alice.send(tc.vault, "deposit", deposit, alice)
			depositFee := mulDivUp(deposit, depositFeeBps, bps)
			wantEq(t, "deposit fee paid", sub(c.balance(contracts.USDC, c.feeTo), recipientUSDC), depositFee)
			wantEq(t, "deposit fee value", depositFee, tokens(5_000, 6)) // 0.5% of 1,000,000 USDC

			// A year passes while the underlying vault earns.
			c.mintTo(contracts.USDC, c.addr(contracts.VaultUSDC), tokens(tc.yield, 6))
			c.advance(year)

			stamp := c.uint(tc.vault, "totalAssetsStamp")
			lastAccrual := c.uint(tc.vault, "lastAccrual")
			supply := c.uint(tc.vault, "totalSupply")
			assetsNow := c.uint(tc.vault, "totalAssets")
			recipientShares := c.balance(tc.vault, c.feeTo)
			receipt := c.owner.send(tc.vault, "harvest", big.NewInt(0))
			elapsed := new(big.Int).Sub(new(big.Int).SetUint64(c.blockTime(receipt)), lastAccrual)
			if elapsed.Cmp(big.NewInt(int64(year/time.Second))) < 0 {
				t.Fatalf("only %s s elapsed, want at least a year", elapsed)
			}

			performanceFee := mulDiv(sub(assetsNow, stamp), big.NewInt(tc.performanceFeeBps), bps)
			managementFee := mulDiv(stamp, new(big.Int).Mul(managementFeeBps, elapsed), big.NewInt(10_000*365*24*3600))
			fee := add(performanceFee, managementFee)
			wantFeeShares := mulDiv(fee, add(supply, big.NewInt(1)), add(sub(assetsNow, fee), big.NewInt(1)))
			gotFeeShares := sub(c.balance(tc.vault, c.feeTo), recipientShares)
			wantEq(t, "fee shares minted to the recipient", gotFeeShares, wantFeeShares)
			if performanceFee.Sign() == 0 || managementFee.Sign() == 0 {
				t.Fatalf("performance fee %s, management fee %s: both should be positive", performanceFee, managementFee)
			}
			// The shares are worth the fee (to within the vault's rounding).
			worth := c.uint(tc.vault, "convertToAssets", gotFeeShares)
			if diff := new(big.Int).Abs(sub(worth, fee)); diff.Cmp(big.NewInt(2)) > 0 {
				t.Fatalf("fee shares are worth %s, want about %s", worth, fee)
			}
			wantEq(t, "stamp after harvest", c.uint(tc.vault, "totalAssetsStamp"), c.uint(tc.vault, "totalAssets"))
		})
	}
}

func TestAllocatorVaultRefusesPerformanceFeeBelowTenPercent(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	fees := contracts.AllocatorFees{
		DepositFeeBps: big.NewInt(0), PerformanceFeeBps: big.NewInt(999),
		ManagementFeeBps: big.NewInt(0), Recipient: c.feeTo,
	}
	data, err := contracts.MustLoad(contracts.AllocatorVault).DeployData(
		c.addr(contracts.VaultUSDC), c.addr(contracts.Incentive), c.addr(contracts.Pool),
		"low fee", "LOW", fees, c.owner.addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.owner.Transact(t.Context(), nil, nil, data)
	wantRevert(t, err, contracts.AllocatorVault, "PerformanceFeeBelowMinimum")

	_, err = c.owner.trySend(nil, contracts.OAV10USDC, "setFees", fees)
	wantRevert(t, err, contracts.AllocatorVault, "PerformanceFeeBelowMinimum")

	fees.PerformanceFeeBps = big.NewInt(1000)
	c.owner.send(contracts.OAV10USDC, "setFees", fees)
	_, err = c.alice.trySend(nil, contracts.OAV10USDC, "setFees", fees)
	wantRevert(t, err, contracts.AllocatorVault, "OwnableUnauthorizedAccount")
}

func TestAllocatorVaultHarvestSellsIncentives(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, oav := c.alice.addr, c.addr(contracts.OAV10USDC)
	deposit := tokens(10_000, 6)
	c.mintTo(contracts.USDC, alice, deposit)
	c.alice.send(contracts.USDC, "approve", oav, deposit)
	c.alice.send(contracts.OAV10USDC, "deposit", deposit, alice)

	incentives := tokens(100, 18)
	c.mintTo(contracts.Incentive, oav, incentives)
	quote := c.uint(contracts.Pool, "getAmountOut", c.addr(contracts.Incentive), incentives)
	if quote.Sign() == 0 {
		t.Fatal("pool quotes nothing for the incentives")
	}
	before := c.uint(contracts.OAV10USDC, "totalAssets")
	_, err := c.owner.trySend(nil, contracts.OAV10USDC, "harvest", add(quote, big.NewInt(1)))
	wantRevert(t, err, contracts.ConstantProductPool, "InsufficientOutput")
	c.owner.send(contracts.OAV10USDC, "harvest", quote)

	wantEq(t, "incentives left", c.balance(contracts.Incentive, oav), new(big.Int))
	wantEq(t, "idle USDC left", c.balance(contracts.USDC, oav), new(big.Int))
	gain := sub(c.uint(contracts.OAV10USDC, "totalAssets"), before)
	// The proceeds are reinvested; the underlying vault may round one unit down.
	if diff := sub(quote, gain); diff.Sign() < 0 || diff.Cmp(big.NewInt(1)) > 0 {
		t.Fatalf("total assets rose by %s, want the %s the swap paid", gain, quote)
	}
	_, err = c.alice.trySend(nil, contracts.OAV10USDC, "harvest", big.NewInt(0))
	wantRevert(t, err, contracts.AllocatorVault, "OwnableUnauthorizedAccount")
}
