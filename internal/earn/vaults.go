package earn

import (
	"context"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
)

// VaultState is what a curated vault publishes on chain now.
type VaultState struct {
	TVL       *big.Int // the assets the vault holds, in base units of its asset
	Liquidity *big.Int // what can be withdrawn from it now, without a reallocation
	APY       float64  // its suppliers' annual yield, compounded, before any wrapper's fees
	Exposures []Exposure
	// Open is false for an Aave reserve that is inactive, frozen or paused: the reference leaves those out.
	Open bool
}

// Exposure is one Morpho Blue market a vault supplies to.
type Exposure struct {
	MarketID        common.Hash
	Collateral      common.Address // zero for an idle market
	CollateralToken string         // its symbol
	LLTV            float64        // the liquidation loan-to-value, a fraction
	Supplied        *big.Int       // the vault's supply in the market, in base units of the vault's asset
	APY             float64
}

const secondsPerYear = 365 * 24 * 3600

var (
	wad = new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	ray = new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil))
	// Morpho Blue's virtual shares and assets (SharesMathLib), by which supply shares convert to assets.
	morphoVirtualShares = big.NewInt(1_000_000)
)

// The bits of Aave v3's reserve configuration that close a reserve to deposits (ReserveConfiguration).
const (
	aaveActiveBit = 56
	aaveFrozenBit = 57
	aavePausedBit = 60
)

// ReadVaults reads what each vault publishes, in two batched round trips to the network's node.
func ReadVaults(ctx context.Context, client *rpc.Client, vaults []Vault) ([]VaultState, error) {
	first, second := NewReads(client), NewReads(client)
	queued := make([]readStep, len(vaults))
	for i := range vaults {
		v := &vaults[i]
		if v.Provider == ProviderAave {
			queued[i] = readAave(first, second, v)
		} else {
			queued[i] = readMorpho(first, second, v)
		}
	}
	if err := first.Do(ctx); err != nil {
		return nil, err
	}
	finish := make([]func() VaultState, len(vaults))
	for i, q := range queued { // the second round's calls depend on the first's answers
		var err error
		if finish[i], err = q(); err != nil {
			return nil, err
		}
	}
	if err := second.Do(ctx); err != nil {
		return nil, err
	}
	out := make([]VaultState, len(vaults))
	for i, f := range finish {
		out[i] = f()
	}
	return out, nil
}

// readStep reads the first round's answers, queues the second round's calls and returns what makes the state of
// their answers.
type readStep func() (func() VaultState, error)

// readAave queues an Aave reserve's reads: its reserve data, then its aToken's supply and the asset it holds.
func readAave(first, second *Reads, v *Vault) readStep {
	reserve := first.Add(&abis.AaveV3Pool, v.AavePool, "getReserveData", v.Asset.Address)
	return func() (func() VaultState, error) {
		d, err := abis.AsReserveData((*reserve)[0])
		if err != nil {
			return nil, err
		}
		supply := second.Add(&abis.ERC20, d.ATokenAddress, "totalSupply")
		idle := second.Add(&abis.ERC20, v.Asset.Address, "balanceOf", d.ATokenAddress)
		cfg := d.Configuration.Data
		open := cfg.Bit(aaveActiveBit) == 1 && cfg.Bit(aaveFrozenBit) == 0 && cfg.Bit(aavePausedBit) == 0
		rate, _ := new(big.Float).Quo(new(big.Float).SetInt(d.CurrentLiquidityRate), ray).Float64()
		// Aave compounds its liquidity rate (an annual rate, not compounded) every second.
		apy := math.Expm1(float64(secondsPerYear) * math.Log1p(rate/secondsPerYear))
		return func() VaultState {
			return VaultState{TVL: firstUint(*supply), Liquidity: firstUint(*idle), APY: apy, Open: open}
		}, nil
	}
}

// readMorpho queues a Morpho vault's reads: its assets and, for each of its markets, the market's state, parameters
// and the vault's position; then each market's borrow rate and its collateral's symbol.
func readMorpho(first, second *Reads, v *Vault) readStep {
	tvl := first.Add(&abis.ERC4626, v.Address, "totalAssets")
	type market struct{ state, params, position *[]any }
	markets := make([]market, len(v.MarketIDs))
	for i, id := range v.MarketIDs {
		markets[i] = market{
			state:    first.Add(&abis.MorphoBlue, v.Morpho, "market", id),
			params:   first.Add(&abis.MorphoBlue, v.Morpho, "idToMarketParams", id),
			position: first.Add(&abis.MorphoBlue, v.Morpho, "position", id, v.Address),
		}
	}
	return func() (func() VaultState, error) {
		type pending struct {
			exposure Exposure
			rate     *[]any
			symbol   *[]any
			util     float64
			fee      float64
		}
		var ps []pending
		liquidity := new(big.Int)
		for i, m := range markets {
			s, p := *m.state, *m.params
			totalSupply, totalSupplyShares, totalBorrow, fee := s[0].(*big.Int), s[1].(*big.Int), s[2].(*big.Int), s[5].(*big.Int)
			params := marketParams{LoanToken: p[0].(common.Address), CollateralToken: p[1].(common.Address),
				Oracle: p[2].(common.Address), Irm: p[3].(common.Address), Lltv: p[4].(*big.Int)}
			supplied := new(big.Int).Mul((*m.position)[0].(*big.Int), new(big.Int).Add(totalSupply, big.NewInt(1)))
			supplied.Div(supplied, new(big.Int).Add(totalSupplyShares, morphoVirtualShares))
			idle := new(big.Int).Sub(totalSupply, totalBorrow)
			liquidity.Add(liquidity, minInt(supplied, idle))
			e := pending{exposure: Exposure{MarketID: v.MarketIDs[i], Collateral: params.CollateralToken, LLTV: ratio(params.Lltv, wad),
				Supplied: supplied}, fee: ratio(fee, wad)}
			if totalSupply.Sign() > 0 {
				e.util = ratio(totalBorrow, new(big.Float).SetInt(totalSupply))
			}
			if params.Irm != (common.Address{}) {
				e.rate = second.Add(&abis.MorphoIrm, params.Irm, "borrowRateView", params, marketState(s))
			}
			if params.CollateralToken != (common.Address{}) {
				e.symbol = second.Add(&abis.ERC20, params.CollateralToken, "symbol")
			}
			ps = append(ps, e)
		}
		return func() VaultState {
			st := VaultState{TVL: firstUint(*tvl), Liquidity: liquidity, Open: true}
			total, weighted := 0.0, 0.0
			for _, p := range ps {
				if p.rate != nil {
					perSecond := ratio((*p.rate)[0].(*big.Int), wad)
					p.exposure.APY = math.Expm1(perSecond * secondsPerYear * p.util * (1 - p.fee))
				}
				if p.symbol != nil {
					p.exposure.CollateralToken, _ = (*p.symbol)[0].(string)
				}
				s, _ := new(big.Float).SetInt(p.exposure.Supplied).Float64()
				total += s
				weighted += s * p.exposure.APY
				st.Exposures = append(st.Exposures, p.exposure)
			}
			if total > 0 {
				st.APY = weighted / total
			}
			return st
		}, nil
	}
}

// marketParams and marketTuple are Morpho Blue's MarketParams and Market as the ABI encoder takes them.
type marketParams struct {
	LoanToken       common.Address
	CollateralToken common.Address
	Oracle          common.Address
	Irm             common.Address
	Lltv            *big.Int
}

type marketTuple struct {
	TotalSupplyAssets *big.Int
	TotalSupplyShares *big.Int
	TotalBorrowAssets *big.Int
	TotalBorrowShares *big.Int
	LastUpdate        *big.Int
	Fee               *big.Int
}

func marketState(s []any) marketTuple {
	return marketTuple{s[0].(*big.Int), s[1].(*big.Int), s[2].(*big.Int), s[3].(*big.Int), s[4].(*big.Int), s[5].(*big.Int)}
}

func firstUint(out []any) *big.Int {
	if len(out) > 0 {
		if v, ok := out[0].(*big.Int); ok {
			return v
		}
	}
	return new(big.Int)
}

func ratio(n *big.Int, scale *big.Float) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(n), scale).Float64()
	return f
}

func minInt(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return new(big.Int).Set(a)
	}
	return new(big.Int).Set(b)
}
