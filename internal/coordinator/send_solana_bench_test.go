package coordinator_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkSolSend measures transfers of 1 lamport through SOL_SEND_TRANSACTION_V2 to the Solana dev node (a slot
// every 20 ms, and one per transaction), its blockhash fetched by the worker: one at a time from one address, 16 at a
// time from one address and spread over 100, and sponsored from 100 addresses. Sends per second from the first
// submit to the last INCLUDED, and the mean time from a send's submit to its INCLUDED status as a client polling every
// 10 ms sees it. SQLite, durable commits.
func BenchmarkSolSend(b *testing.B) {
	node := solanaNode(b)
	s := solanaSendingStack(b, testdb.SQLite(b), node)
	recipient := solKey(b, "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	if _, err := node.Airdrop(recipient, lamportsPerSOL); err != nil { // rent-exempt, as a recipient of lamports must be
		b.Fatal(err)
	}
	for _, c := range []struct {
		addresses, clients int
		sponsor            bool
	}{{1, 1, false}, {1, 16, false}, {100, 16, false}, {100, 16, true}} {
		n := c.addresses
		from := make([]string, n)
		for i := range from {
			from[i], _ = s.solanaWallet(fmt.Sprintf("bench %d of %d (%d clients, sponsored %v)", i, n, c.clients, c.sponsor))
			if _, err := node.Airdrop(solKey(b, from[i]), 10*lamportsPerSOL); err != nil {
				b.Fatal(err)
			}
		}
		name := fmt.Sprintf("addresses=%d/clients=%d", n, c.clients)
		if c.sponsor {
			name += "/sponsored"
		}
		b.Run(name, func(b *testing.B) {
			var mu sync.Mutex
			var waited time.Duration
			sem := make(chan struct{}, c.clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					t0 := time.Now()
					// A lamport more each time: sends from one address in one slot are distinct transactions.
					tx := unsignedSolana(b, from[i%n], solana.SystemTransfer(solKey(b, from[i%n]), recipient, uint64(1+i)))
					id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: tx, SignWiths: []string{from[i%n]},
						Caip2: node.CAIP2(), Sponsor: &c.sponsor})
					if err != nil {
						b.Error(err)
						return
					}
					if _, err := s.waitSend(id); err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					waited += time.Since(t0)
					mu.Unlock()
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "sends/s")
			b.ReportMetric(float64(waited.Milliseconds())/float64(b.N), "ms-to-included")
		})
	}
}
