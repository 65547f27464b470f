// Package abis holds the ABIs of the contracts Sigil's services call on any network — ERC-20 tokens, ERC-4626 vaults,
// Aave v3's Pool, and Sigil's allocator vault, fee wrapper and staking contracts — and what they return. They are the
// ABIs of the dev chain's fixtures (internal/contracts/build.sh writes them here), which implement the standard
// interfaces with the standard signatures, so calldata built from them works against real deployments. The package
// holds no bytecode and no deployment: a service that calls contracts links nothing of the dev chain.
package abis

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

//go:embed *.abi
var files embed.FS

// The interfaces, each parsed once. The dev chain's contracts behind them are named after each (internal/contracts).
var (
	ERC20           = mustParse("TestToken")   // OpenZeppelin's ERC-20, with metadata (the test tokens add minting)
	ERC4626         = mustParse("SimpleVault") // OpenZeppelin's ERC-4626 (the dev chain's vault adds a published rate)
	AaveV3Pool      = mustParse("LendingPool") // Aave v3 Pool's supply, withdraw and getReserveData (ReserveData)
	AllocatorVault  = mustParse("AllocatorVault")
	FeeWrapper      = mustParse("FeeWrapper")
	NativeStaking   = mustParse("NativeStaking")
	ProviderStaking = mustParse("ProviderStaking")
)

// JSON is the ABI of the compiled contract named name, as solc wrote it, if this package holds it.
func JSON(name string) ([]byte, bool) {
	data, err := files.ReadFile(name + ".abi")
	return data, err == nil
}

func mustParse(name string) abi.ABI {
	data, ok := JSON(name)
	if !ok {
		panic(fmt.Sprintf("abis: no ABI of %s", name))
	}
	parsed, err := abi.JSON(bytes.NewReader(data))
	if err != nil {
		panic(fmt.Sprintf("abis: parse the ABI of %s: %v", name, err))
	}
	return parsed
}
