package devcatalogue

import (
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/swap"
)

// SwapVenue is a dev chain's swap venue: its Uniswap V3 deployment, Sigil's router and bridge, and the dev tokens with
// the native coin (through WETH), routed directly or through USDC or WETH, bridged as USDC or WETH; relayed every
// relayerPeriod.
func SwapVenue(c chain.Bootstrap, relayerPeriod time.Duration) swap.Venue {
	at := func(name string) common.Address { return common.HexToAddress(c.Contracts[name]) }
	v := swap.Venue{CAIP2: "eip155:" + strconv.FormatInt(c.ChainID, 10), RPCURL: c.RPCURL,
		Factory: at(contracts.UniswapFactory), Quoter: at(contracts.UniswapQuoter), Router: at(contracts.SwapRouterName),
		Bridge: at(contracts.Bridge), WETH: at(contracts.WETH), Intermediates: []common.Address{at(contracts.USDC), at(contracts.WETH)},
		BridgeSeconds: int64(2 * relayerPeriod / time.Second),
		Tokens:        []swap.Token{{Symbol: "ETH", Decimals: 18}, {Address: at(contracts.WETH), Symbol: "WETH", Decimals: 18}}}
	for _, t := range contracts.Tokens() {
		f, _ := contracts.FixtureNamed(t)
		v.Tokens = append(v.Tokens, swap.Token{Address: at(t), Symbol: t, Decimals: f.Decimals, Stable: t != contracts.Incentive})
	}
	for _, t := range contracts.BridgeTokens {
		v.BridgeTokens = append(v.BridgeTokens, at(t))
	}
	return v
}
