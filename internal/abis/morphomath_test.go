package abis

import (
	"math/big"
	"testing"
)

func wadOf(s string) *big.Int {
	r, _ := new(big.Rat).SetString(s)
	r.Mul(r, new(big.Rat).SetInt(morphoWAD))
	return new(big.Int).Quo(r.Num(), r.Denom())
}

// The liquidation incentive factors Morpho's documentation lists for the LLTVs its governance enables (to 4 places),
// and the exact WAD of the dev chain's 86% market.
func TestMorphoLIF(t *testing.T) {
	for lltv, want := range map[string]string{"0.385": "1.1500", "0.625": "1.1267", "0.77": "1.0741", "0.86": "1.0438",
		"0.915": "1.0261", "0.945": "1.0167", "0.965": "1.0106", "0.98": "1.0060"} {
		lif := MorphoLIF(wadOf(lltv))
		if got := new(big.Rat).SetFrac(lif, morphoWAD).FloatString(5)[:6]; got != want {
			t.Errorf("LLTV %s: LIF %s, want %s", lltv, got, want)
		}
	}
	// 10^36 / (10^18 − 0.3 × 0.14 × 10^18), rounded down.
	if got := MorphoLIF(wadOf("0.86")); got.String() != "1043841336116910229" {
		t.Errorf("LIF at 86%%: %s", got)
	}
}

// A first borrower's shares (toSharesDown of an empty market: assets × 10^6) are worth exactly what was borrowed; one
// share more is rounded up to a whole base unit, as a debt is.
func TestMorphoToAssetsUp(t *testing.T) {
	borrowed := big.NewInt(800_000_000)
	shares := new(big.Int).Mul(borrowed, morphoVirtualShare)
	if got := MorphoToAssetsUp(shares, borrowed, shares); got.Cmp(borrowed) != 0 {
		t.Errorf("800 USDT of shares are worth %s", got)
	}
	if got := MorphoToAssetsUp(new(big.Int).Add(shares, big.NewInt(1)), borrowed, shares); got.Cmp(big.NewInt(800_000_001)) != 0 {
		t.Errorf("one share more: %s", got)
	}
	if got := MorphoToAssetsUp(new(big.Int), borrowed, shares); got.Sign() != 0 {
		t.Errorf("no shares: %s", got)
	}
}

// A year of interest at the per-second rate of 5% a year compounds to e^0.05 − 1 ≈ 5.1271% (Morpho's three Taylor
// terms fall short of it by under 3 × 10^-7); supply gains what borrowers owe; nothing accrues without time or debt.
func TestMorphoAccrued(t *testing.T) {
	total := big.NewInt(1_000_000_000_000) // 1,000,000 USDC
	m := MorphoMarket{TotalSupplyAssets: new(big.Int).Mul(total, big.NewInt(2)), TotalSupplyShares: new(big.Int),
		TotalBorrowAssets: total, TotalBorrowShares: new(big.Int), LastUpdate: big.NewInt(1_000), Fee: new(big.Int)}
	year := uint64(365 * 24 * 3600)
	a := m.Accrued(big.NewInt(1585489599), 1_000+year)
	interest := new(big.Int).Sub(a.TotalBorrowAssets, total)
	if interest.Cmp(big.NewInt(51_270_800_000)) < 0 || interest.Cmp(big.NewInt(51_271_096_377)) > 0 {
		t.Errorf("a year at 5%%: %s of interest on %s", interest, total)
	}
	if got := new(big.Int).Sub(a.TotalSupplyAssets, m.TotalSupplyAssets); got.Cmp(interest) != 0 {
		t.Errorf("supply gained %s, borrowers owe %s more", got, interest)
	}
	if m.TotalBorrowAssets.Cmp(total) != 0 {
		t.Error("Accrued changed the market it was given")
	}
	for _, same := range []MorphoMarket{m.Accrued(big.NewInt(1585489599), 1_000), m.Accrued(new(big.Int), 1_000+year)} {
		if same.TotalBorrowAssets.Cmp(total) != 0 {
			t.Errorf("accrued without time or rate: %s", same.TotalBorrowAssets)
		}
	}
}
