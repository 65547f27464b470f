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
