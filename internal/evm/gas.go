package evm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// The checks a node makes of a transaction's gas and fees before it takes it into its pool, whatever the chain's
// state: a transaction that fails one is refused for good, so a sender must not sign it (its nonce would wait for it
// forever). Their messages end with go-ethereum's own error, in parentheses, as a node answers.

// MaxTxGas is the most gas one transaction may use since Osaka (EIP-7825: 2^24).
const MaxTxGas = params.MaxTxGas

// currentRules are the rules through Osaka (Prague's calldata floor, EIP-7623, among them): those of the networks
// Sigil sends on. A network still before Prague takes a little less gas for calldata-heavy transactions than MinGas
// asks, never more.
var currentRules = params.Rules{IsHomestead: true, IsEIP150: true, IsEIP155: true, IsEIP158: true, IsEIP2929: true,
	IsByzantium: true, IsConstantinople: true, IsPetersburg: true, IsIstanbul: true, IsBerlin: true, IsLondon: true,
	IsMerge: true, IsShanghai: true, IsCancun: true, IsPrague: true, IsOsaka: true}

// MinGas is the least gas limit a node takes for a transaction: its intrinsic gas (the base cost, calldata, access
// list and authorizations) and, at least, its calldata floor (EIP-7623).
func MinGas(to *common.Address, value *big.Int, data []byte, accessList types.AccessList, auths int) uint64 {
	v := new(uint256.Int)
	if value != nil && value.Sign() > 0 && value.BitLen() <= 256 {
		v = uint256.MustFromBig(value)
	}
	var authList []types.SetCodeAuthorization
	if auths > 0 {
		authList = make([]types.SetCodeAuthorization, auths)
	}
	intrinsic, err := core.IntrinsicGas(data, accessList, authList, common.Address{}, to, v, currentRules)
	if err != nil {
		return ^uint64(0) // more than any transaction may give
	}
	floor, err := core.FloorDataGas(currentRules, common.Address{}, to, v, data, accessList)
	if err != nil {
		return ^uint64(0)
	}
	return max(intrinsic, floor)
}

// GasLimits are a network's bounds on one transaction's gas limit: MaxTx, the per-transaction cap (EIP-7825's
// MaxTxGas on networks past Osaka), and Block, the latest block's gas limit (0 when not known).
type GasLimits struct {
	MaxTx, Block uint64
}

// CheckGas is why a node refuses a transaction's gas limit for good, or nil: below minGas (MinGas), above the
// per-transaction cap or above the block's gas limit.
func CheckGas(gas, minGas uint64, limits GasLimits) error {
	switch {
	case gas < minGas:
		return fmt.Errorf("the gas limit %d is below the %d gas the transaction needs before it runs (%s)", gas, minGas, core.ErrIntrinsicGas)
	case limits.MaxTx > 0 && gas > limits.MaxTx:
		return fmt.Errorf("the gas limit %d is above the %d one transaction may use on this network (%s)", gas, limits.MaxTx, core.ErrGasLimitTooHigh)
	case limits.Block > 0 && gas > limits.Block:
		return fmt.Errorf("the gas limit %d is above the block gas limit %d (exceeds block gas limit)", gas, limits.Block)
	}
	return nil
}

// CheckFees is why a node refuses a transaction's fees for good, or nil: a priority fee above the fee cap.
func CheckFees(tip, feeCap *big.Int) error {
	if tip != nil && feeCap != nil && tip.Cmp(feeCap) > 0 {
		return fmt.Errorf("maxPriorityFeePerGas %s is above maxFeePerGas %s (%s)", tip, feeCap, core.ErrTipAboveFeeCap)
	}
	return nil
}

// permanentRefusals are the node answers (go-ethereum's, which other clients mostly share) that refuse a
// transaction for what it is, not for the chain's state now: sent again, the same signed bytes are refused again.
// A fee below the base fee, funds short, a nonce ahead or a full pool may change; these do not.
var permanentRefusals = []string{
	core.ErrIntrinsicGas.Error(),
	core.ErrFloorDataGas.Error(),
	"exceeds block gas limit",
	core.ErrGasLimitTooHigh.Error(),
	core.ErrTipAboveFeeCap.Error(),
	core.ErrTipVeryHigh.Error(),
	core.ErrFeeCapVeryHigh.Error(),
	core.ErrGasUintOverflow.Error(),
	"exceeds the configured cap", // the node's cap on one transaction's fee (RPCTxFeeCap)
	"transaction type not supported",
	"invalid sender",
	"invalid chain id",
	"oversized data",
	"max initcode size exceeded",
	"only replay-protected (EIP-155) transactions allowed",
}

// PermanentRefusal reports whether a node's answer to a broadcast refuses the transaction for good.
func PermanentRefusal(message string) bool {
	m := strings.ToLower(message)
	for _, r := range permanentRefusals {
		if strings.Contains(m, strings.ToLower(r)) {
			return true
		}
	}
	return false
}
