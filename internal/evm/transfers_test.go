package evm

import (
	"bytes"
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

// Calldata is read by selector and the least length its arguments need: bytes after them move the amount all the
// same; a call of the token too short for its arguments, or of another of its functions, cannot be measured.
func TestMovesByMinimumLength(t *testing.T) {
	t.Parallel()
	usdc := common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	from := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	token := "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
	amount := common.LeftPadBytes(big.NewInt(500_000).Bytes(), 32)
	addr := common.LeftPadBytes(from.Bytes(), 32)
	transfer := append(append(append([]byte{}, selTransfer...), addr...), amount...)
	for _, tt := range []struct {
		name       string
		data       []byte
		moves      int64
		unmeasured bool
	}{
		{"exact", transfer, 500_000, false},
		{"one trailing byte", append(bytes.Clone(transfer), 0), 500_000, false},
		{"a trailing word", append(bytes.Clone(transfer), make([]byte, 32)...), 500_000, false},
		{"cut short", transfer[:67], 0, true},
		{"decreaseAllowance", append(append([]byte{}, selDecreaseAllowance...), append(addr, amount...)...), 0, false},
		{"another function", append([]byte{0x40, 0x00, 0xae, 0xa0}, append(addr, amount...)...), 0, true},
	} {
		m := CallMoves(big.NewInt(8453), from, &usdc, nil, tt.data)
		var got int64
		for _, tr := range m.Transfers {
			if tr.Asset == token {
				got += tr.Amount.Int64()
			}
		}
		unmeasured := len(m.Unmeasured) > 0 && m.Unmeasured[0].Covers(token)
		if got != tt.moves || unmeasured != tt.unmeasured {
			t.Errorf("%s: moves %d (unmeasured %v), want %d (%v): %+v", tt.name, got, unmeasured, tt.moves, tt.unmeasured, m)
		}
	}
}

// A batch's arguments are checked against the calldata before anything is allocated: hostile offsets and lengths
// fail to decode (and the batch cannot be measured), never panic or allocate what the calldata cannot hold.
func TestDecodeBatchHostile(t *testing.T) {
	t.Parallel()
	word := func(v uint64) []byte { return common.LeftPadBytes(new(big.Int).SetUint64(v).Bytes(), 32) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for name, args := range map[string][]byte{
		"empty":                  nil,
		"offset past the end":    word(1 << 40),
		"huge count":             cat(word(32), word(1<<62)),
		"count past the data":    cat(word(32), word(3), word(0)),
		"element offset too far": cat(word(32), word(1), word(1<<50)),
		"data length too long":   cat(word(32), word(1), word(32), word(1), word(0), word(96), word(1<<20)),
		"address with high bits": cat(word(32), word(1), word(32), append([]byte{1}, make([]byte, 31)...), word(0), word(96), word(0)),
		"offsets near overflow":  cat(word(^uint64(0)>>1), word(1)),
	} {
		if calls, err := DecodeBatch(args); err == nil {
			t.Errorf("%s: decoded %d calls", name, len(calls))
		}
	}
	ok := cat(word(32), word(1), word(32), word(0xdead), word(7), word(96), word(2), common.RightPadBytes([]byte{1, 2}, 32))
	calls, err := DecodeBatch(ok)
	if err != nil || len(calls) != 1 || calls[0].Value.Int64() != 7 || !bytes.Equal(calls[0].Data, []byte{1, 2}) {
		t.Fatalf("a well-formed batch: %+v %v", calls, err)
	}
}

func FuzzDecodeBatch(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		calls, err := DecodeBatch(b)
		if err == nil && len(calls)*32 > len(b) {
			t.Fatalf("%d calls from %d bytes", len(calls), len(b))
		}
	})
}

// BenchmarkMoves reads what a transaction moves: an ERC-20 transfer, and a batch of 50 calls through the batch
// delegate (an account calling itself).
func BenchmarkMoves(b *testing.B) {
	from := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	usdc := common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	transfer := append(append(append([]byte{}, selTransfer...), common.LeftPadBytes(from.Bytes(), 32)...), common.LeftPadBytes(big.NewInt(5).Bytes(), 32)...)
	word := func(v uint64) []byte { return common.LeftPadBytes(new(big.Int).SetUint64(v).Bytes(), 32) }
	// execute(calls): 50 calls of the token's transfer, each (to, value, offset, length, data padded to 96 bytes).
	args := append(word(32), word(50)...)
	heads, tails := []byte{}, []byte{}
	for i := range 50 {
		heads = append(heads, word(uint64(50*32+i*(7*32)))...)
		tails = append(append(append(append(tails, common.LeftPadBytes(usdc.Bytes(), 32)...), word(0)...), word(96)...), word(uint64(len(transfer)))...)
		tails = append(tails, common.RightPadBytes(transfer, 96)[:96]...)
	}
	batch := append(append(append(bytes.Clone(selExecute), args...), heads...), tails...)
	chain := big.NewInt(8453)
	b.Run("transfer", func(b *testing.B) {
		for b.Loop() {
			if m := CallMoves(chain, from, &usdc, nil, transfer); len(m.Transfers) != 1 {
				b.Fatal(m)
			}
		}
	})
	b.Run("batch-of-50", func(b *testing.B) {
		for b.Loop() {
			if m := CallMoves(chain, from, &from, nil, batch); len(m.Transfers) != 50 {
				b.Fatal(len(m.Transfers), m.Unmeasured)
			}
		}
	})
}
