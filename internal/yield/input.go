package yield

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/evmaddr"
)

// parseAmount reads a decimal amount in token units ("1", "0.5") into base units, exactly. It refuses what is not a
// plain positive decimal number and more fractional digits than the token has; field names the request field.
func parseAmount(field, s string, decimals uint8, symbol string) (*big.Int, error) {
	if s == "" {
		return nil, fieldError(field, "is required: a decimal amount of %s such as \"1.5\"", symbol)
	}
	if len(s) > 100 {
		return nil, fieldError(field, "is too long to be an amount")
	}
	if s[0] == '-' {
		return nil, fieldError(field, "must be greater than zero, got %q", s)
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return nil, fieldError(field, "%q is not a decimal number such as \"12\" or \"12.5\"", s)
	}
	if len(frac) > int(decimals) {
		return nil, fieldError(field, "%q has %d decimal places but %s has %d", s, len(frac), symbol, decimals)
	}
	v, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", int(decimals)-len(frac)), 10)
	if v.Sign() == 0 {
		return nil, fieldError(field, "must be greater than zero, got %q", s)
	}
	return v, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseAddress reads a 0x-prefixed 20-byte hex address (evmaddr.Parse: mixed case must be a valid EIP-55
// checksum); field names the request field.
func parseAddress(field, s string) (common.Address, error) {
	if s == "" {
		return common.Address{}, fieldError(field, "is required: a 0x-prefixed 20-byte hex address")
	}
	a, err := evmaddr.Parse(s)
	if err != nil {
		return common.Address{}, fieldError(field, "%v", err)
	}
	return a, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
