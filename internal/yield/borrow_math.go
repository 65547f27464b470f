package yield

import (
	"math/big"
	"strings"
)

// The Borrow API's numbers: rates, LTVs, health factors and penalties are decimal strings ("0.0567" is 5.67%), never
// floats; amounts are exact. A rate that compounds (an APY) is computed at 256 bits of precision and truncated to 18
// decimal places, so every digit shown is right.

const ratePrecision = 256

// decimalPlaces is how many decimal places the Borrow API's ratios and rates show (a WAD's precision).
const decimalPlaces = 18

// ratString is r in decimal, truncated to 18 places, trailing zeros dropped ("0.77", "1", "0").
func ratString(r *big.Rat) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(decimalPlaces), nil)
	n := new(big.Int).Mul(r.Num(), scale)
	n.Quo(n, r.Denom()) // toward zero
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	if len(digits) <= decimalPlaces {
		digits = strings.Repeat("0", decimalPlaces-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimalPlaces], strings.TrimRight(digits[len(digits)-decimalPlaces:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

func floatString(f *big.Float) string {
	r, _ := f.Rat(nil)
	return ratString(r)
}

// fraction is n/d, 0 when d is 0.
func fraction(n, d *big.Int) *big.Rat {
	if d.Sign() == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(n, d)
}

func newFloat() *big.Float { return new(big.Float).SetPrec(ratePrecision) }

// apyPerSecond is (1 + apr / year)^year − 1: an annual rate compounded every second, as Aave's indexes compound it.
func apyPerSecond(apr *big.Rat) string {
	x := newFloat().SetRat(new(big.Rat).Quo(apr, big.NewRat(secondsPerYear, 1)))
	x.Add(x, newFloat().SetInt64(1))
	result := newFloat().SetInt64(1)
	for n := uint64(secondsPerYear); n > 0; n >>= 1 { // exponentiation by squaring
		if n&1 == 1 {
			result.Mul(result, x)
		}
		x.Mul(x, x)
	}
	return floatString(result.Sub(result, newFloat().SetInt64(1)))
}

// apyContinuous is e^(ratePerSecond × year) − 1: a per-second rate compounded continuously, as Morpho Blue's
// wTaylorCompounded approximates it.
func apyContinuous(ratePerSecondWad *big.Int) string {
	x := newFloat().SetRat(new(big.Rat).SetFrac(new(big.Int).Mul(ratePerSecondWad, big.NewInt(secondsPerYear)), wad))
	sum, term := newFloat(), newFloat().SetInt64(1)
	for k := int64(1); k < 200; k++ { // e^x − 1 = Σ x^k / k!
		term.Mul(term, x)
		term.Quo(term, newFloat().SetInt64(k))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -ratePrecision {
			break
		}
	}
	return floatString(sum)
}

const secondsPerYear = 365 * 24 * 3600

// bpsRat is a value in basis points as a fraction.
func bpsRat(v *big.Int) *big.Rat { return new(big.Rat).SetFrac(v, big.NewInt(10_000)) }

// ptr is a pointer to a copy of v, for the DTOs' nullable fields.
func ptr[T any](v T) *T { return &v }
