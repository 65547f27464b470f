package bitcoin

import (
	"testing"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/wire"
)

// BenchmarkParse parses the typical PSBT of the benchmarks — two inputs (P2WPKH and P2TR, with their witness UTXOs),
// two outputs — and builds its policy view.
func BenchmarkParse(b *testing.B) {
	_, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	fx := buildPSBT(b, pub, other, 0)
	fx.packet.UnsignedTx.TxIn = []*wire.TxIn{fx.packet.UnsignedTx.TxIn[1], fx.packet.UnsignedTx.TxIn[4]}
	fx.packet.Inputs = append(fx.packet.Inputs[1:2:2], fx.packet.Inputs[4])
	fx.packet.UnsignedTx.TxOut[0].Value = 100_000 // the two inputs spend 200,000 and 500,000 satoshis
	raw := serialize(b, fx.packet)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		_ = p.View(&chaincfg.MainNetParams, nil)
	}
}
