package coordinator_test

import (
	"math/big"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkSignTransaction measures one stamped SIGN_TRANSACTION_V2 over HTTP by a non-root user under one allow
// policy, on SQLite with durable commits, end to end through the Go SDK.
func BenchmarkSignTransaction(b *testing.B) {
	s := newStack(b, testdb.SQLite(b))
	org := s.boot.OrganizationID
	agentID, agent := s.createUser(org, s.root, "agent")
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		b.Fatal(err)
	}
	s.policy("approve", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"' && eth.tx.data[0..10] == '0x095ea7b3'", "approvers.any(u, u.id == '"+agentID+"')")
	data := calldata(b, "approve", vault, big.NewInt(1))
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
