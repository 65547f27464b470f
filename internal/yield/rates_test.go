package yield

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/store"
)

// The vaults' reward rates come from share-price samples: the plain vault earns what the simulator pays it (5% a
// year, compounded), and each fee set's allocator vault shows its own rate, the 20% set's below the 10% set's. The
// lending rate is the pool's published one, which is what the simulator pays.
func TestRewardRatesFromSamples(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	oav10 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV10USDC).Hex(), "USDC")
	oav20 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV20USDC).Hex(), "USDC")
	lending := e.yieldID(KindLending, e.addr(contracts.Lending).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "30000"})
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "10000"}))
	w.execute(e.key10, w.act(e.key10, "enter", oav10, map[string]any{"amount": "10000"}))
	w.execute(e.key20, w.act(e.key20, "enter", oav20, map[string]any{"amount": "5000"}))
	w.execute(e.key10, w.act(e.key10, "enter", lending, map[string]any{"amount": "5000"}))

	// Pay what is due so far, then sample, let a day pass, pay it and sample again.
	if _, err := e.chain.Simulator().Step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}
	e.step(24 * time.Hour)
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}

	rateOf := func(key, id string) rewardRateDTO {
		var y yieldDTO
		e.mustCall(key, "GET", "/v1/yields/"+id, nil, 200, &y)
		return y.RewardRate
	}
	daily := 0.05 * 24 * 3600 / float64(year/time.Second)
	want := math.Pow(1+daily, 365) - 1
	if got := rateOf(e.key10, vault); got.RateType != "APY" || math.Abs(got.Total-want) > 0.001 || got.Components[0].YieldSource != "vault" {
		t.Fatalf("vault rate %+v, want about %.5f", got, want)
	}
	if got := rateOf(e.key10, lending); math.Abs(got.Total-math.Expm1(0.04)) > 1e-6 {
		t.Fatalf("lending rate %+v, want about e^0.04 − 1", got)
	}
	r10, r20 := rateOf(e.key10, oav10), rateOf(e.key20, oav20)
	t.Logf("allocator APY: 10%% set %.4f, 20%% set %.4f", r10.Total, r20.Total)
	if r10.Total <= 0 || r20.Total <= 0 || r20.Total >= r10.Total {
		t.Fatalf("allocator rates: 10%% set %v, 20%% set %v", r10.Total, r20.Total)
	}
	// The share price is the vault's: assets per share from the latest sample.
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+vault, nil, 200, &y)
	if pps := y.State.PricePerShareState; pps == nil || pps.Price <= 1 || pps.ShareToken.Symbol != "svUSDC" || pps.QuoteToken.Symbol != "USDC" {
		t.Fatalf("price per share %+v", y.State)
	}
	// The share prices over time (a Sigil extension): the samplings, oldest first, the newest the price above, grown.
	var hist sharePricesDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+vault+"/share-prices?days=30", nil, 200, &hist)
	if n := len(hist.Items); n < 2 || hist.Items[n-1].Price != y.State.PricePerShareState.Price || hist.Items[n-1].Price <= hist.Items[0].Price {
		t.Fatalf("share prices %+v, latest price %v", hist, y.State.PricePerShareState.Price)
	}
	e.mustCall(e.key10, "GET", "/v1/yields/"+vault+"/share-prices?days=0", nil, 400, nil)
	e.mustCall(e.key10, "GET", "/v1/yields/nope/share-prices", nil, 404, nil)
	// Samples of a chain that was reset (blocks above the head) are dropped at the next sampling.
	stale := store.YieldPriceSample{YieldID: vault, BlockNumber: 1 << 40, BlockTime: 1 << 40, Shares: "1", Assets: "2"}
	if err := e.store.Write(ctx, func(tx *store.Tx) error { return tx.PutYieldPriceSamples(ctx, stale) }); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}
	samples, err := e.store.YieldPriceSamples(ctx, vault, 0)
	if err != nil || samples[len(samples)-1].BlockNumber == stale.BlockNumber {
		t.Fatalf("a stale sample survived: %+v, %v", samples[len(samples)-1], err)
	}
	// A restarted service computes the same rates from the stored samples.
	svc, err := New(Config{Catalogue: e.cat, Store: e.store, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := svc.loadRates(ctx); err != nil {
		t.Fatal(err)
	}
	if got := svc.rates.get(vault); !got.known || math.Abs(got.total-rateOf(e.key10, vault).Total) > 1e-12 {
		t.Fatalf("rate after restart %+v", got)
	}
}

// On a fresh chain no vault has a share price that moved, and no block time passes, so no rate can come from
// samples: every vault is rated from the accrual rate it publishes, as documented, from the first sampling on — the
// plain vaults' owner-set 5% (the DAI vault's less its fee wrapper's deposit fee), the allocator vaults' underlying rate
// plus incentives net of their fees, and the Morpho vault's market supply rate. Once samples a day apart exist, they
// rate the vault instead.
func TestVaultRatesFromTheFirstSampling(t *testing.T) {
	e := newEnv(t, envOptions{fresh: true})
	ctx := context.Background()
	rateOf := func(id string) rewardRateDTO {
		t.Helper()
		var y yieldDTO
		key := e.key10
		if strings.Contains(id, "oavusdc20") {
			key = e.key20 // the 20% fee set is the second project's
		}
		e.mustCall(key, "GET", "/v1/yields/"+id, nil, 200, &y)
		return y.RewardRate
	}
	perSecond := compoundPerSecond
	wrapperFee := float64(e.read(e.addr(contracts.FeeWrapperName), contracts.FeeWrapper, "feeBps").Int64()) / 10_000
	allocator := func(name string) float64 {
		at := e.addr(name)
		perf := float64(e.read(at, contracts.AllocatorVault, "performanceFeeBps").Int64()) / 10_000
		mgmt := float64(e.read(at, contracts.AllocatorVault, "managementFeeBps").Int64()) / 10_000
		deposit := float64(e.read(at, contracts.AllocatorVault, "depositFeeBps").Int64()) / 10_000
		return (1+perSecond((0.05+0.02)*(1-perf)-mgmt))*(1-deposit) - 1
	}
	// Morpho's IRM mock borrows at the utilisation as an annual rate, so suppliers earn utilisation², no fee.
	utilisation := float64(contracts.MorphoSeedBorrowPercent) / 100
	for _, tc := range []struct {
		id   string
		want float64
	}{
		{e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC"), perSecond(0.05)},
		{e.yieldID(KindERC4626, e.addr(contracts.VaultWETH).Hex(), "WETH"), perSecond(0.05)},
		{e.yieldID(KindERC4626, e.addr(contracts.VaultDAI).Hex(), "DAI"), (1+perSecond(0.05))*(1-wrapperFee) - 1},
		{e.yieldID(KindAllocatorVault, e.addr(contracts.OAV10USDC).Hex(), "USDC"), allocator(contracts.OAV10USDC)},
		{e.yieldID(KindAllocatorVault, e.addr(contracts.OAV20USDC).Hex(), "USDC"), allocator(contracts.OAV20USDC)},
		{e.yieldID(KindERC4626, e.addr(contracts.MorphoVaultUSDC).Hex(), "USDC"), perSecond(utilisation * utilisation)},
	} {
		got := rateOf(tc.id)
		if math.Abs(got.Total-tc.want) > 1e-6 || got.Total <= 0 || !strings.Contains(got.Components[0].Description, "accrual rate") {
			t.Errorf("%s: rewardRate %+v, want %.6f from the accrual rate", tc.id, got, tc.want)
		}
	}

	// A deposit, a day of block time paid by the simulator, two samplings: the plain vault's rate now comes from its
	// share price, and agrees with the rate it published.
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "1000"})
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "1000"}))
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}
	e.step(24 * time.Hour)
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}
	got := rateOf(vault)
	if !strings.Contains(got.Components[0].Description, "From price-per-share samples over the last 1 day") ||
		math.Abs(got.Total-perSecond(0.05)) > 0.001 {
		t.Errorf("after a day: rewardRate %+v, want about %.5f from samples", got, perSecond(0.05))
	}
}

// The lending and staking reward rates are the rates their contracts publish, read at the sampling (no window of
// samples is needed): set specific rates on chain, sample, and the API shows them converted as documented.
func TestLendingAndStakingRatesArePublishedRates(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	sim := e.chain.Simulator()
	pool := e.addr(contracts.Lending)
	lending := e.yieldID(KindLending, pool.Hex(), "USDC")
	native := e.yieldID(KindNativeStaking, e.addr(contracts.Staking).Hex(), "ETH")
	provider := e.yieldID(KindProviderStaking, e.addr(contracts.ProviderStake).Hex(), "ETH")

	// Put back what the other tests expect (the dev chain's defaults) afterwards.
	reserve := func() abis.ReserveData {
		t.Helper()
		out, err := contracts.MustLoad(contracts.LendingPool).Call(ctx, e.eth, pool, "getReserveData", e.addr(contracts.USDC))
		if err != nil {
			t.Fatal(err)
		}
		d, err := abis.AsReserveData(out[0])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	oldLending := reserve().CurrentLiquidityRate
	oldNative := e.read(e.addr(contracts.Staking), contracts.NativeStaking, "rewardRateBps")
	oldProvider := e.read(e.addr(contracts.ProviderStake), contracts.ProviderStaking, "rewardRateBps")
	t.Cleanup(func() {
		ctx := context.Background()
		for _, err := range []error{
			sim.SetLendingRate(ctx, contracts.USDC, oldLending),
			sim.SetStakingRate(ctx, contracts.Staking, oldNative.Int64()),
			sim.SetStakingRate(ctx, contracts.ProviderStake, oldProvider.Int64()),
		} {
			if err != nil {
				t.Error(err)
			}
		}
	})

	lendingRay, _ := new(big.Int).SetString("61234567890123456789012345", 10) // 6.1234567890…% a year
	if err := sim.SetLendingRate(ctx, contracts.USDC, lendingRay); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetStakingRate(ctx, contracts.Staking, 420); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetStakingRate(ctx, contracts.ProviderStake, 610); err != nil {
		t.Fatal(err)
	}
	if got := reserve().CurrentLiquidityRate; got.Cmp(lendingRay) != 0 {
		t.Fatalf("published liquidity rate %s, want %s", got, lendingRay)
	}

	rateOf := func(id string) rewardRateDTO {
		t.Helper()
		var y yieldDTO
		e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
		return y.RewardRate
	}
	// GET /v1/yields reads no chain: the rates change at the next sampling.
	if got := rateOf(lending).Total; math.Abs(got-math.Expm1(0.04)) > 1e-6 {
		t.Fatalf("lending rate %v before the sampling, want the previous e^0.04 − 1", got)
	}
	if err := e.svc.SampleNow(ctx); err != nil {
		t.Fatal(err)
	}

	perSecond := func(apr float64) float64 {
		n := float64(365 * 24 * 3600)
		return math.Pow(1+apr/n, n) - 1
	}
	apr, _ := new(big.Rat).SetFrac(lendingRay, new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil)).Float64()
	validatorFee := float64(e.read(e.addr(contracts.ProviderStake), contracts.ProviderStaking, "validatorFeeBps").Int64()) / 10_000
	nativeFee := float64(e.yieldCfg(native).Fees.DepositBps) / 10_000
	if nativeFee == 0 || validatorFee == 0 || e.yieldCfg(provider).Fees.DepositBps != 0 {
		t.Fatalf("the dev catalogue changed: native staking deposit fee %v, validator fee %v", nativeFee, validatorFee)
	}
	for _, tc := range []struct {
		id, rateType string
		want         float64
	}{
		{lending, "APY", perSecond(apr)},                         // Aave's APY of currentLiquidityRate
		{native, "APR", 0.042 - nativeFee},                       // rewardRateBps less the fee wrapper's deposit fee
		{provider, "APY", perSecond(0.061 * (1 - validatorFee))}, // the stakers' part of the gross rate, compounded
	} {
		got := rateOf(tc.id)
		if got.RateType != tc.rateType || math.Abs(got.Total-tc.want) > 1e-7 || got.Components[0].Rate != got.Total {
			t.Errorf("%s: rewardRate %+v, want %s %.9f", tc.id, got, tc.rateType, tc.want)
		}
	}
	if got := rateOf(lending).Total; math.Abs(got-0.063148) > 1e-6 {
		t.Errorf("lending APY %.6f, want 0.063148 (e^0.0612345… − 1)", got)
	}
	// The USDT reserve kept its own rate.
	if got := rateOf(e.yieldID(KindLending, pool.Hex(), "USDT")).Total; math.Abs(got-math.Expm1(0.04)) > 1e-6 {
		t.Errorf("USDT lending rate %v", got)
	}
}

// A fresh service (an empty database) reports a vault's rate at once instead of 0: its first sampling backfills the
// share price from the node's history, so a vault whose price per share grew shows the rate the simulator pays (5% a
// year), and the description names the span of block time it was computed over. The chain is the test's own: on the
// shared one, other tests advance block time and step the simulator between the samples, and a step that pays for
// time before the first sample made the rate look higher than the simulator's (7.5%).
func TestFreshServiceVaultRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{fresh: true})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "1000"})
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "1000"}))
	e.step(6 * time.Hour)

	fresh := newEnv(t, envOptions{chain: e.chain})
	samples, err := fresh.store.YieldPriceSamples(context.Background(), vault, 0)
	if err != nil || len(samples) < 2 {
		t.Fatalf("a fresh service has %d samples of the vault (%v), want its first sampling and a backfill", len(samples), err)
	}
	var y yieldDTO
	fresh.mustCall(fresh.key10, "GET", "/v1/yields/"+vault, nil, 200, &y)
	got := y.RewardRate
	t.Logf("fresh service: %s %.5f over %d samples: %s", got.RateType, got.Total, len(samples), got.Components[0].Description)
	if want := math.Expm1(0.05); math.Abs(got.Total-want) > 1e-3 { // the simulator's 5% a year, compounded
		t.Fatalf("a fresh service's vault rate %+v, want %.5f", got, want)
	}
	if d := got.Components[0].Description; !strings.Contains(d, "over the last") || !strings.Contains(d, "window 7 days") {
		t.Fatalf("description %q does not name the span", d)
	}
}
