package mcp_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/stack"
)

// The agent derives an account only once a policy lets it; then it sends SOL from that account through
// send_transaction, under a policy that names its wallet, and reads the send's status.
func TestCreateAccountAndSendSOL(t *testing.T) {
	eachBackend(t, func(t *testing.T, b stack.Bootstrap) {
		if b.Solana == nil {
			t.Fatal("the stack runs no Solana dev node")
		}
		a := newAgent(t, b, overStdio, nil)
		ctx := context.Background()
		create := map[string]any{"walletId": a.walletID, "addressFormat": "ADDRESS_FORMAT_SOLANA"}
		denied := a.call("wallets_create_account", create)
		if !denied.IsError || !strings.Contains(text(denied), "denied") {
			t.Fatalf("an account with no policy allowing it: %s", text(denied))
		}
		mine := "wallet.id == '" + a.walletID + "'"
		consensus := "approvers.any(user, user.id == '" + a.userID + "')"
		if _, _, err := a.root.CreatePolicies(ctx, b.OrganizationID, api.CreatePoliciesIntent{Policies: []api.CreatePolicyIntentV3{
			// The policy language knows no wallet of CREATE_WALLET_ACCOUNTS; the consensus names this agent alone.
			{PolicyName: "new accounts " + a.userID[:8], Effect: api.EffectAllow, Consensus: consensus,
				Condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS'"},
			{PolicyName: "small SOL transfers " + a.userID[:8], Effect: api.EffectAllow, Consensus: consensus,
				Condition: mine + " && solana.tx.transfers.all(x, x.amount <= 1000000)"},
		}}); err != nil {
			t.Fatal(err)
		}
		created := a.ok("wallets_create_account", create)
		sol := str(created, "sigil.address")
		if sol == "" || str(created, "sigil.addressFormat") != "ADDRESS_FORMAT_SOLANA" {
			t.Fatalf("wallets_create_account: %v", created)
		}
		airdrop(t, b.Solana.RPCURL, sol, 1_000_000_000)

		from, err := solana.ParseKey(sol)
		if err != nil {
			t.Fatal(err)
		}
		to, err := solana.ParseKey(b.Solana.Faucet) // an account that exists: a new one would need its rent-exempt minimum
		if err != nil {
			t.Fatal(err)
		}
		transfer := func(lamports uint64) string {
			tx, err := solana.NewLegacyTransaction(from, solana.Key{}, solana.SystemTransfer(from, to, lamports))
			if err != nil {
				t.Fatal(err)
			}
			return hex.EncodeToString(tx.Serialize())
		}
		sent := a.ok("send_transaction", map[string]any{"unsignedTransaction": transfer(500_000), "from": sol, "caip2": b.Solana.CAIP2})
		if str(sent, "sigil.status") != api.TxStatusIncluded || str(sent, "sigil.sendTransactionStatusId") == "" {
			t.Fatalf("the SOL send: %v", sent)
		}
		status := a.ok("get_send_transaction_status", map[string]any{"sendTransactionStatusId": str(sent, "sigil.sendTransactionStatusId")})
		if str(status, "sigil.status") != api.TxStatusIncluded {
			t.Errorf("get_send_transaction_status: %v", status)
		}
		tooMuch := a.call("send_transaction", map[string]any{"unsignedTransaction": transfer(2_000_000), "from": sol, "caip2": b.Solana.CAIP2})
		if !tooMuch.IsError || !strings.Contains(text(tooMuch), "denied") {
			t.Errorf("a SOL transfer over the policy's amount: %s", text(tooMuch))
		}
	})
}

// airdrop funds a Solana address from the dev node's faucet.
func airdrop(t testing.TB, rpcURL, address string, lamports uint64) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop", "params": []any{address, lamports}})
	res, err := http.Post(rpcURL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Error *struct{ Message string }
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || out.Error != nil {
		t.Fatalf("requestAirdrop: %v %+v", err, out.Error)
	}
}

// The read-only tools answer what the services hold: the agent's wallet, the networks, the providers, an action it
// built and its history, a yield's risk and rate history, and a staking yield's validators.
func TestReadTools(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overHTTP, nil)
	has := func(v any, want string) bool { raw, _ := json.Marshal(v); return strings.Contains(string(raw), want) }
	if w := a.ok("wallets_list", map[string]any{}); !has(w, a.address) || !has(w, a.walletID) {
		t.Errorf("wallets_list does not show the agent's wallet: %v", w)
	}
	if n := a.ok("networks_get_all", map[string]any{}); !has(n, `"id":"`+a.boot.Network+`"`) {
		t.Errorf("networks_get_all: %v", n)
	}
	if p := a.ok("providers_get_all", map[string]any{"limit": 20}); !has(p, `"sigil"`) {
		t.Errorf("providers_get_all: %v", p)
	}
	enter := a.ok("actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": a.address, "amount": "1"})
	actionID := str(enter, "sigil.actionId")
	if got := a.ok("actions_get", map[string]any{"actionId": actionID}); str(got, "untrusted.yieldService.id") != actionID {
		t.Errorf("actions_get: %v", got)
	}
	if all := a.ok("actions_get_all", map[string]any{"walletAddress": a.address}); !has(all, actionID) {
		t.Errorf("actions_get_all does not list %s: %v", actionID, all)
	}
	if r := a.ok("yields_get_risk", map[string]any{"yieldId": a.yieldID}); path(r, "untrusted.yieldService") == nil {
		t.Errorf("yields_get_risk: %v", r)
	}
	// A fresh stack has too few price samples for a rate; the tools say so with an empty list, not an error.
	for _, tool := range []string{"yields_get_reward_rate_history", "yields_get_tvl_history"} {
		r := a.ok(tool, map[string]any{"yieldId": a.yieldID, "period": "7d"})
		if _, ok := path(r, "sigil.items").([]any); !ok || str(r, "sigil.yieldId") != a.yieldID {
			t.Errorf("%s: %v", tool, r)
		}
	}
	staking := a.ok("yields_get_all", map[string]any{"networks": []string{a.boot.Network}, "types": []string{"staking"}})
	items, _ := path(staking, "untrusted.yieldService.items").([]any)
	if len(items) == 0 {
		t.Fatalf("no staking yield on %s", a.boot.Network)
	}
	v := a.ok("yields_get_validators", map[string]any{"yieldId": str(items[0], "id")})
	if _, ok := path(v, "untrusted.yieldService.items").([]any); !ok {
		t.Errorf("yields_get_validators: %v", v)
	}
	if r := a.call("yields_get", map[string]any{"yieldId": "no-such-yield"}); !r.IsError || !strings.Contains(text(r), "HTTP 404") {
		t.Errorf("an unknown yield: %s", text(r))
	}
}

// actions_manage reaches the yield service in its shape (which decodes strictly): a passthrough that is not one the
// service issued for this yield, address and action is refused by the service, and the agent reads why.
func TestManageRefusesAForeignPassthrough(t *testing.T) {
	a := newAgent(t, theStack(t, "sqlite"), overStdio, nil)
	staking := a.ok("yields_get_all", map[string]any{"networks": []string{a.boot.Network}, "types": []string{"staking"}})
	items, _ := path(staking, "untrusted.yieldService.items").([]any)
	if len(items) == 0 {
		t.Fatalf("no staking yield on %s", a.boot.Network)
	}
	res := a.call("actions_manage", map[string]any{"yieldId": str(items[0], "id"), "walletAddress": a.address,
		"action": "CLAIM_REWARDS", "passthrough": "eyJub3QiOiJpc3N1ZWQifQ"})
	if !res.IsError || !strings.Contains(text(res), "HTTP 400") || !strings.Contains(text(res), "passthrough") {
		t.Errorf("a foreign passthrough: %s", text(res))
	}
}
