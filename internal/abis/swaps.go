package abis

// The contracts of swaps: Uniswap V3's factory (which pool serves a pair), pool (its price and liquidity) and QuoterV2
// (a swap's output, simulated against the pools as they are), as @uniswap/v3-core and @uniswap/v3-periphery publish
// them, and Sigil's own swap entry (the client fee, the swap, the bridge leg) and bridge. Pointed at another
// deployment of Uniswap V3 the first three work unchanged.
var (
	UniswapV3Factory = mustParse("UniswapV3Factory")
	UniswapV3Pool    = mustParse("UniswapV3Pool")
	UniswapV3Quoter  = mustParse("UniswapV3QuoterV2")
	SwapFeeRouter    = mustParse("SwapFeeRouter")
	SigilBridge      = mustParse("SigilBridge")
)
