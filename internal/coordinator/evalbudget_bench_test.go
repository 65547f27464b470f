package coordinator_test

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// The victim's throughput beside a tenant whose policies are costly (issue 44, item 8): a non-root user of another
// organization signs under one allow policy, alone and while three clients of a sub-organization with 100 policies of
// ~94,000 steps each (9.4 million steps per activity without a budget) submit signings those policies deny, as fast
// as they are answered; and beside three clients of a tenant without policies doing the same, which is what the flood
// itself costs the victim. The modes alternate with -count; the ratios of their victim-signings/s are the victim's
// slowdowns. attacker-requests/s counts the flood's answers (refusals).
func BenchmarkVictimBesideCostlyPolicies(b *testing.B) {
	s := newStack(b, testdb.SQLite(b))
	org := s.boot.OrganizationID
	agentID, agent := s.createUser(org, s.root, "agent")
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		b.Fatal(err)
	}
	s.policy("approve", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"' && eth.tx.data[0..10] == '0x095ea7b3'", "approvers.any(u, u.id == '"+agentID+"')")
	data := calldata(b, "approve", vault, big.NewInt(1))

	// Two tenants flood the server with signings their policies deny: sub-organizations whose root users make the
	// policies, and a user each the flood runs as. The costly one's 100 policies cost ~94,000 steps each; the cheap one
	// has none, so that beside it the victim pays only for the flood itself.
	type tenant struct {
		id, from string
		user     *client.Client
	}
	newTenant := func(name string, policies int) tenant {
		rootKey, rootParams := newKey(b, stamp.CurveP256)
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams(name, rootParams))
		if err != nil {
			b.Fatal(err)
		}
		subRoot := s.client(rootKey)
		_, user := s.createUser(sub.SubOrganizationID, subRoot, "eve")
		w, _, err := subRoot.CreateWallet(bg, sub.SubOrganizationID, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range policies {
			if _, _, err := subRoot.CreatePolicy(bg, sub.SubOrganizationID, api.CreatePolicyIntentV3{PolicyName: fmt.Sprintf("heavy %d", i),
				Effect: api.EffectDeny, Condition: heavyCondition(305)}); err != nil {
				b.Fatal(err)
			}
		}
		return tenant{sub.SubOrganizationID, w.Addresses[0], user}
	}
	tenants := map[string]tenant{"beside-costly-tenant": newTenant("costly", 100), "beside-cheap-tenant": newTenant("cheap", 0)}

	nonce := uint64(0)
	sign := func() {
		nonce++
		if _, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
			UnsignedTransaction: unsigned1559(b, token, data, nonce), Type: api.TransactionTypeEthereum}); err != nil {
			b.Fatal(err)
		}
	}
	sign() // warm: the first signing reads keys

	for _, mode := range []string{"alone", "beside-costly-tenant", "beside-cheap-tenant"} {
		b.Run(mode, func(b *testing.B) {
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var answered atomic.Int64
			if attacker, ok := tenants[mode]; ok {
				for range 3 {
					wg.Go(func() {
						for i := uint64(0); ctx.Err() == nil; i++ {
							_, _, _ = attacker.user.SignTransaction(ctx, attacker.id, api.SignTransactionIntentV2{SignWith: attacker.from,
								UnsignedTransaction: unsigned1559(b, token, data, i), Type: api.TransactionTypeEthereum})
							answered.Add(1)
						}
					})
				}
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				sign()
			}
			elapsed := time.Since(start)
			b.StopTimer()
			stop()
			wg.Wait()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "victim-signings/s")
			b.ReportMetric(float64(answered.Load())/elapsed.Seconds(), "attacker-requests/s")
		})
	}
}
