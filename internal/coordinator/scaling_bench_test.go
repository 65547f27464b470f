package coordinator_test

import (
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// Signing on PostgreSQL through one coordinator and through two sharing the database, 8 clients at once spread over
// them: what a second process behind a load balancer adds. Both coordinators run in this process (each with its own
// store and connection pool, as two processes would have), so on one machine they share its cores: the numbers say
// what the database's shared commit path allows, not what a second machine would add. Requires
// SIGIL_TEST_POSTGRES_URL.
func BenchmarkSigningOnPostgres(b *testing.B) {
	for _, n := range []int{1, 2} {
		name := "one-coordinator"
		if n == 2 {
			name = "two-coordinators"
		}
		b.Run(name, func(b *testing.B) {
			db := testdb.Postgres(b)
			s := newStack(b, db)
			org := s.boot.OrganizationID
			agentID, agent := s.createUser(org, s.root, "agent")
			w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
			if err != nil {
				b.Fatal(err)
			}
			s.policy("approve", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"'", "approvers.any(u, u.id == '"+agentID+"')")
			urls := []string{s.srv.URL}
			if n == 2 {
				urls = append(urls, secondCoordinator(b, s, db).URL)
			}
			data := calldata(b, "approve", vault, big.NewInt(1))
			var nonce atomic.Uint64
			var next atomic.Uint64
			b.SetParallelism(4) // 8 clients on 2 cores
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				c := client.New(urls[next.Add(1)%uint64(len(urls))], agent.Stamper)
				for pb.Next() {
					if _, _, err := c.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
						UnsignedTransaction: unsigned1559(b, token, data, nonce.Add(1)), Type: api.TransactionTypeEthereum}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "signings/s")
		})
	}
}
