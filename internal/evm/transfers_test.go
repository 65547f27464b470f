package evm

import (
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

func unsigned(t *testing.T, to *common.Address, value *big.Int, data []byte) *UnsignedTx {
	t.Helper()
	fields := []any{big.NewInt(8453), uint64(0), big.NewInt(1), big.NewInt(2), uint64(21000), to, value, data, types.AccessList{}}
	if to == nil {
		fields[5] = []byte{}
	}
	enc, err := rlp.EncodeToBytes(fields)
	if err != nil {
		t.Fatal(err)
	}
	u, err := DecodeUnsignedTransaction(hex.EncodeToString(append([]byte{2}, enc...)))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestTransfers(t *testing.T) {
	t.Parallel()
	usdc := common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	word := func(v int64) []byte { return common.LeftPadBytes(big.NewInt(v).Bytes(), 32) }
	call := func(sel []byte, words ...[]byte) []byte {
		out := append([]byte{}, sel...)
		for _, w := range words {
			out = append(out, w...)
		}
		return out
	}
	addr := common.LeftPadBytes(usdc.Bytes(), 32)
	native := "eip155:8453/slip44:60"
	token := "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
	tests := []struct {
		name  string
		tx    *UnsignedTx
		asset []string
		want  []int64
	}{
		{"native", unsigned(t, &usdc, big.NewInt(7), nil), []string{native}, []int64{7}},
		{"transfer", unsigned(t, &usdc, big.NewInt(0), call(selTransfer, addr, word(1000))), []string{token}, []int64{1000}},
		{"transferFrom", unsigned(t, &usdc, big.NewInt(0), call(selTransferFrom, addr, addr, word(5))), []string{token}, []int64{5}},
		{"approve with value", unsigned(t, &usdc, big.NewInt(3), call(selApprove, addr, word(9))), []string{native, token}, []int64{3, 9}},
		{"other call", unsigned(t, &usdc, big.NewInt(0), call([]byte{1, 2, 3, 4}, word(9))), nil, nil},
		{"short calldata", unsigned(t, &usdc, big.NewInt(0), call(selTransfer, addr)), nil, nil},
	}
	for _, tt := range tests {
		got := tt.tx.Transfers()
		if len(got) != len(tt.asset) {
			t.Errorf("%s: %d transfers, want %d", tt.name, len(got), len(tt.asset))
			continue
		}
		for i, g := range got {
			if g.Asset != tt.asset[i] || g.Amount.Int64() != tt.want[i] {
				t.Errorf("%s: transfer %d = %s %s, want %s %d", tt.name, i, g.Asset, g.Amount, tt.asset[i], tt.want[i])
			}
		}
	}
}
