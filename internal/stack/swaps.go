package stack

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/swap"
)

// devSwapVenue is a dev chain's swap venue: its Uniswap V3 deployment, Sigil's router and bridge, and the dev tokens
// with the native coin (through WETH), routed directly or through USDC or WETH, bridged as USDC or WETH.
func devSwapVenue(c chain.Bootstrap) swap.Venue {
	at := func(name string) common.Address { return common.HexToAddress(c.Contracts[name]) }
	v := swap.Venue{CAIP2: "eip155:" + strconv.FormatInt(c.ChainID, 10), RPCURL: c.RPCURL,
		Factory: at(contracts.UniswapFactory), Quoter: at(contracts.UniswapQuoter), Router: at(contracts.SwapRouterName),
		Bridge: at(contracts.Bridge), WETH: at(contracts.WETH), Intermediates: []common.Address{at(contracts.USDC), at(contracts.WETH)},
		BridgeSeconds: int64(2 * RelayerPeriod / time.Second),
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

// RelayerPeriod is how often the dev chains' bridge relayer looks for locks to release.
const RelayerPeriod = time.Second

// startRelayer runs the bridge relayer between the dev chains, when there are two.
func (s *Stack) startRelayer(nodes []*chain.Node, logger *slog.Logger) {
	if len(nodes) < 2 {
		return
	}
	r := chain.NewRelayer(nodes, logger)
	r.Start(RelayerPeriod)
	s.onClose("bridge relayer", r.Close)
}

// startSwaps gives the coordinator the dev chains' swap venues.
func (s *Stack) startSwaps(chains []chain.Bootstrap) error {
	var list []swap.Venue
	for _, c := range chains {
		if c.Contracts[contracts.SwapRouterName] != "" {
			list = append(list, devSwapVenue(c))
		}
	}
	if len(list) == 0 {
		return nil
	}
	venues, err := swap.NewVenues(list)
	if err != nil {
		return err
	}
	s.onClose("swap venues", func() error { venues.Close(); return nil })
	s.coord.UseSwapVenues(venues)
	return nil
}
