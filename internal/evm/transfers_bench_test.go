package evm

import (
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/internal/cputime"
)

// BenchmarkTransactionTransfers reads the transfers of a decoded EIP-1559 transaction of an ERC-20 transfer, what a
// velocity control measures of a signing: the same call before and after transfers were read by selector and least
// length (an API both have, to compare them side by side).
func BenchmarkTransactionTransfers(b *testing.B) {
	usdc := common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	data, _ := hex.DecodeString("a9059cbb" + "000000000000000000000000000000000000000000000000000000000000dead" +
		"0000000000000000000000000000000000000000000000000000000000000005")
	enc, err := rlp.EncodeToBytes([]any{big.NewInt(8453), uint64(0), big.NewInt(1), big.NewInt(2), uint64(60000), &usdc, big.NewInt(0), data, types.AccessList{}})
	if err != nil {
		b.Fatal(err)
	}
	tx, err := DecodeUnsignedTransaction(hex.EncodeToString(append([]byte{2}, enc...)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu, n := cputime.Start(), 0
	for b.Loop() {
		if ts := tx.Transfers(); len(ts) != 1 {
			b.Fatal(ts)
		}
		n++
	}
	b.ReportMetric(cpu.PerOp(n), cputime.Unit)
}
