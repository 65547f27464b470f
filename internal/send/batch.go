package send

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/keys"
)

// batchABI is the batch delegate's entry point (internal/contracts/src/BatchDelegate.sol).
var batchABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"execute","stateMutability":"payable","outputs":[],
		"inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// packExecute is the calldata of execute(calls).
func packExecute(calls []Call) ([]byte, error) {
	type call struct {
		To    common.Address
		Value *big.Int
		Data  []byte
	}
	args := make([]call, len(calls))
	for i, c := range calls {
		args[i] = call{To: c.To, Value: c.value(), Data: c.Data}
	}
	return batchABI.Pack("execute", args)
}

// signAuthorization is the account's EIP-7702 authorization to delegate to delegate, for one chain (never 0, which
// every chain would accept) and one nonce of the account, signed with its key.
func signAuthorization(key []byte, chainID *big.Int, delegate common.Address, nonce uint64) (types.SetCodeAuthorization, error) {
	auth := types.SetCodeAuthorization{ChainID: *uint256.MustFromBig(chainID), Address: delegate, Nonce: nonce}
	hash := auth.SigHash()
	sig, err := keys.SignSecp256k1(key, hash[:])
	if err != nil {
		return auth, err
	}
	e := sig.Ethereum()
	auth.R.SetBytes(e[:32])
	auth.S.SetBytes(e[32:64])
	auth.V = e[64]
	return auth, nil
}

// MinGas is the least gas limit the transaction the request sends from `from` needs (evm.MinGas): its one call, or its
// batch's call of the account itself (a first batch's authorization adds to it; the worker counts it when it checks
// the limit again before signing), or the undelegation's transaction with its authorization.
func (r *Request) MinGas(from common.Address) uint64 {
	switch {
	case r.Undelegate:
		return evm.MinGas(&from, nil, nil, nil, 1)
	case len(r.Calls) == 1:
		c := r.Calls[0]
		return evm.MinGas(&c.To, c.value(), c.Data, nil, 0)
	}
	data, err := packExecute(r.Calls)
	if err != nil {
		return 0 // refused when the worker encodes it
	}
	return evm.MinGas(&from, nil, data, nil, 0)
}
