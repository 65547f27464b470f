package chain

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
)

// sigil_price, sigil_setPrice and sigil_liquidate, as a script drives the lending markets over JSON-RPC: a price moved
// on Aave's oracle moves both Morpho oracles with it (WETH in USDC; one svUSDC share in USDT), bad input is refused, and
// a pass of the keeper over a fresh chain's healthy positions liquidates nothing.
func TestSigilNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c, err := rpc.DialContext(ctx, n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	price := func(asset string) string {
		t.Helper()
		var p string
		if err := c.CallContext(ctx, &p, "sigil_price", asset); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oracle := func(name string) *big.Int {
		t.Helper()
		to := n.Contracts()[name]
		data, _ := abis.MorphoOracle.Pack("price")
		out, err := n.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(out)
	}
	if p := price("weth"); p != "3000" {
		t.Errorf("WETH at %s", p)
	}
	if err := c.CallContext(ctx, nil, "sigil_setPrice", "USDC", "0.99"); err != nil {
		t.Fatal(err)
	}
	if p := price("USDC"); p != "0.99" {
		t.Errorf("USDC at %s after setting 0.99", p)
	}
	usd := func(dollars int64, cents int64) *big.Int { return big.NewInt(dollars*100_000_000 + cents*1_000_000) }
	if got, want := oracle(contracts.MorphoOracle), contracts.MorphoOraclePrice(usd(3000, 0), usd(0, 99), 18, 6); got.Cmp(want) != 0 {
		t.Errorf("the USDC/WETH oracle answers %s, want %s", got, want)
	}
	// No one has deposited into the vault: a share is worth one USDC, 0.99 USDT.
	if got, want := oracle(contracts.MorphoVaultOracle), contracts.MorphoOraclePrice(usd(0, 99), usd(1, 0), 6, 6); got.Cmp(want) != 0 {
		t.Errorf("the svUSDC/USDT oracle answers %s, want %s", got, want)
	}
	for _, args := range [][]any{{"DAI", "1"}, {"USDC", "0"}, {"USDC", "-1"}, {"USDC", "0.000000001"}, {"USDC", "one"}} {
		if err := c.CallContext(ctx, nil, "sigil_setPrice", args...); err == nil {
			t.Errorf("sigil_setPrice %v was accepted", args)
		}
	}
	if p := price("USDC"); p != "0.99" {
		t.Errorf("USDC at %s after the refusals", p)
	}
	var done []LiquidationResult
	if err := c.CallContext(ctx, &done, "sigil_liquidate"); err != nil || len(done) != 0 {
		t.Errorf("sigil_liquidate on healthy positions: %+v, %v", done, err)
	}
	if err := n.Simulator().SetPrice(ctx, "DAI", big.NewInt(1)); err == nil || !strings.Contains(err.Error(), "has no price") {
		t.Errorf("SetPrice of DAI: %v", err)
	}
}

// With the price walk on, each step moves WETH by 1 to PriceWalkBps basis points on Aave's oracle and the USDC/WETH
// Morpho oracle with it; the stablecoins stay. A walk over 50% a step is refused at start.
func TestSimulatorPriceWalk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog, Simulator: SimulatorConfig{PriceWalkBps: 5001}}); err == nil ||
		!strings.Contains(err.Error(), "price walk") {
		t.Fatalf("a 50.01%% walk: %v", err)
	}
	n, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog, Simulator: SimulatorConfig{PriceWalkBps: 300}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	sim := n.Simulator()
	prev, err := sim.Price(ctx, contracts.WETH)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := n.AdvanceTime(time.Hour); err != nil {
			t.Fatal(err)
		}
		report, err := sim.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		now, err := sim.Price(ctx, contracts.WETH)
		if err != nil {
			t.Fatal(err)
		}
		moved := new(big.Int).Abs(new(big.Int).Sub(now, prev))
		if report.Prices[contracts.WETH].Cmp(now) != 0 || moved.Sign() == 0 ||
			moved.Cmp(new(big.Int).Div(new(big.Int).Mul(prev, big.NewInt(300)), big.NewInt(10_000))) > 0 {
			t.Fatalf("WETH went from %s to %s (report %v), want a move of 1 to 300 bps", prev, now, report.Prices)
		}
		to := n.Contracts()[contracts.MorphoOracle]
		data, _ := abis.MorphoOracle.Pack("price")
		out, err := n.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := contracts.MorphoOraclePrice(now, big.NewInt(100_000_000), 18, 6); new(big.Int).SetBytes(out).Cmp(want) != 0 {
			t.Fatalf("the Morpho oracle answers %x, want %s", out, want)
		}
		prev = now
	}
	if p, _ := sim.Price(ctx, contracts.USDC); p.Cmp(big.NewInt(100_000_000)) != 0 {
		t.Errorf("USDC moved to %s", p)
	}
}
