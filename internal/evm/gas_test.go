package evm

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// The gas a node asks of a transaction before it runs: 21,000 for a payment, more for calldata (the EIP-7623 floor
// for calldata-heavy ones) and each authorization; a limit outside the bounds is refused with the node's reason.
func TestGasBounds(t *testing.T) {
	t.Parallel()
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	if g := MinGas(&to, big.NewInt(1), nil, nil, 0); g != 21_000 {
		t.Errorf("a payment needs %d gas, want 21000", g)
	}
	if g := MinGas(&to, nil, make([]byte, 1000), nil, 0); g != 21_000+10*1000 { // all zero bytes: the floor, 10 per byte
		t.Errorf("1,000 zero bytes need %d gas", g)
	}
	if g := MinGas(&to, nil, nil, nil, 1); g != 21_000+25_000 {
		t.Errorf("one authorization needs %d gas", g)
	}
	limits := GasLimits{MaxTx: MaxTxGas, Block: 30_000_000}
	for gas, want := range map[uint64]string{20_000: "intrinsic gas too low", 1<<24 + 1: "transaction gas limit too high", ^uint64(0): "transaction gas limit too high"} {
		if err := CheckGas(gas, 21_000, limits); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("gas %d: %v, want %q", gas, err, want)
		}
	}
	if err := CheckGas(40_000_000, 21_000, GasLimits{MaxTx: 100_000_000, Block: 30_000_000}); err == nil || !strings.Contains(err.Error(), "exceeds block gas limit") {
		t.Errorf("above the block: %v", err)
	}
	if err := CheckGas(21_000, 21_000, limits); err != nil {
		t.Errorf("exactly the intrinsic gas: %v", err)
	}
	if err := CheckFees(big.NewInt(2), big.NewInt(1)); err == nil || !strings.Contains(err.Error(), "max priority fee per gas higher than max fee per gas") {
		t.Errorf("tip above the cap: %v", err)
	}
	for msg, permanent := range map[string]bool{
		"intrinsic gas too low: have 20000, want 21000":               true,
		"tx fee (2.00 ether) exceeds the configured cap (1.00 ether)": true,
		"exceeds block gas limit":                                     true,
		"max fee per gas less than block base fee":                    false,
		"insufficient funds for gas * price + value":                  false,
		"transaction underpriced":                                     false,
	} {
		if PermanentRefusal(msg) != permanent {
			t.Errorf("%q: permanent %v", msg, !permanent)
		}
	}
}
