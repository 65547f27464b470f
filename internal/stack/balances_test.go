package stack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/stack"
)

// checkSolanaBalances checks that the stack watches its Solana dev node: an airdrop to a Solana address of the root
// organization reaches the organization's endpoint as a BALANCE_CONFIRMED_UPDATES event of the dev node's network.
func checkSolanaBalances(t *testing.T, s *stack.Stack) {
	t.Helper()
	ctx := context.Background()
	b := s.Bootstrap()
	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	root := client.New(b.CoordinatorURL, key)
	events := make(chan map[string]any, 100)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if json.NewDecoder(r.Body).Decode(&body) == nil {
			select {
			case events <- body:
			default:
			}
		}
	}))
	defer receiver.Close()
	if _, _, err := root.CreateWebhookEndpoint(ctx, b.OrganizationID, api.CreateWebhookEndpointIntent{URL: receiver.URL, Name: "solana balances",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookBalanceConfirmedUpdates}}}); err != nil {
		t.Fatal(err)
	}
	w, _, err := root.CreateWallet(ctx, b.OrganizationID, api.CreateWalletIntent{WalletName: "solana balances", Accounts: []api.WalletAccountParams{
		{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/501'/0'/0'", AddressFormat: "ADDRESS_FORMAT_SOLANA"}}})
	if err != nil {
		t.Fatal(err)
	}
	address := w.Addresses[0]
	// Airdrops until one is reported: one made before the watcher's first poll, which starts it at the cluster's
	// latest slot, is not.
	deadline := time.After(30 * time.Second)
	for {
		if _, err := solanadev.RequestAirdrop(ctx, b.Solana.RPCURL, address, 1_000_000_000); err != nil {
			t.Fatal(err)
		}
		wait := time.After(3 * time.Second)
		for waiting := true; waiting; {
			select {
			case body := <-events:
				if body["address"] == address && body["network"] == b.Solana.CAIP2 && body["direction"] == "in" && body["amount"] == "1000000000" {
					return
				}
			case <-wait:
				waiting = false
			case <-deadline:
				t.Fatalf("no balance event of %s on %s", address, b.Solana.CAIP2)
			}
		}
	}
}

// The dashboard reads EVM balances only: the watched Solana dev node is not among its chains.
func checkDashboardChains(t *testing.T, s *stack.Stack) {
	t.Helper()
	b := s.Bootstrap()
	if code, body := get(t, b.DashboardURL+"/config.json"); code != http.StatusOK || strings.Contains(string(body), b.Solana.CAIP2) ||
		!strings.Contains(string(body), "eip155:") {
		t.Errorf("the dashboard's config.json: %d %s", code, body)
	}
}
