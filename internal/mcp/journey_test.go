package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/testwait"
)

// The second specification's journey through the tools, as an agent host drives it, over each transport on each
// backend: find the USDC vault, check the
// enter with evaluate_activity and a simulation, sign the approval and send it, send the deposit, read the balance,
// exit; a transfer to another contract is denied with its reason; a transfer that needs a root user's approval waits
// for it, and the agent's poll completes once the root user approves.
func TestJourney(t *testing.T) {
	eachBackend(t, func(t *testing.T, b stack.Bootstrap) {
		for _, over := range transports {
			t.Run(over, func(t *testing.T) { journey(t, newAgent(t, b, over, nil)) })
		}
	})
}

func journey(t testing.TB, a *agent) {
	ctx := context.Background()

	found := a.ok("yields_get_all", map[string]any{"networks": []string{a.boot.Network}, "token": "USDC", "types": []string{"vault"}})
	items, _ := path(found, "untrusted.yieldService.items").([]any)
	var ids []string
	for _, it := range items {
		ids = append(ids, str(it, "id"))
	}
	if !strings.Contains(strings.Join(ids, " "), a.yieldID) {
		t.Fatalf("yields_get_all found %v, not %s", ids, a.yieldID)
	}
	if y := a.ok("yields_get", map[string]any{"yieldId": a.yieldID}); str(y, "untrusted.yieldService.token.address") != a.token {
		t.Fatalf("yields_get: %v", y)
	}

	// Enter: two transactions, decoded from their bytes.
	enter := a.ok("actions_enter", map[string]any{"yieldId": a.yieldID, "walletAddress": a.address, "amount": "100"})
	txs := path(enter, "untrusted.yieldService.transactions").([]any)
	if len(txs) != 2 {
		t.Fatalf("enter has %d transactions", len(txs))
	}
	approve, deposit := path(enter, "sigil.transactions.0"), path(enter, "sigil.transactions.1")
	if str(approve, "function") != "approve(address,uint256)" || str(approve, "amounts.0.amount") != "100" ||
		str(approve, "amounts.0.symbol") != "USDC" || str(approve, "amounts.0.decimalsFrom") != "chain" ||
		!strings.EqualFold(str(approve, "contract"), a.token) || !strings.EqualFold(str(approve, "arguments.spender"), a.vault) {
		t.Errorf("the approval decoded as %v", approve)
	}
	if str(deposit, "function") != "deposit(uint256,address)" || str(deposit, "amounts.0.amount") != "100" ||
		str(deposit, "amounts.0.symbol") != "USDC" || !strings.EqualFold(str(deposit, "contract"), a.vault) {
		t.Errorf("the deposit decoded as %v", deposit)
	}
	summary := str(enter, "summary")
	if !strings.Contains(summary, "allows "+common.HexToAddress(a.vault).Hex()+" to spend 100 USDC") || !strings.Contains(summary, "deposits 100 USDC into the vault") {
		t.Errorf("the enter's summary does not restate its effect:\n%s", summary)
	}

	// Check before acting: the policy engine allows both, by the agent's policies; the chain runs both in order.
	for i, tx := range txs {
		ev := a.ok("evaluate_activity", map[string]any{"unsignedTransaction": str(tx, "unsignedTransaction")})
		if str(ev, "sigil.decision") != "ALLOW" || !strings.Contains(str(ev, "summary"), "allowed") {
			t.Errorf("step %d evaluated %v", i, ev)
		}
	}
	actionID := str(enter, "sigil.actionId")
	sim := a.ok("simulate_transaction", map[string]any{"actionId": actionID})
	if path(sim, "sigil.allSucceed") != true || !strings.Contains(str(sim, "sigil.method"), "eth_simulateV1") {
		t.Errorf("simulation: %v", sim)
	}

	// The approval: signed, then broadcast and watched by the coordinator, its hash submitted to the yield service.
	signed := a.ok("sign_transaction", map[string]any{"unsignedTransaction": str(txs[0], "unsignedTransaction")})
	if !strings.HasPrefix(str(signed, "sigil.signedTransaction"), "0x02") || !strings.Contains(str(signed, "summary"), "to spend 100 USDC") {
		t.Errorf("sign_transaction: %v", signed)
	}
	sent := a.ok("send_raw_transaction", map[string]any{"signedTransaction": str(signed, "sigil.signedTransaction"), "transactionId": str(txs[0], "id")})
	if str(sent, "sigil.status") != api.TxStatusIncluded || str(sent, "sigil.hashSubmittedTo") != str(txs[0], "id") {
		t.Fatalf("send_raw_transaction: %v", sent)
	}
	a.waitConfirmed(str(txs[0], "id"))

	// The deposit: handed to the coordinator to sign, broadcast and watch.
	sent = a.ok("send_transaction", map[string]any{"unsignedTransaction": str(txs[1], "unsignedTransaction"), "transactionId": str(txs[1], "id")})
	if str(sent, "sigil.status") != api.TxStatusIncluded || !strings.Contains(str(sent, "summary"), "deposits 100 USDC") {
		t.Fatalf("send_transaction: %v", sent)
	}
	a.waitConfirmed(str(txs[1], "id"))

	balances := a.ok("yields_get_balances", map[string]any{"address": a.address, "yieldId": a.yieldID})
	raw, _ := json.Marshal(path(balances, "untrusted.yieldService"))
	if !strings.Contains(string(raw), `"type":"active"`) {
		t.Errorf("balances after the deposit: %s", raw)
	}
	wb := a.ok("wallets_get_balances", map[string]any{"address": a.address, "network": a.boot.Network})
	usdcHeld := ""
	for _, b := range path(wb, "untrusted.chain").([]any) {
		if str(b, "symbol") == "USDC" {
			usdcHeld = str(b, "amount")
		}
	}
	if usdcHeld != "900" {
		raw, _ := json.Marshal(wb)
		t.Errorf("wallet balances after depositing 100 of 1000 USDC: %s", raw)
	}

	// Exit everything, through send_transaction.
	exit := a.ok("actions_exit", map[string]any{"yieldId": a.yieldID, "address": a.address, "arguments": map[string]any{"useMaxAmount": true}})
	exitTxs := path(exit, "untrusted.yieldService.transactions").([]any)
	if len(exitTxs) != 1 || str(exit, "sigil.transactions.0.function") != "redeem(uint256,address,address)" {
		t.Fatalf("exit: %v", exit)
	}
	a.ok("send_transaction", map[string]any{"unsignedTransaction": str(exitTxs[0], "unsignedTransaction"), "transactionId": str(exitTxs[0], "id")})
	a.waitConfirmed(str(exitTxs[0], "id"))

	// A transfer to another contract: no policy allows it, and the result says so, by policy.
	transfer := "0xa9059cbb" + strings.Repeat("0", 24) + strings.ToLower(a.vault[2:]) + fmt.Sprintf("%064x", big.NewInt(1))
	denied := a.call("send_transaction", map[string]any{"from": a.address, "caip2": fmt.Sprintf("eip155:%d", a.boot.ChainID),
		"calls": []map[string]any{{"to": "0x000000000000000000000000000000000000dEaD", "data": transfer}}})
	found = structured(t, denied)
	if !denied.IsError || !strings.Contains(str(found, "summary"), "denied by the organization's policies") ||
		!strings.Contains(text(denied), "approve USDC "+a.userID[:8]) {
		t.Errorf("the transfer to another contract: %s", text(denied))
	}

	// A USDC transfer needs a root user's approval too: the agent gets the activity, who can approve and where.
	usdcTransfer := fmt.Sprintf(`{"from":%q,"to":%q,"data":%q,"value":"0x0","gasLimit":"0x186a0","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","nonce":99,"chainId":%d,"type":2}`,
		a.address, a.token, transfer, a.boot.ChainID)
	held := a.ok("sign_transaction", map[string]any{"unsignedTransaction": usdcTransfer})
	ap := path(held, "sigil.approval")
	if str(ap, "status") != api.StatusConsensusNeeded || str(ap, "approvers.0.userId") != a.boot.UserID ||
		!strings.Contains(str(ap, "dashboardUrl"), "?activity="+str(ap, "activityId")) || !strings.Contains(str(held, "summary"), "needs approval") {
		t.Fatalf("the gated transfer: %v", held)
	}
	if poll := a.ok("activities_get", map[string]any{"activityId": str(ap, "activityId")}); str(poll, "sigil.approval.status") != api.StatusConsensusNeeded {
		t.Errorf("poll before the approval: %v", poll)
	}
	if _, err := a.root.ApproveActivity(ctx, a.boot.OrganizationID, str(ap, "fingerprint")); err != nil {
		t.Fatal(err)
	}
	done := a.ok("activities_get", map[string]any{"activityId": str(ap, "activityId"), "waitSeconds": 60})
	if str(done, "sigil.status") != api.StatusCompleted || !strings.HasPrefix(str(done, "sigil.signedTransaction"), "0x02") {
		t.Fatalf("poll after the approval: %v", done)
	}

	// The coordinator recorded which tool submitted each of the agent's activities, for the dashboard.
	recent := a.ok("activities_list", map[string]any{"limit": 10})
	var activityIDs []string
	for _, r := range path(recent, "sigil").([]any) {
		activityIDs = append(activityIDs, str(r, "activityId"))
	}
	var clients api.ListActivityClientsResponse
	if err := a.root.Query(ctx, api.ListActivityClients.Path, api.ListActivityClientsRequest{OrganizationID: a.boot.OrganizationID,
		ActivityIDs: activityIDs}, &clients); err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, c := range clients.ActivityClients {
		tools[c.Client] = true
	}
	for _, want := range []string{"mcp/sign_transaction", "mcp/send_transaction", "mcp/send_raw_transaction"} {
		if !tools[want] {
			t.Errorf("no activity recorded as %s: %v", want, clients.ActivityClients)
		}
	}
}

// waitConfirmed polls get_transaction, as the skill says to, until the yield service has the transaction CONFIRMED.
func (a *agent) waitConfirmed(txID string) {
	a.t.Helper()
	testwait.Until(a.t, "transaction "+txID+" CONFIRMED", func() bool {
		res := a.ok("get_transaction", map[string]any{"transactionId": txID})
		if st := str(res, "untrusted.yieldService.status"); st == "FAILED" {
			a.t.Fatalf("transaction %s failed: %v", txID, res)
		}
		return str(res, "untrusted.yieldService.status") == "CONFIRMED"
	})
}
