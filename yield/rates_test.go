package yield

import (
	"context"
	"math"
	"testing"
	"time"

	"sigil/contracts"
	"sigil/store"
)

// The reward rates come from share-price samples: the plain vault earns what the simulator pays it (5% a year,
// compounded), and each fee set's allocator vault shows its own rate, the 20% set's below the 10% set's.
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
	lendingDaily := 0.04 * 24 * 3600 / float64(year/time.Second)
	if got := rateOf(e.key10, lending); math.Abs(got.Total-(math.Pow(1+lendingDaily, 365)-1)) > 0.001 {
		t.Fatalf("lending rate %+v", got)
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
