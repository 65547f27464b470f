package solanadev

import (
	"crypto/ed25519"
	"testing"

	"github.com/sigil/sigil/internal/solana"
)

// BenchmarkSend processes signed transfers (parse, signature check, preflight, execution, commit), no HTTP.
func BenchmarkSend(b *testing.B) {
	n := devNode(b, "")
	alice := newKeypair()
	if _, err := n.Airdrop(alice.pub, 1_000_000*1_000_000_000); err != nil {
		b.Fatal(err)
	}
	bob := newKeypair().pub
	for i := 0; b.Loop(); i++ {
		n.mu.Lock()
		blockhash, _ := n.latest()
		n.mu.Unlock()
		tx, err := solana.NewLegacyTransaction(alice.pub, blockhash, solana.SystemTransfer(alice.pub, bob, 1_000_000+uint64(i)))
		if err != nil {
			b.Fatal(err)
		}
		tx = tx.Signed(0, [64]byte(ed25519.Sign(alice.priv, tx.Message.Bytes())))
		if res, err := n.Send(tx.Serialize(), Options{}); err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
	}
}
