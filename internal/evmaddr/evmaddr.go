// Package evmaddr reads the EVM addresses people type, refusing what would send funds to the wrong account.
package evmaddr

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Parse reads a 0x-prefixed 20-byte hex address. All lower-case or all upper-case hex is taken as it is; mixed
// case must be a valid EIP-55 checksum, so that a typo in a checksummed address is caught instead of sending funds to
// the wrong account.
func Parse(s string) (common.Address, error) {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		shown := s
		if len(shown) > 60 {
			shown = shown[:60] + "…"
		}
		return common.Address{}, fmt.Errorf("%q is not a 0x-prefixed 20-byte hex address", shown)
	}
	a := common.HexToAddress(s)
	if hex := s[2:]; hex != strings.ToLower(hex) && hex != strings.ToUpper(hex) && a.Hex() != s {
		return common.Address{}, fmt.Errorf("%q has an invalid EIP-55 checksum (expected %s)", s, a.Hex())
	}
	return a, nil
}
