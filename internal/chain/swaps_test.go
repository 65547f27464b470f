package chain

import (
	"context"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

func startChain(t *testing.T, id int64) *Node {
	t.Helper()
	n, err := Start(context.Background(), Config{ListenAddr: "127.0.0.1:0", ChainID: id, NetworkID: "sigil-dev-" + big.NewInt(id).String(), Logger: quietLog})
	if err != nil {
		t.Fatalf("start dev chain %d: %v", id, err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// The simulator trades in every Uniswap pool each step, so prices move, and leans back towards the opening prices, so
// they stay near them.
func TestSimulatorMovesPoolPrices(t *testing.T) {
	t.Parallel()
	n := startChain(t, DefaultChainID)
	sim := n.Simulator()
	st := &step{s: sim, ctx: t.Context()}
	opening := map[string]float64{}
	for _, p := range contracts.UniswapPools {
		opening[p.Name] = st.poolPriceOfA(p)
		if st.err != nil || math.Abs(opening[p.Name]/p.Price-1) > 1e-6 {
			t.Fatalf("%s opens at %g (%v), want %g", p.Name, opening[p.Name], st.err, p.Price)
		}
	}
	moved := map[string]bool{}
	for range 8 {
		if err := n.AdvanceTime(time.Minute); err != nil {
			t.Fatal(err)
		}
		report, err := sim.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range contracts.UniswapPools {
			if report.Paid[p.Name] == nil {
				t.Fatalf("a step made no trade in %s", p.Name)
			}
			now := st.poolPriceOfA(p)
			if now != opening[p.Name] {
				moved[p.Name] = true
			}
			if math.Abs(now/p.Price-1) > 0.05 {
				t.Fatalf("%s wandered to %g, more than 5%% from %g", p.Name, now, p.Price)
			}
		}
	}
	for _, p := range contracts.UniswapPools {
		if !moved[p.Name] {
			t.Errorf("%s never moved", p.Name)
		}
	}
}

// A swap locked in one dev chain's bridge is released by the relayer on the other, through the destination's swap;
// a lock whose destination swap cannot give its minimum is refunded there in the bridged token; a lock is released
// once.
func TestRelayerReleasesAcrossChains(t *testing.T) {
	t.Parallel()
	a, b := startChain(t, 1337), startChain(t, 1338)
	relayer := NewRelayer([]*Node{a, b}, quietLog)
	u := newUser(t, a, a.Client(), "1", map[string]string{"USDC": "3000"})
	router := a.Contracts()[contracts.SwapRouterName]
	u.call(t, a, contracts.USDC, nil, "approve", router, tokens(3000, 6))
	destPath := append(append(b.Contracts()[contracts.USDC].Bytes(), 0, 0x01, 0xf4), b.Contracts()[contracts.WETH].Bytes()...)
	lock := func(amount *big.Int, destMin *big.Int) {
		u.call(t, a, contracts.SwapRouterName, nil, "swapAndBridge", swapParams{Path: []byte{}, TokenIn: a.Contracts()[contracts.USDC],
			AmountIn: amount, Fee: new(big.Int), Recipient: u.Address(), AmountOutMinimum: amount, Deadline: big.NewInt(math.MaxInt64)},
			bridgeLegParams{Bridge: a.Contracts()[contracts.Bridge], DestChainId: big.NewInt(1338), DestPath: destPath, DestMinOut: destMin})
	}
	lock(tokens(1500, 6), new(big.Int))
	if n, err := relayer.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("first pass released %d (%v), want 1", n, err)
	}
	weth := read(t, b, contracts.WETH, "balanceOf", u.Address())
	if f, _ := new(big.Rat).SetFrac(weth, tokens(1, 18)).Float64(); f < 0.45 || f > 0.5 {
		t.Fatalf("1,500 USDC bridged bought %g WETH on the other chain", f)
	}
	if n, err := relayer.Step(t.Context()); err != nil || n != 0 {
		t.Fatalf("second pass released %d (%v), want 0", n, err)
	}

	lock(tokens(1500, 6), tokens(1, 18)) // a whole WETH for 1,500 USDC: the destination swap cannot
	if n, err := relayer.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("third pass released %d (%v), want 1", n, err)
	}
	wantEq(t, "USDC refunded on the other chain", read(t, b, contracts.USDC, "balanceOf", u.Address()), tokens(1500, 6))
	wantEq(t, "WETH after the refund", read(t, b, contracts.WETH, "balanceOf", u.Address()), weth)
}

type swapParams struct {
	Path             []byte
	TokenIn          common.Address
	AmountIn         *big.Int
	Fee              *big.Int
	FeeReceiver      common.Address
	Recipient        common.Address
	AmountOutMinimum *big.Int
	Deadline         *big.Int
	Ref              [32]byte
}

type bridgeLegParams struct {
	Bridge      common.Address
	DestChainId *big.Int //nolint:revive
	DestPath    []byte
	DestMinOut  *big.Int
}
