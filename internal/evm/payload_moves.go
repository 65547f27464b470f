package evm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Moves is what a signed payload lets move, for velocity controls. A payload is no transaction, but a signature of one
// may authorize one: the batch delegate's BatchExecution (its calls run from the account through the gas station,
// submitted by anyone) moves what its calls move, and an ERC-2612 Permit approves its value of its token, as an
// approve call would. Any other typed data may authorize moving any asset of its chain (an order, a permit of another
// kind), an EIP-7702 authorization lets the code it delegates to move every asset of the account, and a message or a
// digest signed as it is may be the hash of anything (a transaction among them): what they let move cannot be read.
func (p *RawPayload) Moves() Moves {
	switch {
	case p.Authorization != nil:
		if p.Authorization.Address == strings.ToLower(common.Address{}.Hex()) {
			return Moves{} // delegating to the zero address removes a delegation
		}
		return Moves{Unmeasured: []Unmeasured{{Asset: authorizationScope(p.Authorization.ChainID), Prefix: true,
			Reason: fmt.Sprintf("the EIP-7702 authorization delegates the account to the code at %s, which may move any of its assets", p.Authorization.Address)}}}
	case p.TypedData != nil:
		return typedDataMoves(p.TypedData.View())
	}
	return Moves{Unmeasured: []Unmeasured{{Asset: "", Prefix: true,
		Reason: "the payload is signed as it is, and what a signature of it lets move cannot be read from it (it may be a transaction's hash)"}}}
}

// authorizationScope is the assets an authorization for a chain may move: its chain's, or every EVM chain's for
// chain id 0, which every chain accepts.
func authorizationScope(chain *big.Int) string {
	if chain == nil || chain.Sign() == 0 {
		return "eip155:"
	}
	return ChainAssetPrefix(chain)
}

// typedDataMoves reads the typed data the measurer knows (BatchExecution, Permit); any other moves its chain's assets
// unmeasured.
func typedDataMoves(v EIP712View) Moves {
	scope := authorizationScope(v.Domain.ChainID)
	unknown := Moves{Unmeasured: []Unmeasured{{Asset: scope, Prefix: true,
		Reason: fmt.Sprintf("the EIP-712 %s message of %q may authorize moving assets, by amounts that cannot be read from it", v.PrimaryType, v.Domain.Name)}}}
	if v.Domain.ChainID == nil || v.Domain.ChainID.Sign() == 0 || !common.IsHexAddress(v.Domain.VerifyingContract) {
		return unknown
	}
	contract := common.HexToAddress(v.Domain.VerifyingContract)
	switch {
	case v.PrimaryType == "BatchExecution" && v.Domain.Name == "SigilBatchDelegate":
		if m, ok := batchExecutionMoves(v.Domain.ChainID, contract, v.Message); ok {
			return m
		}
	case v.PrimaryType == "Permit":
		if value, ok := messageInt(v.Message["value"]); ok {
			return Moves{Transfers: []AssetTransfer{{Asset: scope + "erc20:" + strings.ToLower(contract.Hex()), Amount: value}}}
		}
	}
	return unknown
}

// batchExecutionMoves reads a BatchExecution's calls, which run from the account the domain names.
func batchExecutionMoves(chain *big.Int, account common.Address, msg map[string]any) (Moves, bool) {
	calls, ok := msg["calls"].([]any)
	if !ok {
		return Moves{}, false
	}
	var m Moves
	for i, c := range calls {
		call, ok := c.(map[string]any)
		to, okTo := call["to"].(string)
		value, okValue := messageInt(call["value"])
		data, okData := call["data"].(string)
		if !ok || !okTo || !okValue || !okData || !common.IsHexAddress(to) {
			return Moves{}, false
		}
		b, err := hexutil.Decode(data)
		if err != nil && data != "0x" {
			return Moves{}, false
		}
		dest := common.HexToAddress(to)
		callMoves(&m, ChainAssetPrefix(chain), account, &dest, value, b, 1, fmt.Sprintf("signed batch call %d: ", i))
	}
	return m, true
}

// messageInt reads an integer of an EIP-712 message: a JSON number, or a decimal or 0x string.
func messageInt(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case *big.Int:
		return x, x.Sign() >= 0
	case string:
		n, ok := new(big.Int).SetString(x, 0)
		return n, ok && n.Sign() >= 0
	}
	return nil, false
}
