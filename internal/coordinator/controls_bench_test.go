package coordinator_test

import (
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkSignTransactionUnderVelocityControl measures one stamped SIGN_TRANSACTION_V2 of an ERC-20 transfer by a
// non-root user whose only policy reads a velocity control of the token (measured, decided and recorded under the
// organization's exclusive lock), on SQLite with durable commits, end to end through the Go SDK.
func BenchmarkSignTransactionUnderVelocityControl(b *testing.B) {
	s := newStack(b, testdb.SQLite(b))
	org := s.boot.OrganizationID
	agentID, agent := s.createUser(org, s.root, "agent")
	if _, _, err := s.root.CreateVelocityControl(bg, org, dailyUSDC("1000000000000")); err != nil {
		b.Fatal(err)
	}
	s.policy("capped", api.EffectAllow, "activity.action == 'SIGN' && controls.daily_usdc", "approvers.any(u, u.id == '"+agentID+"')")
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		b.Fatal(err)
	}
	data := calldata(b, "transfer", other, usdc(1))
	cpu := cputime.Start()
	defer func() { b.ReportMetric(cpu.PerOp(b.N), cputime.Unit) }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
			UnsignedTransaction: unsigned1559(b, token, data, uint64(i)), Type: api.TransactionTypeEthereum})
		if err != nil {
			b.Fatal(err)
		}
	}
}
