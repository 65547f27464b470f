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
