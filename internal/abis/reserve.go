package abis

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/ethereum/go-ethereum/common"
)

// ReserveData is Aave v3's DataTypes.ReserveDataLegacy, what Pool.getReserveData(asset) returns, as go-ethereum
// decodes it. LendingPool returns the same layout, so code reading it works against a real Aave v3 Pool. Indexes and
// rates are rays (10^27); CurrentLiquidityRate is the suppliers' annual rate, which Aave compounds per second.
type ReserveData struct {
	Configuration struct {
		Data *big.Int
	}
	LiquidityIndex              *big.Int
	CurrentLiquidityRate        *big.Int
	VariableBorrowIndex         *big.Int
	CurrentVariableBorrowRate   *big.Int
	CurrentStableBorrowRate     *big.Int
	LastUpdateTimestamp         *big.Int
	Id                          uint16 // named as go-ethereum names the ABI field "id"
	ATokenAddress               common.Address
	StableDebtTokenAddress      common.Address
	VariableDebtTokenAddress    common.Address
	InterestRateStrategyAddress common.Address
	AccruedToTreasury           *big.Int
	Unbacked                    *big.Int
	IsolationModeTotalDebt      *big.Int
}

// AsReserveData converts the first output of getReserveData, as the ABI decoder returns it, to a ReserveData.
func AsReserveData(v any) (ReserveData, error) {
	want := reflect.TypeOf(ReserveData{})
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !rv.Type().ConvertibleTo(want) {
		return ReserveData{}, fmt.Errorf("abis: getReserveData returned %T, not Aave v3's ReserveDataLegacy", v)
	}
	return rv.Convert(want).Interface().(ReserveData), nil
}
