package contracts_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
)

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether)) }

func TestFeeWrapperTakesTheFeeAtomically(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, wrapper := c.alice.addr, c.addr(contracts.FeeWrapperName)
	bps := c.uint(contracts.FeeWrapperName, "feeBps")
	wantEq(t, "fee wrapper bps", bps, big.NewInt(50))

	t.Run("vault deposit", func(t *testing.T) {
		c := c.with(t)
		amount := big.NewInt(1_234_567_891) // 1234.567891 USDC
		c.mintTo(contracts.USDC, alice, amount)
		c.alice.send(contracts.USDC, "approve", wrapper, amount)
		fee := mulDiv(amount, bps, big.NewInt(10_000))
		wantShares := c.uint(contracts.VaultUSDC, "previewDeposit", sub(amount, fee))
		recipient := c.balance(contracts.USDC, c.feeTo)
		c.alice.send(contracts.FeeWrapperName, "deposit", c.addr(contracts.VaultUSDC), amount, alice)
		wantEq(t, "fee paid", sub(c.balance(contracts.USDC, c.feeTo), recipient), fee)
		wantEq(t, "fee", fee, big.NewInt(6_172_839))
		wantEq(t, "shares to the depositor", c.balance(contracts.VaultUSDC, alice), wantShares)
		wantEq(t, "nothing left in the wrapper", c.balance(contracts.USDC, wrapper), new(big.Int))
	})
	t.Run("native stake", func(t *testing.T) {
		c := c.with(t)
		value := ether(3)
		fee := mulDiv(value, bps, big.NewInt(10_000))
		recipient := c.ethBalance(c.feeTo)
		c.alice.sendValue(value, contracts.FeeWrapperName, "stake", c.addr(contracts.Staking), alice)
		wantEq(t, "fee paid", sub(c.ethBalance(c.feeTo), recipient), fee)
		wantEq(t, "stake credited", c.uint(contracts.Staking, "stakedOf", alice), sub(value, fee))
	})
	t.Run("unapproved deposit", func(t *testing.T) {
		c := c.with(t)
		c.mintTo(contracts.USDC, c.bob.addr, big.NewInt(1000))
		_, err := c.bob.trySend(nil, contracts.FeeWrapperName, "deposit", c.addr(contracts.VaultUSDC), big.NewInt(1000), c.bob.addr)
		wantRevert(t, err, contracts.TestToken, "ERC20InsufficientAllowance")
	})
}

func TestLendingPoolSupplyInterestWithdraw(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, pool := c.alice.addr, c.addr(contracts.Lending)
	supply := tokens(1_000, 6)
	c.mintTo(contracts.USDT, alice, supply)
	_, err := c.alice.trySend(nil, contracts.Lending, "supply", c.addr(contracts.USDT), supply, alice, uint16(0))
	wantRevert(t, err, contracts.TestToken, "ERC20InsufficientAllowance")

	c.alice.send(contracts.USDT, "approve", pool, supply)
	c.alice.send(contracts.Lending, "supply", c.addr(contracts.USDT), supply, alice, uint16(0))
	wantEq(t, "receipt balance", c.balance(contracts.LendingAUSDT, alice), supply)

	// Interest: 50 USDT sent to the pool and accrued raise the receipt balance by 50 USDT.
	c.mintTo(contracts.USDT, pool, tokens(50, 6))
	c.alice.send(contracts.Lending, "accrueInterest", c.addr(contracts.USDT))
	wantEq(t, "receipt balance with interest", c.balance(contracts.LendingAUSDT, alice), tokens(1_050, 6))
	index := c.uint(contracts.Lending, "getReserveNormalizedIncome", c.addr(contracts.USDT))
	wantEq(t, "liquidity index", index, new(big.Int).Mul(big.NewInt(105), new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil)))

	c.alice.send(contracts.Lending, "withdraw", c.addr(contracts.USDT), tokens(50, 6), c.bob.addr)
	wantEq(t, "withdrawn to bob", c.balance(contracts.USDT, c.bob.addr), tokens(50, 6))
	_, err = c.alice.trySend(nil, contracts.Lending, "withdraw", c.addr(contracts.USDT), tokens(1_001, 6), alice)
	wantRevert(t, err, contracts.LendingPool, "InsufficientSupply")
	// Burning rounds the scaled amount up, so after the partial withdrawal one unit is lost.
	remaining := c.balance(contracts.LendingAUSDT, alice)
	wantEq(t, "receipt after partial withdrawal", remaining, sub(tokens(1_000, 6), big.NewInt(1)))
	c.alice.send(contracts.Lending, "withdraw", c.addr(contracts.USDT), maxUint256, alice)
	wantEq(t, "withdrawn all", c.balance(contracts.USDT, alice), remaining)
	wantEq(t, "receipt left", c.balance(contracts.LendingAUSDT, alice), new(big.Int))

	_, err = c.alice.trySend(nil, contracts.Lending, "supply", c.addr(contracts.DAI), supply, alice, uint16(0))
	wantRevert(t, err, contracts.LendingPool, "ReserveNotListed")
}

func TestLendingPoolSelectorsMatchAaveV3(t *testing.T) {
	t.Parallel()
	pool := contracts.MustLoad(contracts.LendingPool).ABI
	for method, selector := range map[string]string{
		"supply":                     "0x617ba037", // supply(address,uint256,address,uint16)
		"withdraw":                   "0x69328dec", // withdraw(address,uint256,address)
		"getReserveNormalizedIncome": "0xd15e0053",
		"getReserveData":             "0x35ea6a75", // getReserveData(address)
	} {
		if got := common.Bytes2Hex(pool.Methods[method].ID); "0x"+got != selector {
			t.Errorf("%s selector = 0x%s, want %s", method, got, selector)
		}
	}
}

// getReserveData returns Aave v3's ReserveDataLegacy, field for field, so a reader of Aave's struct decodes it.
func TestLendingPoolReserveDataHasAaveV3Layout(t *testing.T) {
	t.Parallel()
	outputs := contracts.MustLoad(contracts.LendingPool).ABI.Methods["getReserveData"].Outputs
	const aave = "((uint256),uint128,uint128,uint128,uint128,uint128,uint40,uint16,address,address,address,address,uint128,uint128,uint128)"
	if len(outputs) != 1 || outputs[0].Type.String() != aave {
		t.Fatalf("getReserveData returns %v, want %s", outputs, aave)
	}
	want := "configuration liquidityIndex currentLiquidityRate variableBorrowIndex currentVariableBorrowRate " +
		"currentStableBorrowRate lastUpdateTimestamp id aTokenAddress stableDebtTokenAddress variableDebtTokenAddress " +
		"interestRateStrategyAddress accruedToTreasury unbacked isolationModeTotalDebt"
	if got := strings.Join(outputs[0].Type.TupleRawNames, " "); got != want {
		t.Fatalf("ReserveDataLegacy fields:\n got %s\nwant %s", got, want)
	}
}

func TestLendingPoolLiquidityRate(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	usdc, usdt, pool := c.addr(contracts.USDC), c.addr(contracts.USDT), c.addr(contracts.Lending)
	reserve := func(asset common.Address) abis.ReserveData {
		t.Helper()
		d, err := abis.AsReserveData(c.call(contracts.Lending, "getReserveData", asset))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ray := new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil)
	rate := new(big.Int).Mul(big.NewInt(523_456), new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil)) // 5.23456% a year

	_, err := c.alice.trySend(nil, contracts.Lending, "setLiquidityRate", usdt, rate)
	wantRevert(t, err, contracts.LendingPool, "OwnableUnauthorizedAccount")
	_, err = c.owner.trySend(nil, contracts.Lending, "setLiquidityRate", c.addr(contracts.DAI), rate)
	wantRevert(t, err, contracts.LendingPool, "ReserveNotListed")
	_, err = c.owner.trySend(nil, contracts.Lending, "setLiquidityRate", usdt, new(big.Int).Lsh(big.NewInt(1), 128))
	wantRevert(t, err, contracts.LendingPool, "SafeCastOverflowedUintDowncast")

	r := c.owner.send(contracts.Lending, "setLiquidityRate", usdt, rate)
	event := contracts.MustLoad(contracts.LendingPool).ABI.Events["ReserveDataUpdated"]
	var found bool
	for _, l := range r.Logs {
		if l.Address != pool || l.Topics[0] != event.ID {
			continue
		}
		found = true
		if common.BytesToAddress(l.Topics[1].Bytes()) != usdt {
			t.Fatalf("ReserveDataUpdated names reserve %s, want USDT", l.Topics[1])
		}
		values, err := event.Inputs.NonIndexed().Unpack(l.Data)
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "event liquidityRate", values[0].(*big.Int), rate)
		wantEq(t, "event liquidityIndex", values[3].(*big.Int), ray)
	}
	if !found {
		t.Fatal("setLiquidityRate emitted no ReserveDataUpdated")
	}

	d := reserve(usdt)
	wantEq(t, "currentLiquidityRate", d.CurrentLiquidityRate, rate)
	wantEq(t, "liquidityIndex", d.LiquidityIndex, ray)
	wantEq(t, "lastUpdateTimestamp", d.LastUpdateTimestamp, new(big.Int).SetUint64(c.blockTime(r)))
	if d.Id != 1 || d.ATokenAddress != c.addr(contracts.LendingAUSDT) {
		t.Fatalf("USDT reserve id %d, aToken %s", d.Id, d.ATokenAddress)
	}
	for name, v := range map[string]*big.Int{"configuration": d.Configuration.Data, "variableBorrowIndex": d.VariableBorrowIndex,
		"currentVariableBorrowRate": d.CurrentVariableBorrowRate, "currentStableBorrowRate": d.CurrentStableBorrowRate,
		"accruedToTreasury": d.AccruedToTreasury, "unbacked": d.Unbacked, "isolationModeTotalDebt": d.IsolationModeTotalDebt} {
		wantEq(t, name, v, new(big.Int))
	}
	if d.StableDebtTokenAddress != (common.Address{}) || d.VariableDebtTokenAddress != (common.Address{}) ||
		d.InterestRateStrategyAddress != (common.Address{}) {
		t.Fatalf("debt tokens and rate strategy: %+v", d)
	}
	// The other reserve keeps its own rate; an unlisted asset reads as zeros, as on Aave.
	if other := reserve(usdc); other.CurrentLiquidityRate.Sign() != 0 || other.Id != 0 || other.ATokenAddress != c.addr(contracts.LendingAUSDC) {
		t.Fatalf("USDC reserve %+v", other)
	}
	if none := reserve(c.addr(contracts.DAI)); none.ATokenAddress != (common.Address{}) || none.LiquidityIndex.Sign() != 0 {
		t.Fatalf("unlisted reserve %+v", none)
	}

	// The index getReserveData returns follows accrued interest.
	supply := tokens(1_000, 6)
	c.mintTo(contracts.USDT, c.alice.addr, supply)
	c.alice.send(contracts.USDT, "approve", pool, supply)
	c.alice.send(contracts.Lending, "supply", usdt, supply, c.alice.addr, uint16(0))
	c.mintTo(contracts.USDT, pool, tokens(10, 6))
	c.alice.send(contracts.Lending, "accrueInterest", usdt)
	wantEq(t, "index after interest", reserve(usdt).LiquidityIndex, c.uint(contracts.Lending, "getReserveNormalizedIncome", usdt))
	wantEq(t, "rate after interest", reserve(usdt).CurrentLiquidityRate, rate)
}

// Both staking contracts publish a reward rate that only their owner (the deployer) sets.
func TestStakingRewardRates(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	for _, tc := range []struct{ fixture, artifact string }{
		{contracts.Staking, contracts.NativeStaking},
		{contracts.ProviderStake, contracts.ProviderStaking},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			c := c.with(t)
			if owner := c.call(tc.fixture, "owner").(common.Address); owner != c.owner.addr {
				t.Fatalf("owner %s, want the deployer %s", owner, c.owner.addr)
			}
			wantEq(t, "rate before it is set", c.uint(tc.fixture, "rewardRateBps"), new(big.Int))
			_, err := c.alice.trySend(nil, tc.fixture, "setRewardRate", big.NewInt(420))
			wantRevert(t, err, tc.artifact, "OwnableUnauthorizedAccount")
			r := c.owner.send(tc.fixture, "setRewardRate", big.NewInt(420))
			event := contracts.MustLoad(tc.artifact).ABI.Events["RewardRateUpdated"]
			if len(r.Logs) != 1 || r.Logs[0].Topics[0] != event.ID || new(big.Int).SetBytes(r.Logs[0].Data).Cmp(big.NewInt(420)) != 0 {
				t.Fatalf("logs %+v, want RewardRateUpdated(420)", r.Logs)
			}
			wantEq(t, "rewardRateBps", c.uint(tc.fixture, "rewardRateBps"), big.NewInt(420))
		})
	}
}

func TestNativeStakingCooldownAndRewards(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, bob := c.alice.addr, c.bob.addr
	c.alice.sendValue(ether(30), contracts.Staking, "stake")
	c.bob.sendValue(ether(10), contracts.Staking, "stakeFor", bob)

	c.owner.sendValue(ether(4), contracts.Staking, "distributeRewards")
	wantEq(t, "alice rewards", c.uint(contracts.Staking, "claimableRewards", alice), ether(3))
	wantEq(t, "bob rewards", c.uint(contracts.Staking, "claimableRewards", bob), ether(1))

	before := c.ethBalance(bob)
	r := c.bob.send(contracts.Staking, "claimRewards")
	gas := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	wantEq(t, "bob claimed", sub(add(c.ethBalance(bob), gas), before), ether(1))

	c.alice.send(contracts.Staking, "requestUnstake", ether(20))
	wantEq(t, "alice still staked", c.uint(contracts.Staking, "stakedOf", alice), ether(10))
	_, err := c.alice.trySend(nil, contracts.Staking, "withdraw")
	wantRevert(t, err, contracts.NativeStaking, "CooldownNotElapsed")

	c.advance(contracts.DefaultStakingCooldown)
	before = c.ethBalance(alice)
	r = c.alice.send(contracts.Staking, "withdraw")
	gas = new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	wantEq(t, "alice withdrew", sub(add(c.ethBalance(alice), gas), before), ether(20))
	_, err = c.alice.trySend(nil, contracts.Staking, "withdraw")
	wantRevert(t, err, contracts.NativeStaking, "NoPendingUnstake")
	// Rewards earned before the unstake stay claimable.
	wantEq(t, "alice rewards kept", c.uint(contracts.Staking, "claimableRewards", alice), ether(3))
}

func TestProviderStakingRevenueShare(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice := c.alice.addr
	c.alice.sendValue(ether(32), contracts.ProviderStake, "stake")
	wantEq(t, "liquid staking tokens", c.balance(contracts.ProviderLST, alice), ether(32))

	c.owner.sendValue(ether(1), contracts.ProviderStake, "distributeRewards")
	// 10% validator fee = 0.1 ETH, of which the integrator gets 70%.
	wantEq(t, "integrator fee", c.uint(contracts.ProviderStake, "feesOwed", c.feeTo), big.NewInt(7e16))
	wantEq(t, "provider fee", c.uint(contracts.ProviderStake, "feesOwed", c.provider), big.NewInt(3e16))
	wantEq(t, "pooled ether", c.uint(contracts.ProviderStake, "totalPooledEther"), add(ether(32), big.NewInt(9e17)))

	shares := c.balance(contracts.ProviderLST, alice)
	worth := c.uint(contracts.ProviderStake, "convertToEther", shares)
	c.alice.send(contracts.ProviderStake, "requestUnstake", shares)
	_, err := c.alice.trySend(nil, contracts.ProviderStake, "withdraw")
	wantRevert(t, err, contracts.ProviderStaking, "CooldownNotElapsed")
	c.advance(contracts.DefaultStakingCooldown)
	before := c.ethBalance(alice)
	r := c.alice.send(contracts.ProviderStake, "withdraw")
	gas := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	wantEq(t, "withdrawn", sub(add(c.ethBalance(alice), gas), before), worth)

	for _, share := range []int64{4999, 8501} {
		data, err := contracts.MustLoad(contracts.ProviderStaking).DeployData(c.provider, c.feeTo,
			big.NewInt(1000), big.NewInt(share), big.NewInt(600), "x", "x", c.owner.addr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.owner.Transact(t.Context(), nil, nil, data)
		wantRevert(t, err, contracts.ProviderStaking, "RevenueShareOutOfRange")
	}
}

// TestArtifactsMatchSources rebuilds the contracts with build.sh and compares the result with the
// committed artifacts, so a source change without a rebuild cannot go unnoticed.
func TestArtifactsMatchSources(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: cannot rebuild the contracts to compare them with the artifacts", tool)
		}
	}
	out := builtArtifacts(t)
	for _, name := range contracts.Names() {
		for _, ext := range []string{".abi", ".bin", ".links"} {
			committed := filepath.Join("artifacts", name+ext)
			if _, ok := abis.JSON(name); ok && ext == ".abi" {
				committed = filepath.Join("..", "abis", name+ext) // where build.sh moves it
			}
			if readOptional(t, filepath.Join(out, name+ext)) != readOptional(t, committed) {
				t.Errorf("%s differs from what build.sh produces from src/: run internal/contracts/build.sh and commit", committed)
			}
		}
	}
}

// readOptional is a file's content, or "" when it does not exist (an artifact that links no library has no .links).
func readOptional(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// builtArtifacts runs build.sh, or returns what it built before from the same inputs. solc takes
// seconds and its output depends only on the sources, the build script and the compiler pinned in
// package-lock.json, so the output is kept in the user's cache under a hash of those, as Go keeps
// test results: a change to any of them builds again.
func builtArtifacts(t *testing.T) string {
	inputs, err := filepath.Glob("src/*.sol")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, name := range append([]string{"build.sh", "package-lock.json"}, inputs...) {
		fmt.Fprintf(h, "%s\x00%s\x00", name, readFile(t, name))
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		out := t.TempDir()
		build(t, out)
		return out
	}
	dir := filepath.Join(cache, "sigil", "contracts-"+hex.EncodeToString(h.Sum(nil))[:32])
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	build(t, tmp)
	if err := os.WriteFile(filepath.Join(tmp, "complete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "complete")); statErr != nil {
			t.Fatal(err)
		} // else another run got there first, and its output is as good
	}
	return dir
}

func build(t *testing.T, out string) {
	if msg, err := exec.Command("bash", "build.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, msg)
	}
}

// The yield service's policies match these selectors (approve on the token, deposit and redeem on
// the vault), so every deposit target must expose them.
func TestSelectorsOfThePolicyFlow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ fixture, method, selector string }{
		{contracts.USDC, "approve", "095ea7b3"},
		{contracts.WETH, "approve", "095ea7b3"},
		{contracts.VaultUSDC, "deposit", "6e553f65"},
		{contracts.VaultUSDC, "redeem", "ba087652"},
		{contracts.OAV10USDC, "deposit", "6e553f65"},
		{contracts.OAV20USDC, "redeem", "ba087652"},
		{contracts.VaultWETH, "withdraw", "b460af94"},
	} {
		a, err := contracts.ForFixture(tc.fixture)
		if err != nil {
			t.Fatal(err)
		}
		if got := common.Bytes2Hex(a.ABI.Methods[tc.method].ID); got != tc.selector {
			t.Errorf("%s.%s selector = %s, want %s", tc.fixture, tc.method, got, tc.selector)
		}
	}
	if _, err := contracts.ForFixture("nope"); err == nil {
		t.Error("ForFixture of an unknown name succeeded")
	}
}
