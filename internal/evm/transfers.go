package evm

import (
	"bytes"
	"math/big"
	"strings"
)

// AssetTransfer is an amount of an asset that a transaction moves, by the asset's CAIP-19 id: the chain's native coin
// (eip155:<chain>/slip44:60) or an ERC-20 token (eip155:<chain>/erc20:<address in lower case>).
type AssetTransfer struct {
	Asset  string
	Amount *big.Int // in the asset's base units
}

// ERC-20 selectors whose amount moves tokens, or lets them be moved.
var (
	selTransfer     = []byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	selTransferFrom = []byte{0x23, 0xb8, 0x72, 0xdd} // transferFrom(address,address,uint256)
	selApprove      = []byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
)

// Transfers lists what a transaction moves: its native value, and the amount of an ERC-20 transfer, transferFrom or
// approve it calls (the token is the transaction's destination). A transaction without a chain id moves nothing
// countable by chain, and lists nothing.
func (u *UnsignedTx) Transfers() []AssetTransfer {
	tx := u.tx
	chain := tx.ChainId()
	if chain == nil || chain.Sign() == 0 {
		return nil
	}
	prefix := "eip155:" + chain.String() + "/"
	var out []AssetTransfer
	if v := tx.Value(); v != nil && v.Sign() > 0 {
		out = append(out, AssetTransfer{Asset: prefix + "slip44:60", Amount: new(big.Int).Set(v)})
	}
	if tx.To() == nil {
		return out
	}
	if amount := erc20Amount(tx.Data()); amount != nil {
		out = append(out, AssetTransfer{Asset: prefix + "erc20:" + strings.ToLower(tx.To().Hex()), Amount: amount})
	}
	return out
}

// erc20Amount is the amount argument of an ERC-20 call that moves tokens; nil for any other calldata.
func erc20Amount(data []byte) *big.Int {
	if len(data) < 4 {
		return nil
	}
	words := 0
	switch sel := data[:4]; {
	case bytes.Equal(sel, selTransfer), bytes.Equal(sel, selApprove):
		words = 2
	case bytes.Equal(sel, selTransferFrom):
		words = 3
	default:
		return nil
	}
	if len(data) != 4+32*words {
		return nil
	}
	return new(big.Int).SetBytes(data[4+32*(words-1):])
}
