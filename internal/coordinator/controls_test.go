package coordinator_test

import (
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// dailyUSDC is a control of at most 1,000 of the test token (6 decimals) transferred per wallet per day.
func dailyUSDC(threshold string) api.CreateVelocityControlIntent {
	return api.CreateVelocityControlIntent{Name: "daily USDC", Identifier: "daily_usdc",
		DataSource: api.VelocityControlDataSource{ChainAssetTransfer: &api.ChainAssetTransferSource{
			Definition: []api.AssetDefinition{{CAIP19: "eip155:1337/erc20:" + token.Hex(), Decimals: "6"}}}},
		Aggregation: api.VelocityAggregation{Method: api.AggregationSum, Operator: api.OperatorLessThanOrEqual, Threshold: threshold,
			Window: api.VelocityWindow{Rolling: &api.RollingWindow{Duration: "86400"}}, GroupBy: api.VelocityGroupBy{Wallet: &api.Empty{}}}}
}

func usdc(units int64) *big.Int { return new(big.Int).Mul(big.NewInt(units), big.NewInt(1_000_000)) }

// bobUnderControl makes a non-root user whose only policy allows signing while controls.daily_usdc passes.
func bobUnderControl(t *testing.T, s *stack, threshold string) (*client.Client, string) {
	t.Helper()
	org := s.boot.OrganizationID
	bobID, bob := s.createUser(org, s.root, "bob")
	if _, _, err := s.root.CreateVelocityControl(bg, org, dailyUSDC(threshold)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "daily cap", Effect: api.EffectAllow,
		Consensus: "approvers.any(user, user.id == '" + bobID + "')",
		Condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && controls.daily_usdc"}); err != nil {
		t.Fatal(err)
	}
	return bob, s.ethWallet("treasury")
}

// A daily cap: transfers pass until their sum in the last 24 hours would exceed it; the window slides exactly; a
// denied transfer consumes nothing; evaluate_activity shows the aggregate and what an activity would add.
func TestVelocityControlCapsTransfers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org := s.boot.OrganizationID
		bob, from := bobUnderControl(t, s, "1000")
		nonce := uint64(0)
		transfer := func(amount *big.Int) error {
			nonce++
			_, _, err := bob.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, token, calldata(t, "transfer", other, amount), nonce)})
			return err
		}
		mustPass := func(what string, amount *big.Int) {
			t.Helper()
			if err := transfer(amount); err != nil {
				t.Fatalf("%s: %v, want it signed", what, err)
			}
		}
		mustFail := func(what string, amount *big.Int) {
			t.Helper()
			if err := transfer(amount); !client.IsCode(err, apierr.PermissionDenied) {
				t.Fatalf("%s: %v, want a denial", what, err)
			}
		}
		mustPass("600 of 1000", usdc(600))
		clock.Advance(time.Hour)
		mustPass("400 more: exactly the cap", usdc(400))
		mustFail("one unit past the cap", big.NewInt(1))
		mustFail("a denied transfer consumes nothing, so this one is denied too", big.NewInt(1))

		// A transfer of another asset adds nothing to the cap.
		nonce++
		if _, _, err := bob.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
			UnsignedTransaction: unsigned1559(t, other, calldata(t, "transfer", other, usdc(5000)), nonce)}); err != nil {
			t.Fatalf("a transfer of an unlisted asset: %v", err)
		}

		// 24 hours after the first transfer it leaves the window, to the millisecond (the window is the last 86,400
		// seconds up to now, its start excluded); the second stays.
		clock.Advance(23*time.Hour - time.Millisecond)
		mustFail("a millisecond before the first leaves the window", big.NewInt(1))
		clock.Advance(time.Millisecond)
		mustPass("600 once the first has left the window", usdc(600))
		mustFail("one unit past the cap again", big.NewInt(1))

		// The dry run shows the aggregate now and what the activity would add.
		body := api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
			UnsignedTransaction: unsigned1559(t, token, calldata(t, "transfer", other, big.NewInt(2_500_000)), 99)}
		ev, err := bob.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", body)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Decision != "DENY" || len(ev.VelocityControls) != 1 {
			t.Fatalf("evaluate_activity = %+v", ev)
		}
		if m := ev.VelocityControls[0]; m.Identifier != "daily_usdc" || m.Aggregate != "1000" || m.Adds != "2.5" || m.Passes {
			t.Fatalf("measure = %+v, want aggregate 1000, adds 2.5, failing", m)
		}
	})
}

// Two coordinators sharing one database race signers for the last 10 of a cap: exactly one of them is signed.
func TestVelocityControlRaceAcrossProcesses(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		first := newStack(t, b)
		second := &stack{t: t, srv: secondCoordinator(t, first, b), stamps: first.stamps}
		org := first.boot.OrganizationID
		bob, from := bobUnderControl(t, first, "1000")
		if _, _, err := bob.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
			UnsignedTransaction: unsigned1559(t, token, calldata(t, "transfer", other, usdc(990)), 1)}); err != nil {
			t.Fatal(err)
		}
		bobKey := bob.Stamper
		clients := []*client.Client{first.client(bobKey), second.client(bobKey)}
		const racers = 8
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[i] = clients[i%2].SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
					UnsignedTransaction: unsigned1559(t, token, calldata(t, "transfer", common.Address{byte(i + 1)}, usdc(10)), uint64(10+i))})
			}()
		}
		wg.Wait()
		signed := 0
		for i, err := range errs {
			switch {
			case err == nil:
				signed++
			case !client.IsCode(err, apierr.PermissionDenied):
				t.Errorf("racer %d: %v, want signed or denied", i, err)
			}
		}
		if signed != 1 {
			t.Fatalf("%d racers signed the last 10 of the cap, want exactly 1", signed)
		}
	})
}

// COUNT over activity executions, per user; unknown controls in policies and deleting a control a policy reads are
// refused.
func TestVelocityControlCountsAndRefusals(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	bobID, bob := s.createUser(org, s.root, "bob")
	twoWallets := api.CreateVelocityControlIntent{Name: "two wallets each", Identifier: "wallets_per_user",
		DataSource: api.VelocityControlDataSource{ActivityExecution: &api.ActivityExecutionSource{Filter: &api.ActivityFilter{
			Activity: []api.ActivityTypeFilter{{ActivityType: "ACTIVITY_TYPE_CREATE_WALLET"}}}}},
		Aggregation: api.VelocityAggregation{Method: api.AggregationCount, Operator: api.OperatorLessThanOrEqual, Threshold: "2",
			Window: api.VelocityWindow{Infinite: &api.Empty{}}, GroupBy: api.VelocityGroupBy{User: &api.Empty{}}}}
	ctl, _, err := s.root.CreateVelocityControl(bg, org, twoWallets)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "wallets", Effect: api.EffectAllow,
		Consensus: "approvers.any(user, user.id == '" + bobID + "')", Condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && controls.wallets_per_user"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		_, _, err := bob.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w" + string(rune('a'+i)), Accounts: []api.WalletAccountParams{ethAccount()}})
		if (err == nil) != want {
			t.Fatalf("wallet %d: %v, want allowed=%t", i+1, err, want)
		}
	}
	// The root user's wallets are another user's bucket, and root is not bound by policies anyway.
	if _, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "root's", Accounts: []api.WalletAccountParams{ethAccount()}}); err != nil {
		t.Fatal(err)
	}

	_, _, err = s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "typo", Effect: api.EffectAllow, Condition: "controls.wallets_per_usr"})
	if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "unknown velocity control 'controls.wallets_per_usr'") {
		t.Errorf("a policy reading an unknown control: %v", err)
	}
	if _, _, err := s.root.DeleteVelocityControl(bg, org, ctl.VelocityControlID); err == nil || !strings.Contains(err.Error(), "reads controls.wallets_per_user") {
		t.Errorf("deleting a control a policy reads: %v", err)
	}
	bad := func(f func(p *api.CreateVelocityControlIntent)) api.CreateVelocityControlIntent {
		p := dailyUSDC("1000")
		f(&p)
		return p
	}
	for name, c := range map[string]struct {
		p    api.CreateVelocityControlIntent
		want string
	}{
		"identifier": {bad(func(p *api.CreateVelocityControlIntent) { p.Identifier = "Daily-USDC" }), "parameters.identifier"},
		"duplicate":  {twoWallets, "already exists"},
		"two sources": {bad(func(p *api.CreateVelocityControlIntent) {
			p.DataSource.ActivityExecution = &api.ActivityExecutionSource{}
		}), "exactly one of chainAssetTransfer"},
		"asset id": {bad(func(p *api.CreateVelocityControlIntent) {
			p.DataSource.ChainAssetTransfer.Definition[0].CAIP19 = "bip122:0/slip44:0"
		}), "not an EVM asset id"},
		"decimals": {bad(func(p *api.CreateVelocityControlIntent) {
			p.DataSource.ChainAssetTransfer.Definition[0].Decimals = "256"
		}), "from 0 to 255"},
		"threshold": {bad(func(p *api.CreateVelocityControlIntent) { p.Aggregation.Threshold = "1.0000000000000000001" }), "18 of them after the point"},
		"window":    {bad(func(p *api.CreateVelocityControlIntent) { p.Aggregation.Window.Infinite = &api.Empty{} }), "exactly one of rolling and infinite"},
		"duration":  {bad(func(p *api.CreateVelocityControlIntent) { p.Aggregation.Window.Rolling.Duration = "1.5" }), "whole seconds"},
		"group":     {bad(func(p *api.CreateVelocityControlIntent) { p.Aggregation.GroupBy.User = &api.Empty{} }), "exactly one of organization, user and wallet"},
		"operator":  {bad(func(p *api.CreateVelocityControlIntent) { p.Aggregation.Operator = "ABOUT" }), "parameters.aggregation.operator"},
		"sum of activity": {bad(func(p *api.CreateVelocityControlIntent) {
			p.DataSource = api.VelocityControlDataSource{ActivityExecution: &api.ActivityExecutionSource{}}
		}), "a SUM needs the chainAssetTransfer"},
	} {
		if _, _, err := s.root.CreateVelocityControl(bg, org, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
	list, err := s.root.ListVelocityControls(bg, api.ListVelocityControlsRequest{OrganizationID: org})
	if err != nil || len(list.VelocityControls) != 1 || list.VelocityControls[0].Identifier != "wallets_per_user" {
		t.Fatalf("list_velocity_controls = %+v, %v", list, err)
	}
	got, err := s.root.GetVelocityControl(bg, org, ctl.VelocityControlID)
	if err != nil || got.VelocityControl.Aggregation.Threshold != "2" {
		t.Fatalf("get_velocity_control = %+v, %v", got, err)
	}
}
