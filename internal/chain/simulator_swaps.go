package chain

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

// defaultSwapTradeBps is the largest trade a simulator step makes in each Uniswap pool, in basis points of its depth.
const defaultSwapTradeBps = 30

// uniswapExactInputSingle is ISwapRouter.ExactInputSingleParams.
type uniswapExactInputSingle struct {
	TokenIn, TokenOut common.Address
	Fee               *big.Int
	Recipient         common.Address
	Deadline          *big.Int
	AmountIn          *big.Int
	AmountOutMinimum  *big.Int
	SqrtPriceLimitX96 *big.Int
}

// swapPools keeps the Uniswap pools' prices moving as traders would: each step makes one trade in each pool, from the
// dev account through Uniswap's router, of a random size up to SwapTradeBps of the pool's depth, in a random
// direction leaning back towards the price the pool opened at (as arbitrage against the rest of the market does), so
// prices wander within a few percent of it. The step's randomness is seeded by the chain's time: the same chain moves
// the same way.
func (st *step) swapPools() {
	maxBps := st.s.cfg.SwapTradeBps
	if maxBps < 0 || st.s.addresses[contracts.UniswapRouter] == (common.Address{}) {
		return
	}
	router := st.s.addresses[contracts.UniswapRouter]
	for i, p := range contracts.UniswapPools {
		if st.err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(st.seed, uint64(i)))
		priceA := st.poolPriceOfA(p)
		if priceA <= 0 {
			continue
		}
		// Sell A more often the further its price is above where the pool opened.
		lean := math.Max(-0.4, math.Min(0.4, (priceA/p.Price-1)*20))
		sellA := rng.Float64() < 0.5+lean
		valueB := float64(p.DepthB) * float64(maxBps) / 10_000 * (0.2 + 0.8*rng.Float64())
		in, out, whole := p.TokenA, p.TokenB, valueB/priceA
		if !sellA {
			in, out, whole = p.TokenB, p.TokenA, valueB
		}
		f, _ := contracts.FixtureNamed(in)
		amount := wholeAmount(whole, f.Decimals)
		if amount.Sign() == 0 {
			continue
		}
		st.giveToken(in, st.s.sender.Address(), amount)
		st.send(in, nil, "approve", router, amount)
		st.send(contracts.UniswapRouter, nil, "exactInputSingle", uniswapExactInputSingle{
			TokenIn: st.s.addresses[in], TokenOut: st.s.addresses[out], Fee: big.NewInt(int64(p.Fee)), Recipient: st.s.sender.Address(),
			Deadline: big.NewInt(math.MaxInt64), AmountIn: amount, AmountOutMinimum: new(big.Int), SqrtPriceLimitX96: new(big.Int)})
		st.report.Paid[p.Name] = amount
	}
}

// poolPriceOfA is what one whole TokenA of a pool is worth in TokenB now, from the pool's sqrtPriceX96.
func (st *step) poolPriceOfA(p contracts.UniswapPool) float64 {
	sqrtP := st.read(p.Name, "slot0")
	if st.err != nil || sqrtP.Sign() == 0 {
		return 0
	}
	fa, _ := contracts.FixtureNamed(p.TokenA)
	fb, _ := contracts.FixtureNamed(p.TokenB)
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(sqrtP), new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96))).Float64()
	raw := s * s // token1 per token0, in base units
	a, b := st.s.addresses[p.TokenA], st.s.addresses[p.TokenB]
	if bytes.Compare(a.Bytes(), b.Bytes()) < 0 { // A is token0
		return raw * math.Pow10(int(fa.Decimals)-int(fb.Decimals))
	}
	return 1 / raw * math.Pow10(int(fa.Decimals)-int(fb.Decimals))
}

// wholeAmount is an amount of whole tokens in base units.
func wholeAmount(whole float64, decimals uint8) *big.Int {
	f := new(big.Float).SetFloat64(whole)
	f.Mul(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	out, _ := f.Int(nil)
	return out
}
