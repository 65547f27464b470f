package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// BenchmarkDecodeCall decodes what policies read of a transfer and of a batch of three calls: the bound on what the
// decoding may allocate (checkEncoding) walks the data once before go-ethereum unpacks it.
func BenchmarkDecodeCall(b *testing.B) {
	a, err := ParseABI(testABI)
	if err != nil {
		b.Fatal(err)
	}
	dst := common.HexToAddress("0x08d2b0A3F1cA0aE1D8C3eDcB7c6d1aF0a7d867B7")
	transfer, _ := a.Pack("transfer", dst, big.NewInt(5e17))
	type call struct {
		Target common.Address
		Value  *big.Int
		Data   []byte
	}
	batch, _ := a.Pack("executeBatch", []call{{dst, big.NewInt(1), transfer}, {dst, big.NewInt(2), nil}, {dst, big.NewInt(3), transfer}})
	for name, data := range map[string][]byte{"transfer": transfer, "batch-of-3": batch} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeCall(a, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
