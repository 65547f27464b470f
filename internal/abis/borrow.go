package abis

import (
	"bytes"
	"embed"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The borrowing interfaces of Aave v3 and Morpho Blue, as the protocols publish them (Aave's IPool, IAaveOracle and
// IPoolAddressesProvider, Morpho's IMorpho, IOracle and IIrm): the part the yield service's Borrow API calls. They are
// written out here rather than taken whole from the dev chain's artifacts, which carry the protocols' bytecode beside
// them (internal/contracts) and, for Morpho Blue at its pinned compiler, no events; a test there checks that every
// function and event here has the artifact's selector.
//
//go:embed interfaces/*.json
var interfaceFiles embed.FS

var (
	AaveV3Borrowing       = mustParseInterface("AaveV3Pool") // supply, borrow, repay, withdraw, getUserAccountData, LiquidationCall
	AaveOracle            = mustParseInterface("AaveOracle")
	AaveAddressesProvider = mustParseInterface("AavePoolAddressesProvider")
	MorphoBlue            = mustParseInterface("MorphoBlue") // supplyCollateral, borrow, repay, withdrawCollateral, market, position, Liquidate
	MorphoOracle          = mustParseInterface("MorphoOracle")
	MorphoIrm             = mustParseInterface("MorphoIrm")
)

// InterfaceJSON is the JSON ABI of one of the interfaces above, by file name ("MorphoBlue").
func InterfaceJSON(name string) ([]byte, bool) {
	data, err := interfaceFiles.ReadFile("interfaces/" + name + ".json")
	return data, err == nil
}

func mustParseInterface(name string) abi.ABI {
	data, ok := InterfaceJSON(name)
	if !ok {
		panic(fmt.Sprintf("abis: no interface %s", name))
	}
	parsed, err := abi.JSON(bytes.NewReader(data))
	if err != nil {
		panic(fmt.Sprintf("abis: parse the interface %s: %v", name, err))
	}
	return parsed
}

// MorphoMarketParams is Morpho Blue's MarketParams: a market is its loan and collateral tokens, oracle, interest rate
// model and liquidation loan-to-value (WAD). The ABI encoder takes it by field order and name.
type MorphoMarketParams struct {
	LoanToken       common.Address
	CollateralToken common.Address
	Oracle          common.Address
	Irm             common.Address
	Lltv            *big.Int
}

// MorphoMarketID is a market's id, keccak256(abi.encode(marketParams)), as Morpho Blue's MarketParamsLib computes it.
func MorphoMarketID(p MorphoMarketParams) common.Hash {
	word := func(a common.Address) []byte { return common.LeftPadBytes(a.Bytes(), 32) }
	data := bytes.Join([][]byte{word(p.LoanToken), word(p.CollateralToken), word(p.Oracle), word(p.Irm),
		common.LeftPadBytes(p.Lltv.Bytes(), 32)}, nil)
	return crypto.Keccak256Hash(data)
}
