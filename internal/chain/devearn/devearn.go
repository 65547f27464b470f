// Package devearn describes the dev chains' Earn deployment as the coordinator's Earn catalogue (internal/earn): the
// wrapper factory and reward distributor deployed with the fixtures, the chain's rewards API (the simulator plays
// Merkl), and the curated vaults — the Morpho vault over Morpho Blue's USDC/WETH market and Aave v3's USDC, USDT and
// WETH reserves. It lives beside the dev chain so that the coordinator links none of it.
package devearn

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/earn"
)

// The USD prices at which the dev chain's assets are shown and the catalogue is sorted: stablecoins at one dollar,
// WETH at the dev chain's ETH price (the price Morpho's oracle mock and Aave's feeds are set to).
const (
	stableUSD = 1
	wethUSD   = 3000
)

// Catalogue is the Earn catalogue of the dev chains, read from each chain at b.RPCURL (the Morpho vault's market).
func Catalogue(ctx context.Context, chains ...chain.Bootstrap) (*earn.Catalogue, error) {
	if len(chains) == 0 {
		return nil, errors.New("devearn: an Earn catalogue needs a dev chain")
	}
	c := &earn.Catalogue{}
	for _, b := range chains {
		n, err := network(ctx, b)
		if err != nil {
			return nil, err
		}
		c.Networks = append(c.Networks, n)
	}
	return c, c.Check()
}

func network(ctx context.Context, b chain.Bootstrap) (earn.Network, error) {
	a := map[string]common.Address{}
	for _, name := range []string{contracts.EarnFactory, contracts.EarnDistributor, contracts.MorphoName, contracts.MorphoVaultUSDC,
		contracts.AavePoolName, contracts.USDC, contracts.USDT, contracts.WETH} {
		s, ok := b.Contracts[name]
		if !ok || !common.IsHexAddress(s) {
			return earn.Network{}, fmt.Errorf("devearn: the dev chain has no %s contract", name)
		}
		a[name] = common.HexToAddress(s)
	}
	client, err := rpc.DialContext(ctx, b.RPCURL)
	if err != nil {
		return earn.Network{}, fmt.Errorf("devearn: %w", err)
	}
	defer client.Close()
	reads := earn.NewReads(client)
	market := reads.Add(&contracts.MustLoad(contracts.MorphoMarketVault).ABI, a[contracts.MorphoVaultUSDC], "marketId")
	if err := reads.Do(ctx); err != nil {
		return earn.Network{}, fmt.Errorf("devearn: the Morpho vault's market: %w", err)
	}
	id, _ := (*market)[0].([32]byte)
	usdc := earn.Asset{Address: a[contracts.USDC], Symbol: "USDC", Decimals: 6, PriceUSD: stableUSD}
	reserve := func(asset earn.Asset) earn.Vault {
		return earn.Vault{Address: asset.Address, Provider: earn.ProviderAave, Name: asset.Symbol, Asset: asset, AavePool: a[contracts.AavePoolName]}
	}
	return earn.Network{
		CAIP2: "eip155:" + strconv.FormatInt(b.ChainID, 10), Factory: a[contracts.EarnFactory], Distributor: a[contracts.EarnDistributor],
		RewardsAPI: b.RewardsURL,
		Vaults: []earn.Vault{
			{Address: a[contracts.MorphoVaultUSDC], Provider: earn.ProviderMorpho, Name: "Sigil Morpho USDC", Curator: "Sigil",
				Asset: usdc, Morpho: a[contracts.MorphoName], MarketIDs: []common.Hash{id}},
			reserve(usdc),
			reserve(earn.Asset{Address: a[contracts.USDT], Symbol: "USDT", Decimals: 6, PriceUSD: stableUSD}),
			reserve(earn.Asset{Address: a[contracts.WETH], Symbol: "WETH", Decimals: 18, PriceUSD: wethUSD}),
		},
	}, nil
}
