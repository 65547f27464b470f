package mcp_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/stack"
)

// A staking position's pending actions, as the skill walks them: the agent stakes ETH through the fee wrapper; chain
// time passes and rewards are paid; it exits, and yields_get_balances offers CLAIM_REWARDS, which actions_manage turns
// into a decoded claimRewards() that the agent sends under its policies; the cooldown passes, and the WITHDRAW the
// balance then offers pays the unstaked ETH back to the wallet.
func TestManagePendingActions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b stack.Bootstrap) {
		a := newAgent(t, b, overStdio, nil)
		yieldID := a.nativeStakingYield()

		enter := a.ok("actions_enter", map[string]any{"yieldId": yieldID, "walletAddress": a.address, "amount": "0.5"})
		stake := path(enter, "sigil.transactions.0")
		if str(stake, "function") != "stake(address,address)" || !strings.Contains(str(enter, "summary"), "sending 0.5 of the native coin") {
			t.Fatalf("the stake decoded as %v:\n%s", stake, str(enter, "summary"))
		}
		wrapper, staking := str(stake, "contract"), str(stake, "arguments.staking")
		a.allow("staking", map[string][]string{wrapper: {"stake(address,address)"},
			staking: {"claimRewards()", "requestUnstake(uint256)", "withdraw()"}})
		a.sendAction(enter)

		// A minute of chain time: the dev chain pays that minute's rewards. The exit books them (an unstaked amount
		// earns nothing more), and the balance offers them to claim.
		a.increaseTime(time.Minute)
		exit := a.ok("actions_exit", map[string]any{"yieldId": yieldID, "walletAddress": a.address, "arguments": map[string]any{"useMaxAmount": true}})
		if str(exit, "sigil.transactions.0.function") != "requestUnstake(uint256)" {
			t.Fatalf("the exit: %v", exit)
		}
		a.sendAction(exit)
		claim := a.pendingAction(yieldID, "CLAIM_REWARDS")
		managed := a.ok("actions_manage", map[string]any{"yieldId": yieldID, "walletAddress": a.address,
			"action": "CLAIM_REWARDS", "passthrough": claim["passthrough"]})
		if str(managed, "sigil.transactions.0.function") != "claimRewards()" || !strings.EqualFold(str(managed, "sigil.transactions.0.contract"), staking) ||
			!strings.Contains(str(managed, "summary"), "claims the caller's rewards") {
			t.Fatalf("the claim: %v", managed)
		}
		// The claim's amount is not in its calldata: the effect states what the contract holds for the caller, as the
		// balance does.
		if got := path(managed, "sigil.transactions.0.amounts.0"); str(got, "role") != "payout" || str(got, "amount") != claim["amount"] {
			t.Errorf("the claim's payout %v, the pending action's amount %v", got, claim["amount"])
		}
		if ev := a.ok("evaluate_activity", map[string]any{"unsignedTransaction": str(managed, "untrusted.yieldService.transactions.0.unsignedTransaction")}); str(ev, "sigil.decision") != "ALLOW" {
			t.Fatalf("the claim evaluated %v", ev)
		}
		a.sendAction(managed)
		if a.hasPendingAction(yieldID, "CLAIM_REWARDS") {
			t.Fatal("the rewards are still claimable after the claim")
		}

		// The unstake waits out the cooldown; then the balance offers WITHDRAW.
		if a.hasPendingAction(yieldID, "WITHDRAW") {
			t.Fatal("WITHDRAW is offered before the cooldown has passed")
		}
		a.increaseTime(contracts.DefaultStakingCooldown + time.Minute)
		withdraw := a.pendingAction(yieldID, "WITHDRAW")
		managed = a.ok("actions_manage", map[string]any{"yieldId": yieldID, "address": a.address, "action": "WITHDRAW",
			"passthrough": withdraw["passthrough"]})
		if str(managed, "sigil.transactions.0.function") != "withdraw()" || !strings.Contains(str(managed, "summary"), "after its cooldown") {
			t.Fatalf("the withdrawal: %v", managed)
		}
		if got := path(managed, "sigil.transactions.0.amounts.0"); str(got, "role") != "payout" || !strings.Contains(str(managed, "summary"), "paying the caller "+str(got, "amount")+" of the native coin") {
			t.Errorf("the withdrawal's payout %v:\n%s", got, str(managed, "summary"))
		}
		before := a.ethBalance()
		a.sendAction(managed)
		// The stake less the wrapper's deposit fee comes back, less the withdrawal's gas: well over 0.4 ETH.
		if gained := new(big.Rat).Sub(a.ethBalance(), before); gained.Cmp(big.NewRat(4, 10)) < 0 {
			t.Errorf("the withdrawal paid the wallet %s ETH", gained.FloatString(18))
		}
		if a.hasPendingAction(yieldID, "WITHDRAW") {
			t.Error("WITHDRAW is still offered after the withdrawal")
		}
	})
}

// nativeStakingYield is the id of the dev catalogue's native ETH staking through the fee wrapper.
func (a *agent) nativeStakingYield() string {
	a.t.Helper()
	found := a.ok("yields_get_all", map[string]any{"networks": []string{a.boot.Network}, "types": []string{"staking"}})
	items, _ := path(found, "untrusted.yieldService.items").([]any)
	for _, it := range items {
		if id := str(it, "id"); strings.HasSuffix(id, "-eth-native-staking") {
			return id
		}
	}
	a.t.Fatalf("no native ETH staking among %v", items)
	return ""
}

// allow adds a policy that lets the agent's wallet call the functions named, on each contract.
func (a *agent) allow(label string, calls map[string][]string) {
	a.t.Helper()
	var clauses []string
	for to, sigs := range calls {
		for _, sig := range sigs {
			selector := "0x" + hex.EncodeToString(crypto.Keccak256([]byte(sig))[:4])
			clauses = append(clauses, "(eth.tx.to == '"+strings.ToLower(to)+"' && eth.tx.data[0..10] == '"+selector+"')")
		}
	}
	if _, _, err := a.root.CreatePolicies(context.Background(), a.boot.OrganizationID, api.CreatePoliciesIntent{Policies: []api.CreatePolicyIntentV3{{
		PolicyName: label + " " + a.userID[:8], Effect: api.EffectAllow, Consensus: "approvers.any(user, user.id == '" + a.userID + "')",
		Condition: "wallet.id == '" + a.walletID + "' && (" + strings.Join(clauses, " || ") + ")"}}}); err != nil {
		a.t.Fatal(err)
	}
}

// sendAction sends each of an action's transactions through send_transaction, in order, each confirmed before the next.
func (a *agent) sendAction(built map[string]any) {
	a.t.Helper()
	for _, tx := range path(built, "untrusted.yieldService.transactions").([]any) {
		sent := a.ok("send_transaction", map[string]any{"unsignedTransaction": str(tx, "unsignedTransaction"), "transactionId": str(tx, "id")})
		if str(sent, "sigil.status") != api.TxStatusIncluded {
			a.t.Fatalf("send_transaction: %v", sent)
		}
		a.waitConfirmed(str(tx, "id"))
	}
}

// increaseTime moves the dev chain's clock, as a Hardhat or Anvil script does; the dev chain pays that time's yield.
func (a *agent) increaseTime(d time.Duration) {
	a.t.Helper()
	c, err := rpc.Dial(a.boot.Chains[0].RPCURL)
	if err != nil {
		a.t.Fatal(err)
	}
	defer c.Close()
	if err := c.CallContext(context.Background(), nil, "evm_increaseTime", uint64(d/time.Second)); err != nil {
		a.t.Fatal(err)
	}
}

// pendingActions are the pending actions yields_get_balances offers for the agent's balances in the yield.
func (a *agent) pendingActions(yieldID string) []map[string]any {
	a.t.Helper()
	res := a.ok("yields_get_balances", map[string]any{"address": a.address, "yieldId": yieldID})
	raw, _ := json.Marshal(path(res, "untrusted.yieldService"))
	var out struct {
		Items []struct {
			Balances []struct {
				PendingActions []map[string]any `json:"pendingActions"`
			} `json:"balances"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		a.t.Fatalf("balances %s: %v", raw, err)
	}
	var all []map[string]any
	for _, it := range out.Items {
		for _, b := range it.Balances {
			all = append(all, b.PendingActions...)
		}
	}
	return all
}

func (a *agent) hasPendingAction(yieldID, kind string) bool {
	for _, p := range a.pendingActions(yieldID) {
		if p["type"] == kind {
			return true
		}
	}
	return false
}

func (a *agent) pendingAction(yieldID, kind string) map[string]any {
	a.t.Helper()
	all := a.pendingActions(yieldID)
	for _, p := range all {
		if p["type"] == kind && p["passthrough"] != "" {
			return p
		}
	}
	a.t.Fatalf("no %s among the pending actions %v", kind, all)
	return nil
}

// ethBalance is the agent's ETH (the dev chain's native coin), as wallets_get_balances reads it from the chain.
func (a *agent) ethBalance() *big.Rat {
	a.t.Helper()
	wb := a.ok("wallets_get_balances", map[string]any{"address": a.address, "network": a.boot.Network})
	for _, b := range path(wb, "untrusted.chain").([]any) {
		if str(b, "token") == "native" {
			if r, ok := new(big.Rat).SetString(str(b, "amount")); ok {
				return r
			}
		}
	}
	a.t.Fatalf("no ETH balance in %v", wb)
	return nil
}
