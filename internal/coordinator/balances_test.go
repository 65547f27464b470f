package coordinator_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
	"github.com/sigil/sigil/stamp"
)

// balanceWatchers are the names of the two watchers' cursors.
var balanceWatchers = []string{"balance-confirmed", "balance-finalized"}

// awaitCursors waits until each balance watcher of the network has polled once: its first poll starts its cursor at
// the head, and only what lands after that is reported.
func (s *stack) awaitCursors(network string) {
	s.t.Helper()
	for _, watcher := range balanceWatchers {
		testwait.Until(s.t, "the first poll of "+network+"'s "+watcher+" watcher", func() bool {
			_, found, err := s.store.ChainCursor(bg, network, watcher)
			if err != nil {
				s.t.Fatal(err)
			}
			return found
		})
	}
}

// awaitPolls waits until each balance watcher of the network has read n more blocks than it has now, and the
// deliveries to the endpoints are all made: anything those polls read again, or read that they should not have,
// has then arrived.
func (s *stack) awaitPolls(network string, n uint64, endpointIDs ...string) {
	s.t.Helper()
	for _, watcher := range balanceWatchers {
		now, _, err := s.store.ChainCursor(bg, network, watcher)
		if err != nil {
			s.t.Fatal(err)
		}
		testwait.Until(s.t, network+"'s "+watcher+" watcher to read more blocks", func() bool {
			c, _, err := s.store.ChainCursor(bg, network, watcher)
			if err != nil {
				s.t.Fatal(err)
			}
			return c.Next >= now.Next+n
		})
	}
	for _, id := range endpointIDs {
		s.deliveriesIn(id, api.WebhookDeliveryPending, 0)
	}
}

// Funding a wallet account on the dev chain (ETH, and USDC minted by the faucet) sends BALANCE_CONFIRMED_UPDATES for
// each transfer once its block is read, and BALANCE_FINALIZED_UPDATES once a block is on top of it, to the endpoint
// of the organization subscribed to them; a sub-organization cannot subscribe (its parent receives its balances).
func TestBalanceWebhooks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	node, err := chain.Start(ctx, chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	s := webhookStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, "", api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates)
	w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "funded", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	address := w.Addresses[0]

	network := "eip155:" + node.ChainID().String()
	// The watchers start after the current head, as a first start would; set here so that the test knows where.
	head, err := node.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.SetChainCursor(ctx, network, "balance-confirmed", store.ChainCursor{Next: head + 1}); err != nil {
			return err
		}
		return tx.SetChainCursor(ctx, network, "balance-finalized", store.ChainCursor{Next: head + 1})
	}); err != nil {
		t.Fatal(err)
	}
	watchCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.coord.WatchBalances(watchCtx, []coordinator.Network{{CAIP2: network, RPCURL: node.RPCURL(), Confirmations: 1, PollInterval: 20 * time.Millisecond}})
	}()
	t.Cleanup(func() { stop(); <-done })

	oneEth := big.NewInt(params.Ether)
	if _, err := node.Faucet().Fund(ctx, common.HexToAddress(address), oneEth, map[string]*big.Int{"USDC": big.NewInt(100_000_000)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ typ, asset, amount string }{
		{api.WebhookBalanceConfirmedUpdates, "native", oneEth.String()},
		{api.WebhookBalanceConfirmedUpdates, "erc20", "100000000"},
	} {
		body := rc.awaitBody(want.typ+" "+want.asset, func(eventType string, b map[string]any) bool {
			a, _ := b["asset"].(map[string]any)
			return eventType == want.typ && a["type"] == want.asset && b["amount"] == want.amount
		})
		if body["address"] != common.HexToAddress(address).Hex() || body["direction"] != "in" || body["network"] != network || body["organizationId"] != org {
			t.Errorf("%s %s: %v", want.typ, want.asset, body)
		}
	}
	// One more block on top makes them final.
	if _, err := node.Faucet().Fund(ctx, node.DevAccount(), big.NewInt(1), nil); err != nil {
		t.Fatal(err)
	}
	rc.awaitBody("the finalized ETH", func(eventType string, b map[string]any) bool {
		a, _ := b["asset"].(map[string]any)
		return eventType == api.WebhookBalanceFinalizedUpdates && a["type"] == "native" && b["amount"] == oneEth.String()
	})

	subKey, subParams := newKey(t, stamp.CurveEd25519)
	sub, _, err := s.root.CreateSubOrganization(ctx, org, subOrgParams("Alice", subParams))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.client(subKey).CreateWebhookEndpoint(ctx, sub.SubOrganizationID, api.CreateWebhookEndpointIntent{URL: rc.srv.URL, Name: "mine",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookBalanceConfirmedUpdates}}})
	expectErr(t, "balances from a sub-organization", err, apierr.PermissionDenied, "billing organization")
}

// A reorganisation, made with the dev chain's evm_snapshot and evm_revert: the transfer of the dropped block was
// confirmed and is never finalized; the transfer of the block that replaced it at the same height is confirmed and then
// finalized.
func TestBalanceWebhooksAcrossAReorganisation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	node, rpcClient := ownChain(t)
	s := webhookStack(t, testdb.SQLite(t))
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, "", api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates)
	w, _, err := s.root.CreateWallet(ctx, s.boot.OrganizationID, api.CreateWalletIntent{WalletName: "reorg", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	address := common.HexToAddress(w.Addresses[0])
	watchCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.coord.WatchBalances(watchCtx, []coordinator.Network{{CAIP2: "eip155:" + node.ChainID().String(), RPCURL: node.RPCURL(),
			Confirmations: 3, PollInterval: 20 * time.Millisecond}})
	}()
	t.Cleanup(func() { stop(); <-done })
	s.awaitCursors("eip155:" + node.ChainID().String())

	eth := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether)) }
	native := func(eventType string, amount *big.Int) func(string, map[string]any) bool {
		return func(got string, b map[string]any) bool {
			a, _ := b["asset"].(map[string]any)
			return got == eventType && a["type"] == "native" && b["amount"] == amount.String()
		}
	}
	var snapshot hexutil.Uint64
	if err := rpcClient.CallContext(ctx, &snapshot, "evm_snapshot"); err != nil {
		t.Fatal(err)
	}
	if _, err := node.Faucet().Fund(ctx, address, eth(1), nil); err != nil {
		t.Fatal(err)
	}
	rc.awaitBody("the confirmed 1 ETH", native(api.WebhookBalanceConfirmedUpdates, eth(1)))
	var reverted bool
	if err := rpcClient.CallContext(ctx, &reverted, "evm_revert", snapshot); err != nil || !reverted {
		t.Fatalf("evm_revert: %v %v", reverted, err)
	}
	if _, err := node.Faucet().Fund(ctx, address, eth(2), nil); err != nil { // the same height, another block
		t.Fatal(err)
	}
	rc.awaitBody("the confirmed 2 ETH of the new block", native(api.WebhookBalanceConfirmedUpdates, eth(2)))
	for range 3 {
		if err := rpcClient.CallContext(ctx, nil, "evm_mine"); err != nil {
			t.Fatal(err)
		}
	}
	rc.awaitBody("the finalized 2 ETH", native(api.WebhookBalanceFinalizedUpdates, eth(2)))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, e := range rc.events {
		var b map[string]any
		if json.Unmarshal(e.body, &b) == nil && native(api.WebhookBalanceFinalizedUpdates, eth(1))(e.eventType, b) {
			t.Fatalf("the transfer of the dropped block was finalized: %s", e.body)
		}
	}
}

// A reorganisation deeper than the confirmation depth, made with evm_snapshot and evm_revert after a transfer was
// finalized: the watcher goes back to the common ancestor, withdraws the finalized event of the dropped block (the same
// body with "removed": true, after it, under "withdrawn:" and its id), and finalizes the replacing block's transfer
// under an event id of its own.
func TestBalanceWebhooksAcrossADeepReorganisation(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		node, rpcClient := ownChain(t)
		s := webhookStack(t, b)
		rc, off := newReceiver(t, s, 0), newReceiver(t, s, 0)
		s.subscribe(rc.srv.URL, "", api.WebhookBalanceFinalizedUpdates)
		offID := s.subscribe(off.srv.URL, "", api.WebhookBalanceFinalizedUpdates) // deactivated before the reorganisation
		w, _, err := s.root.CreateWallet(ctx, s.boot.OrganizationID, api.CreateWalletIntent{WalletName: "deep", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		address := common.HexToAddress(w.Addresses[0])
		watchCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- s.coord.WatchBalances(watchCtx, []coordinator.Network{{CAIP2: "eip155:" + node.ChainID().String(), RPCURL: node.RPCURL(),
				Confirmations: 2, PollInterval: 20 * time.Millisecond}})
		}()
		t.Cleanup(func() { stop(); <-done })
		s.awaitCursors("eip155:" + node.ChainID().String())
		mine := func(n int) {
			for range n {
				if err := rpcClient.CallContext(ctx, nil, "evm_mine"); err != nil {
					t.Fatal(err)
				}
			}
		}
		eth := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether)) }
		finalized := func(amount *big.Int, removed bool) func(string, map[string]any) bool {
			return func(got string, b map[string]any) bool {
				return got == api.WebhookBalanceFinalizedUpdates && b["amount"] == amount.String() && (b["removed"] == true) == removed
			}
		}

		var snapshot hexutil.Uint64
		if err := rpcClient.CallContext(ctx, &snapshot, "evm_snapshot"); err != nil {
			t.Fatal(err)
		}
		if _, err := node.Faucet().Fund(ctx, address, eth(1), nil); err != nil {
			t.Fatal(err)
		}
		mine(2)
		first := rc.awaitBody("the finalized 1 ETH", finalized(eth(1), false))
		off.awaitBody("the finalized 1 ETH at the other endpoint", finalized(eth(1), false))
		inactive := false
		if _, _, err := s.root.UpdateWebhookEndpoint(ctx, s.boot.OrganizationID, api.UpdateWebhookEndpointIntent{EndpointID: offID, IsActive: &inactive}); err != nil {
			t.Fatal(err)
		}
		var reverted bool // three blocks back: deeper than the two confirmations
		if err := rpcClient.CallContext(ctx, &reverted, "evm_revert", snapshot); err != nil || !reverted {
			t.Fatalf("evm_revert: %v %v", reverted, err)
		}
		if _, err := node.Faucet().Fund(ctx, address, eth(2), nil); err != nil {
			t.Fatal(err)
		}
		mine(3)
		withdrawn := rc.awaitBody("the withdrawal of the finalized 1 ETH", finalized(eth(1), true))
		if withdrawn["blockHash"] != first["blockHash"] || withdrawn["transactionHash"] != first["transactionHash"] {
			t.Errorf("withdrew %v, finalized %v", withdrawn, first)
		}
		// The withdrawals were written together, in one transaction: none went to the deactivated endpoint.
		list, err := s.root.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: s.boot.OrganizationID, EndpointID: offID})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list.Deliveries {
			if strings.HasPrefix(d.EventID, "withdrawn:") {
				t.Errorf("a deactivated endpoint was sent %s", d.EventID)
			}
		}
		second := rc.awaitBody("the finalized 2 ETH of the new chain", finalized(eth(2), false))
		if second["blockNumber"] != first["blockNumber"] || second["blockHash"] == first["blockHash"] {
			t.Errorf("finalized %v after %v: not the replacing block", second, first)
		}

		rc.mu.Lock()
		defer rc.mu.Unlock()
		order := map[string]int{}
		for i, e := range rc.events {
			if _, seen := order[e.eventID]; seen {
				t.Errorf("event %s delivered twice", e.eventID)
			}
			order[e.eventID] = i
		}
		var firstID string
		for id := range order {
			if strings.HasPrefix(id, "finalized:") && strings.HasSuffix(id, first["blockHash"].(string)) {
				firstID = id
			}
		}
		if firstID == "" {
			t.Fatalf("no finalized event id names block %v: %v", first["blockHash"], order)
		}
		if i, ok := order["withdrawn:"+firstID]; !ok || i < order[firstID] {
			t.Errorf("withdrawal of %s at %d (found %v), after the event at %d", firstID, i, ok, order[firstID])
		}
	})
}

// ownChain starts a dev chain of the test's own (the reorganisations these tests make would disturb the shared one)
// and a JSON-RPC client of it, both closed when the test ends.
func ownChain(t *testing.T) (*chain.Node, *rpc.Client) {
	t.Helper()
	node, err := chain.Start(context.Background(), chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	rpcClient, err := rpc.DialContext(context.Background(), node.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rpcClient.Close)
	return node, rpcClient
}
