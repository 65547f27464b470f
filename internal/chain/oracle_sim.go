package chain

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

// The prices of the dev chain's lending markets. Aave v3's oracle (AaveOracle over one Chainlink-style feed per asset,
// USD with 8 decimals) is where the dev chain keeps them; Morpho Blue's oracles (a price of the collateral in loan
// units, scaled by 10^36) follow from it: the USDC/WETH market's is WETH's price in USDC, the vault-collateral
// market's the value of one vault share (the vault's convertToAssets) in USDT. SetPrice moves a price on both protocols
// at once and brings both Morpho oracles in step, the vault's share price included. A simulator step leaves them
// (so that it sends no transaction beyond the yield it pays, and an idle chain stays idle) unless its price walk is on
// (SimulatorConfig.PriceWalkBps), which moves WETH a little at every step. Either way a position can become
// liquidatable, and the keeper then liquidates it (keeper.go).

// pricedAssets are the assets whose USD price SetPrice moves (fixture names).
var pricedAssets = []string{contracts.USDC, contracts.USDT, contracts.WETH}

// SetPrice makes asset (USDC, USDT or weth) worth usd8 US dollars with 8 decimals (3000_0000_0000 is $3,000) on Aave
// v3 and on both Morpho markets. Aave's feeds answer a fixed price, as its mocks do, so the price is a new feed for the
// asset, set as a pool admin sets a source (AaveOracle.setAssetSources): Aave's own code reads it from the next block.
func (s *Simulator) SetPrice(ctx context.Context, asset string, usd8 *big.Int) error {
	if !slices.Contains(pricedAssets, asset) {
		return fmt.Errorf("chain: simulator: %q has no price (%v)", asset, pricedAssets)
	}
	if usd8.Sign() <= 0 {
		return fmt.Errorf("chain: simulator: a price must be above 0, got %s", usd8)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &step{s: s, ctx: ctx, report: StepReport{Paid: map[string]*big.Int{}, Prices: map[string]*big.Int{}}}
	st.setPrice(asset, usd8)
	return st.err
}

// setPrice sets asset's feed on Aave's oracle and brings the Morpho oracles in step.
func (st *step) setPrice(asset string, usd8 *big.Int) {
	if st.err != nil {
		return
	}
	data, err := contracts.MustLoad(contracts.AaveMockAggregator).DeployData(usd8)
	if err != nil {
		st.err = err
		return
	}
	receipt, err := st.s.sender.Transact(st.ctx, nil, nil, data)
	if err != nil {
		st.err = fmt.Errorf("chain: simulator: deploy a price feed: %w", err)
		return
	}
	if err := sendTo(st.ctx, st.s.sender, st.s.addresses, contracts.AaveOracleName, nil, "setAssetSources",
		[]common.Address{st.s.addresses[asset]}, []common.Address{receipt.ContractAddress}); err != nil {
		st.err = err
		return
	}
	st.oracles()
}

// priceWalk moves WETH's price by a random 1 to PriceWalkBps basis points, up or down, when the walk is on. The
// stablecoins stay at their prices: the walk is the volatile collateral's.
func (st *step) priceWalk() {
	bps := st.s.cfg.PriceWalkBps
	if bps <= 0 || st.err != nil {
		return
	}
	price := st.read(contracts.AaveOracleName, "getAssetPrice", st.s.addresses[contracts.WETH])
	if st.err != nil {
		return
	}
	move := 1 + rand.Int64N(bps)
	if rand.IntN(2) == 0 {
		move = -move
	}
	next := new(big.Int).Div(new(big.Int).Mul(price, big.NewInt(10_000+move)), big.NewInt(10_000))
	if next.Sign() <= 0 {
		next = big.NewInt(1)
	}
	st.setPrice(contracts.WETH, next)
	st.report.Prices[contracts.WETH] = next
}

// Price is asset's USD price on Aave v3's oracle, 8 decimals.
func (s *Simulator) Price(ctx context.Context, asset string) (*big.Int, error) {
	return readUint(ctx, s.client, s.addresses, contracts.AaveOracleName, "getAssetPrice", s.addresses[asset])
}

// oracles sets each Morpho oracle to the price that follows from Aave's, when it differs (so an idle chain stays idle:
// no transaction, no block).
func (st *step) oracles() {
	usd := map[string]*big.Int{}
	for _, asset := range pricedAssets {
		usd[asset] = st.read(contracts.AaveOracleName, "getAssetPrice", st.s.addresses[asset])
	}
	one := big.NewInt(1_000_000) // one whole svUSDC share (6 decimals)
	share := st.read(contracts.VaultUSDC, "convertToAssets", one)
	if st.err != nil {
		return
	}
	shareUSD := new(big.Int).Div(new(big.Int).Mul(usd[contracts.USDC], share), one)
	for oracle, price := range map[string]*big.Int{
		contracts.MorphoOracle:      contracts.MorphoOraclePrice(usd[contracts.WETH], usd[contracts.USDC], 18, 6),
		contracts.MorphoVaultOracle: contracts.MorphoOraclePrice(shareUSD, usd[contracts.USDT], 6, 6),
	} {
		if st.read(oracle, "price").Cmp(price) != 0 {
			st.send(oracle, nil, "setPrice", price)
		}
	}
}
