package abis_test

import (
	"encoding/hex"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/sigil/sigil/internal/abis"
)

// The standard interfaces have the standard selectors, so that calldata built from them works against any deployment
// (the selectors are the first four bytes of keccak256 of each signature, as EIP-20, EIP-4626 and Aave v3 publish them).
func TestStandardSelectors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		abi       abi.ABI
		selectors map[string]string
	}{
		{"ERC20", abis.ERC20, map[string]string{"transfer": "a9059cbb", "approve": "095ea7b3", "allowance": "dd62ed3e",
			"balanceOf": "70a08231", "decimals": "313ce567", "symbol": "95d89b41", "name": "06fdde03"}},
		{"ERC4626", abis.ERC4626, map[string]string{"asset": "38d52e0f", "deposit": "6e553f65", "redeem": "ba087652",
			"withdraw": "b460af94", "convertToAssets": "07a2d13a", "previewRedeem": "4cdad506", "totalAssets": "01e1d114"}},
		{"AaveV3Pool", abis.AaveV3Pool, map[string]string{"supply": "617ba037", "withdraw": "69328dec", "getReserveData": "35ea6a75"}},
	} {
		for method, want := range tc.selectors {
			m, ok := tc.abi.Methods[method]
			if !ok {
				t.Errorf("%s has no %s", tc.name, method)
				continue
			}
			if got := hex.EncodeToString(m.ID); got != want {
				t.Errorf("%s.%s: selector %s, want %s", tc.name, m.Sig, got, want)
			}
		}
	}
}

// JSON answers for the ABIs the package holds and for no other.
func TestJSON(t *testing.T) {
	t.Parallel()
	if data, ok := abis.JSON("TestToken"); !ok || len(data) == 0 {
		t.Errorf("TestToken: %d bytes, %v", len(data), ok)
	}
	if _, ok := abis.JSON("AavePool"); ok {
		t.Error("AavePool: an ABI only the dev chain uses stays beside its bytecode (internal/contracts)")
	}
}
