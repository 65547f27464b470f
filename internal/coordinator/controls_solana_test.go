package coordinator_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// A daily cap of 2 SOL per wallet: the signer's transfers count, on any cluster the control names; a transfer past
// the cap is denied and consumes nothing; an SPL asset with a malformed mint is refused when the control is created.
func TestVelocityControlCapsSolanaTransfers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		address, pub := s.solanaWallet("sol")
		control := api.CreateVelocityControlIntent{Name: "daily SOL", Identifier: "daily_sol",
			DataSource: api.VelocityControlDataSource{ChainAssetTransfer: &api.ChainAssetTransferSource{
				Definition: []api.AssetDefinition{{CAIP19: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", Decimals: "9"}}}},
			Aggregation: api.VelocityAggregation{Method: api.AggregationSum, Operator: api.OperatorLessThanOrEqual, Threshold: "2",
				Window: api.VelocityWindow{Rolling: &api.RollingWindow{Duration: "86400"}}, GroupBy: api.VelocityGroupBy{Wallet: &api.Empty{}}}}
		if _, _, err := s.root.CreateVelocityControl(bg, org, control); err != nil {
			t.Fatal(err)
		}
		s.policy("daily SOL", api.EffectAllow, "activity.action == 'SIGN' && controls.daily_sol", "approvers.any(u, u.id == '"+agentID+"')")

		to := bytes.Repeat([]byte{0xb0}, 32)
		send := func(lamports uint64) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, Type: api.TransactionTypeSolana,
				UnsignedTransaction: hex.EncodeToString(solanaTransfer(pub, to, lamports))})
			return err
		}
		if err := send(1_500_000_000); err != nil {
			t.Fatalf("1.5 SOL of 2: %v", err)
		}
		if err := send(600_000_000); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("0.6 SOL more, past the cap: %v, want a denial", err)
		}
		if err := send(500_000_000); err != nil {
			t.Fatalf("0.5 SOL more, exactly the cap (the denied one consumed nothing): %v", err)
		}
		if err := send(1); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("one lamport past the cap: %v, want a denial", err)
		}

		bad := control
		bad.Identifier = "bad_mint"
		bad.DataSource.ChainAssetTransfer = &api.ChainAssetTransferSource{Definition: []api.AssetDefinition{
			{CAIP19: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:0OIl", Decimals: "6"}}}
		_, _, err := s.root.CreateVelocityControl(bg, org, bad)
		if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "definition[0].caip19") {
			t.Fatalf("a malformed mint: %v, want a 400 naming the asset", err)
		}
	})
}
