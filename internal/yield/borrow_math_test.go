package yield

import (
	"math/big"
	"testing"
)

func TestRatString(t *testing.T) {
	for _, tc := range []struct {
		r    *big.Rat
		want string
	}{
		{big.NewRat(77, 100), "0.77"},
		{big.NewRat(1, 1), "1"},
		{new(big.Rat), "0"},
		{big.NewRat(1, 3), "0.333333333333333333"},
		{big.NewRat(2, 3), "0.666666666666666666"}, // truncated, never rounded up
		{big.NewRat(-1, 2), "-0.5"},
		{new(big.Rat).SetFrac(big.NewInt(-1), new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil)), "0"},
		{big.NewRat(123456789, 1000), "123456.789"},
	} {
		if got := ratString(tc.r); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.r, got, tc.want)
		}
	}
}

// The rates against the closed forms, to every one of the 18 places shown (computed at 80 digits with Python's
// decimal module): (1 + 0.05 / year)^year − 1, and e^x − 1 for the per-second WAD rate 1585489599 (x = that × year / 10^18).
func TestBorrowRates(t *testing.T) {
	if got := apyPerSecond(big.NewRat(5, 100)); got != "0.051271096334354555" {
		t.Errorf("5%% compounded per second: %s", got)
	}
	if got := apyContinuous(big.NewInt(1585489599)); got != "0.051271096369783694" {
		t.Errorf("1585489599 per second, compounded continuously: %s", got)
	}
	if got := apyPerSecond(new(big.Rat)); got != "0" {
		t.Errorf("no rate: %s", got)
	}
	if got := apyContinuous(new(big.Int)); got != "0" {
		t.Errorf("no rate: %s", got)
	}
}
