package solana

import (
	"strings"
	"testing"
)

// BenchmarkParseTransaction parses the typical transaction of the benchmarks: a version 0 message of five
// instructions (two compute-budget, a SOL transfer, an SPL TransferChecked, a memo) with one lookup table, and builds
// its policy view.
func BenchmarkParseTransaction(b *testing.B) {
	var raw []byte
	for _, f := range fixtures(b) {
		if strings.HasPrefix(f.Name, "v0 five instructions") {
			raw = mustHex(b, f.Hex)
		}
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseTransaction(raw); err != nil {
			b.Fatal(err)
		}
	}
}
