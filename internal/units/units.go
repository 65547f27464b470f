// Package units converts token amounts between the decimal units people write ("1.5" USDC) and the base units
// contracts count (1500000), exactly, with big integers.
package units

import (
	"fmt"
	"math/big"
	"strings"
)

// Parse converts a decimal amount in token units ("1", "0.5", "1000.000001") to base units
// (wei, or the token's smallest unit) exactly. It refuses signs, exponents, spaces and more
// fractional digits than the token has.
func Parse(amount string, decimals uint8) (*big.Int, error) {
	if amount == "" {
		return nil, fmt.Errorf("amount is empty")
	}
	whole, frac, hasDot := strings.Cut(amount, ".")
	if whole == "" || (hasDot && frac == "") {
		return nil, fmt.Errorf("amount %q is not a decimal number like 12 or 12.5", amount)
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return nil, fmt.Errorf("amount %q is not a decimal number like 12 or 12.5", amount)
			}
		}
	}
	if len(frac) > int(decimals) {
		return nil, fmt.Errorf("amount %q has %d decimal places, the token has %d", amount, len(frac), decimals)
	}
	digits := whole + frac + strings.Repeat("0", int(decimals)-len(frac))
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, fmt.Errorf("amount %q is not a decimal number", amount)
	}
	return v, nil
}

// Format is the inverse of Parse: base units to a decimal string without trailing zeros.
func Format(v *big.Int, decimals uint8) string {
	s := new(big.Int).Abs(v).String()
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	if decimals == 0 {
		return sign + s
	}
	if len(s) <= int(decimals) {
		s = strings.Repeat("0", int(decimals)-len(s)+1) + s
	}
	whole, frac := s[:len(s)-int(decimals)], strings.TrimRight(s[len(s)-int(decimals):], "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}
