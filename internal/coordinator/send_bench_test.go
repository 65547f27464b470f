package coordinator_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkEthSend measures sends of 1 wei through ETH_SEND_TRANSACTION to the dev chain, one at a time from one
// address, then 16 at a time from one address and spread over 100, and sponsored from 100 addresses (all numbered from
// the one sponsor's nonces), without gas-spend limits and with them (checked, with each send's most possible cost,
// under the billing organization's lock as each is signed): sends per second from the first submit to the last
// INCLUDED, and the mean time from a send's submit to its INCLUDED status as a client polling every 10 ms sees it.
// SQLite, durable commits; the dev chain seals a block as transactions arrive.
func BenchmarkEthSend(b *testing.B) {
	node := devChain(b)
	s := sendingStack(b, testdb.SQLite(b), node)
	// 100 funded accounts (an organization's most wallets), which every case sends from: a sponsored case's first send
	// of each delegates it, a later case's sends it as it is.
	pool := make([]string, 100)
	for i := range pool {
		pool[i] = s.fundedWallet(node, fmt.Sprintf("bench %d", i), 10, 0)
	}
	for _, c := range []struct {
		addresses, clients int
		sponsor, limited   bool
	}{{1, 1, false, false}, {1, 16, false, false}, {100, 16, false, false}, {100, 16, true, false}, {100, 16, true, true}} {
		if c.limited {
			if _, _, err := s.root.UpsertGasUsageConfig(bg, s.boot.OrganizationID, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1000000",
				SubOrgWindowLimitUsd: "1000000", WindowDurationMinutes: "60"}); err != nil {
				b.Fatal(err)
			}
		}
		n := c.addresses
		from := pool[:n]
		name := fmt.Sprintf("addresses=%d/clients=%d", n, c.clients)
		if c.sponsor {
			name += "/sponsored"
		}
		if c.limited {
			name += "/limited"
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
					res, _, err := s.root.EthSendTransaction(bg, s.boot.OrganizationID, api.EthSendTransactionIntentV2{From: from[i%n], Caip2: caip2(node),
						Sponsor: &c.sponsor, Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000bE0c", Value: "1"}}})
					if err != nil {
						b.Error(err)
						return
					}
					id := res.SendTransactionStatusID
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
