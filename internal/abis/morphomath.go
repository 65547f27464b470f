package abis

import "math/big"

// Morpho Blue's arithmetic that both its readers (the yield service's Borrow API) and the dev chain's liquidator need
// to agree with the contract on: ConstantsLib's liquidation incentive and SharesMathLib's rounding with virtual shares.

var (
	morphoWAD          = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	morphoMaxLIF       = big.NewInt(1_150_000_000_000_000_000) // MAX_LIQUIDATION_INCENTIVE_FACTOR
	morphoCursor       = big.NewInt(300_000_000_000_000_000)   // LIQUIDATION_CURSOR
	morphoVirtualShare = big.NewInt(1_000_000)                 // VIRTUAL_SHARES; VIRTUAL_ASSETS is 1
)

// MorphoOraclePriceScale is Morpho's ORACLE_PRICE_SCALE: an oracle's price is loan units per collateral unit × 10^36.
var MorphoOraclePriceScale = new(big.Int).Exp(big.NewInt(10), big.NewInt(36), nil)

// MorphoLIF is the liquidation incentive factor of a market with that LLTV, both WAD:
// min(1.15, 1 / (1 − 0.3 × (1 − LLTV))), rounded as Morpho's liquidate rounds it (wMulDown, then wDivDown).
func MorphoLIF(lltv *big.Int) *big.Int {
	den := new(big.Int).Sub(morphoWAD, new(big.Int).Div(new(big.Int).Mul(morphoCursor, new(big.Int).Sub(morphoWAD, lltv)), morphoWAD))
	lif := new(big.Int).Div(new(big.Int).Mul(morphoWAD, morphoWAD), den)
	if lif.Cmp(morphoMaxLIF) > 0 {
		return new(big.Int).Set(morphoMaxLIF)
	}
	return lif
}

// MorphoToAssetsUp is SharesMathLib.toAssetsUp: the assets that shares are worth, rounded up (what a borrower owes).
func MorphoToAssetsUp(shares, totalAssets, totalShares *big.Int) *big.Int {
	n := new(big.Int).Mul(shares, new(big.Int).Add(totalAssets, big.NewInt(1)))
	d := new(big.Int).Add(totalShares, morphoVirtualShare)
	n.Add(n, new(big.Int).Sub(d, big.NewInt(1)))
	return n.Div(n, d)
}

// MorphoMarket is Morpho Blue's Market, as market(id) returns it and IIrm.borrowRateView takes it.
type MorphoMarket struct {
	TotalSupplyAssets *big.Int
	TotalSupplyShares *big.Int
	TotalBorrowAssets *big.Int
	TotalBorrowShares *big.Int
	LastUpdate        *big.Int
	Fee               *big.Int
}

// AsMorphoMarket is market(id)'s unpacked values as a MorphoMarket (zero where a value is missing).
func AsMorphoMarket(v []any) MorphoMarket {
	get := func(i int) *big.Int {
		if i < len(v) {
			if b, ok := v[i].(*big.Int); ok {
				return b
			}
		}
		return new(big.Int)
	}
	return MorphoMarket{get(0), get(1), get(2), get(3), get(4), get(5)}
}

// Accrued is the market with the interest at ratePerSecond (WAD, the IRM's borrowRateView) accrued from its last
// update to the time now, as Morpho's _accrueInterest and MorphoBalancesLib.expectedMarketBalances compute it (the fee
// only splits the supply side, whose total it does not change).
func (m MorphoMarket) Accrued(ratePerSecond *big.Int, now uint64) MorphoMarket {
	elapsed := new(big.Int).Sub(new(big.Int).SetUint64(now), m.LastUpdate)
	if elapsed.Sign() <= 0 || ratePerSecond.Sign() == 0 || m.TotalBorrowAssets.Sign() == 0 {
		return m
	}
	interest := wMulDown(m.TotalBorrowAssets, wTaylorCompounded(ratePerSecond, elapsed))
	m.TotalBorrowAssets = new(big.Int).Add(m.TotalBorrowAssets, interest)
	m.TotalSupplyAssets = new(big.Int).Add(m.TotalSupplyAssets, interest)
	return m
}

// Morpho Blue's MathLib.
func wMulDown(x, y *big.Int) *big.Int { return new(big.Int).Div(new(big.Int).Mul(x, y), morphoWAD) }

func wTaylorCompounded(x, n *big.Int) *big.Int {
	first := new(big.Int).Mul(x, n)
	second := new(big.Int).Div(new(big.Int).Mul(first, first), new(big.Int).Mul(big.NewInt(2), morphoWAD))
	third := new(big.Int).Div(new(big.Int).Mul(second, first), new(big.Int).Mul(big.NewInt(3), morphoWAD))
	return first.Add(first, second).Add(first, third)
}
