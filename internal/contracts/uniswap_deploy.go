package contracts

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// UniswapPool is one pool the dev chain's Uniswap V3 deployment opens: two tokens (fixture names), the fee tier in
// hundredths of a basis point (Uniswap's unit: 500 is 0.05%), the price it opens at (one whole TokenA is worth Price
// whole TokenB) and the value, in TokenB, it holds on each side. Two thirds of the liquidity spans every price, as in
// Uniswap V2; a third sits within 10% of the opening price, so swaps near it cross initialized ticks as they do on a
// live pool.
type UniswapPool struct {
	Name           string
	TokenA, TokenB string
	Fee            uint32
	Price          float64
	DepthB         int64
}

// UniswapPools are the pools of the dev tokens, at the prices the rest of the dev chain uses (3,000 USD per WETH, the
// stablecoins and the incentive token at 1 USD): stablecoin pairs on Uniswap's 0.01% tier, WETH/USDC on 0.05%, the
// others on 0.3%, as on Ethereum.
var UniswapPools = []UniswapPool{
	{UniswapPoolUSDCWETH, WETH, USDC, 500, 3000, 900_000},
	{UniswapPoolUSDTWETH, WETH, USDT, 3000, 3000, 600_000},
	{UniswapPoolUSDCUSDT, USDC, USDT, 100, 1, 2_000_000},
	{UniswapPoolDAIUSDC, DAI, USDC, 100, 1, 1_000_000},
	{UniswapPoolIncentiveUSDC, Incentive, USDC, 3000, 1, 250_000},
}

// UniswapTickSpacing is the tick spacing the factory gives each fee tier (100 enabled by the deployer, as Uniswap's
// governance did on Ethereum).
var UniswapTickSpacing = map[uint32]int64{100: 1, 500: 10, 3000: 60, 10000: 200}

// Uniswap V3's tick range (TickMath.MIN_TICK, MAX_TICK).
const uniswapMaxTick = 887272

// BridgeTokens are the tokens Sigil's bridge carries between the dev chains, and BridgeInventory what the deployer
// puts in each chain's bridge of each, in whole tokens, to release what the other chain locks.
var (
	BridgeTokens    = []string{USDC, WETH}
	BridgeInventory = map[string]int64{USDC: 2_000_000, WETH: 300}
)

// DefaultBridgeChains are the chains whose bridges the dev chain's bridge has routes to: the two dev chains.
var DefaultBridgeChains = []int64{1337, 1338}

// UniswapMintParams is INonfungiblePositionManager.MintParams.
type UniswapMintParams struct {
	Token0, Token1                 common.Address
	Fee                            *big.Int
	TickLower, TickUpper           *big.Int
	Amount0Desired, Amount1Desired *big.Int
	Amount0Min, Amount1Min         *big.Int
	Recipient                      common.Address
	Deadline                       *big.Int
}

// uniswap deploys Uniswap V3's own contracts as @uniswap/v3-core and -periphery publish them — the factory, the
// position manager with its token descriptor (over the NFTDescriptor library), SwapRouter and QuoterV2 — opens the
// pools of UniswapPools with the deployer's liquidity, then deploys Sigil's swap entry and bridge over them and
// stocks the bridge.
func (d *deployer) uniswap() {
	weth := d.out[WETH]
	factory := d.deploy(UniswapFactory, UniswapV3Factory)
	d.call(UniswapFactory, UniswapV3Factory, "enableFeeAmount", big.NewInt(100), big.NewInt(1))
	library := d.create(UniswapV3NFTDescriptor, nil)
	var label [32]byte
	copy(label[:], "ETH")
	descriptor := d.create(UniswapV3PositionDescriptor, map[string]common.Address{UniswapV3NFTDescriptor: library}, weth, label)
	d.out[UniswapPositionDescriptor] = descriptor
	d.deploy(UniswapPositionManager, UniswapV3PositionManager, factory, weth, descriptor)
	d.deploy(UniswapRouter, UniswapV3SwapRouter, factory, weth)
	d.deploy(UniswapQuoter, UniswapV3QuoterV2, factory, weth)
	for _, p := range UniswapPools {
		d.openPool(p)
	}
	d.deploy(SwapRouterName, SwapFeeRouter, d.out[UniswapRouter], weth)
	d.bridge()
}

// openPool creates and initializes a pool at its price through the position manager, records its address and adds
// the deployer's two positions.
func (d *deployer) openPool(p UniswapPool) {
	if d.err != nil {
		return
	}
	a, b := d.out[p.TokenA], d.out[p.TokenB]
	decA, decB := d.decimals(p.TokenA), d.decimals(p.TokenB)
	// Uniswap orders a pool's tokens by address; its price is token1 per token0, in base units.
	token0, token1, dec0, dec1, price := a, b, decA, decB, p.Price
	if token1.Cmp(token0) < 0 {
		token0, token1, dec0, dec1, price = b, a, decB, decA, 1/p.Price
	}
	rawPrice := price * math.Pow10(int(dec1)-int(dec0))
	manager := d.out[UniswapPositionManager]
	fee := big.NewInt(int64(p.Fee))
	d.call(UniswapPositionManager, UniswapV3PositionManager, "createAndInitializePoolIfNecessary", token0, token1, fee, SqrtPriceX96(rawPrice))
	d.read(p.Name, UniswapFactory, UniswapV3Factory, "getPool", token0, token1, fee)

	// Each side holds DepthB worth of TokenB: two thirds over the full range, a third within 10% of the price.
	depthA := float64(p.DepthB) / p.Price
	amountA, amountB := wholeUnits(depthA, decA), units(p.DepthB, int(decB))
	amount0, amount1 := amountA, amountB
	if token0 != a {
		amount0, amount1 = amountB, amountA
	}
	d.fund(p.TokenA, amountA, manager)
	d.fund(p.TokenB, amountB, manager)
	spacing := UniswapTickSpacing[p.Fee]
	tick := math.Log(rawPrice) / math.Log(1.0001)
	full := [2]int64{-uniswapMaxTick / spacing * spacing, uniswapMaxTick / spacing * spacing}
	near := [2]int64{floorTo(tick+math.Log(0.9)/math.Log(1.0001), spacing), floorTo(tick+math.Log(1.1)/math.Log(1.0001), spacing) + spacing}
	for _, position := range []struct {
		ticks [2]int64
		share int64 // thirds
	}{{full, 2}, {near, 1}} {
		d.call(UniswapPositionManager, UniswapV3PositionManager, "mint", UniswapMintParams{
			Token0: token0, Token1: token1, Fee: fee,
			TickLower: big.NewInt(position.ticks[0]), TickUpper: big.NewInt(position.ticks[1]),
			Amount0Desired: thirds(amount0, position.share), Amount1Desired: thirds(amount1, position.share),
			Amount0Min: new(big.Int), Amount1Min: new(big.Int), Recipient: d.s.Address(), Deadline: big.NewInt(math.MaxInt64),
		})
	}
}

// bridge deploys Sigil's bridge, makes the deployer its relayer, opens the routes of BridgeTokens to the other
// chains (to the same token there: every dev chain's fixtures sit at the same addresses) and stocks its inventory.
func (d *deployer) bridge() {
	owner := d.s.Address()
	bridge := d.deploy(Bridge, SigilBridge, d.out[UniswapRouter], owner)
	d.call(Bridge, SigilBridge, "setRelayer", owner, true)
	self := d.chainID()
	for _, peer := range d.cfg.BridgeChains {
		if peer == self {
			continue
		}
		for _, token := range BridgeTokens {
			d.call(Bridge, SigilBridge, "setRoute", d.out[token], big.NewInt(peer), d.out[token])
		}
	}
	for _, token := range BridgeTokens {
		amount := units(BridgeInventory[token], int(d.decimals(token)))
		d.fund(token, amount, common.Address{})
		d.call(token, TestToken, "transfer", bridge, amount)
	}
}

// fund gives the deployer amount of a token fixture (minted, or wrapped for WETH) and, unless spender is zero,
// approves spender for it.
func (d *deployer) fund(token string, amount *big.Int, spender common.Address) {
	if token == WETH {
		d.send(WETH, WrappedEther, amount, "deposit")
	} else {
		d.call(token, TestToken, "mint", d.s.Address(), amount)
	}
	if spender != (common.Address{}) {
		d.call(token, TestToken, "approve", spender, amount)
	}
}

func (d *deployer) decimals(token string) uint8 {
	f, ok := FixtureNamed(token)
	if !ok {
		d.err = fmt.Errorf("no fixture %s", token)
	}
	return f.Decimals
}

// chainID is the chain's id, read from the caller when it can tell (an ethclient or the simulated backend's client).
func (d *deployer) chainID() int64 {
	c, ok := d.caller.(interface {
		ChainID(context.Context) (*big.Int, error)
	})
	if !ok || d.err != nil {
		return 0
	}
	id, err := c.ChainID(d.ctx)
	if err != nil {
		d.err = fmt.Errorf("read the chain id: %w", err)
		return 0
	}
	return id.Int64()
}

// SqrtPriceX96 is Uniswap V3's encoding of a price (token1 per token0, in base units): its square root in Q64.96.
func SqrtPriceX96(rawPrice float64) *big.Int {
	p := new(big.Float).SetPrec(256).SetFloat64(rawPrice)
	p.Sqrt(p)
	p.Mul(p, new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96)))
	out, _ := p.Int(nil)
	return out
}

// wholeUnits is an amount of whole tokens (with a fraction) in base units of a token with dec decimals.
func wholeUnits(whole float64, dec uint8) *big.Int {
	f := new(big.Float).SetPrec(256).SetFloat64(whole)
	f.Mul(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)))
	out, _ := f.Int(nil)
	return out
}

func thirds(amount *big.Int, n int64) *big.Int {
	return new(big.Int).Div(new(big.Int).Mul(amount, big.NewInt(n)), big.NewInt(3))
}

// floorTo rounds a tick down to a multiple of spacing.
func floorTo(tick float64, spacing int64) int64 {
	return int64(math.Floor(tick/float64(spacing))) * spacing
}
