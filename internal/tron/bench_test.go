package tron

import "testing"

// BenchmarkParse parses a TRC-20 transfer (TriggerSmartContract) built by tronweb.
func BenchmarkParse(b *testing.B) {
	var raw []byte
	for _, f := range fixtures(b) {
		if f.Name == "TRC-20 transfer" {
			raw = mustHex(b, f.RawHex)
		}
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}
