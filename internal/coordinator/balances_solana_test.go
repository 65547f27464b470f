package coordinator_test

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
	"github.com/sigil/sigil/internal/webhook"
)

// Balance webhooks of a Solana cluster, against the dev node: an airdrop to an organization's address is reported
// confirmed, then finalized, with the airdrop's signature, slot and blockhash; a transfer from it, made while the
// watcher is stopped, is reported once the watcher starts again from its cursors, its amount the transfer and the fee
// (named) that the address paid. Each event arrives once; the faucet and the recipient, no organization's, have none.
func TestSolanaBalanceWebhooks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := solanaNode(t)
		network := node.CAIP2()
		s := solanaSendingStack(t, b, node, func(c *coordinator.Config) {
			c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond,
				Backoff: webhook.Backoff{Base: time.Millisecond, Cap: 5 * time.Millisecond, MaxAttempts: 5}}
		})
		runWebhooks(t, s.coord)
		rc := newReceiver(t, s, 0)
		endpointID := s.subscribe(rc.srv.URL, "", api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates)
		payer, _ := s.solanaWallet("watched")
		strangerPub, _, _ := ed25519.GenerateKey(nil)
		stranger := solana.Key(strangerPub).String()

		watch := func() (stop func()) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- s.coord.WatchBalances(ctx, []coordinator.Network{{CAIP2: network, RPCURL: node.URL(), PollInterval: 20 * time.Millisecond}})
			}()
			return func() { cancel(); <-done }
		}
		stop := watch()
		t.Cleanup(func() { stop() })
		s.awaitCursors(network)

		in, err := node.Airdrop(solKey(t, payer), lamportsPerSOL)
		if err != nil {
			t.Fatal(err)
		}
		of := func(eventType, signature string) func(string, map[string]any) bool {
			return func(got string, body map[string]any) bool {
				return got == eventType && body["transactionHash"] == signature
			}
		}
		var landed struct{ Slot uint64 }
		var block struct{ Blockhash string }
		for _, eventType := range []string{api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates} {
			body := rc.awaitBody(eventType+" of the airdrop", of(eventType, in))
			if landed.Slot == 0 { // confirmed now: the cluster tells where it landed
				solanaRPC(t, node, &landed, "getTransaction", in, map[string]string{"commitment": "confirmed"})
				solanaRPC(t, node, &block, "getBlock", landed.Slot, map[string]any{"commitment": "confirmed", "transactionDetails": "none"})
			}
			asset, _ := body["asset"].(map[string]any)
			if body["address"] != payer || body["direction"] != "in" || body["amount"] != strconv.Itoa(lamportsPerSOL) || asset["type"] != "native" ||
				body["network"] != network || body["organizationId"] != s.boot.OrganizationID || body["fee"] != nil ||
				body["blockNumber"] != strconv.FormatUint(landed.Slot, 10) || body["blockHash"] != block.Blockhash || body["timestamp"] == "" {
				t.Errorf("%s: %v", eventType, body)
			}
		}

		stop()
		tx := unsignedSolana(t, payer, solana.SystemTransfer(solKey(t, payer), solKey(t, stranger), lamportsPerSOL/4))
		id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: tx, SignWiths: []string{payer}, Caip2: network})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(id)
		if err != nil || st.Solana == nil {
			t.Fatalf("send: %+v %v", st, err)
		}
		out := st.Solana.Signature
		stop = watch()
		for _, eventType := range []string{api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates} {
			body := rc.awaitBody(eventType+" of the transfer", of(eventType, out))
			if body["address"] != payer || body["direction"] != "out" || body["fee"] != "5000" ||
				body["amount"] != strconv.Itoa(lamportsPerSOL/4+5000) {
				t.Errorf("%s: %v", eventType, body)
			}
		}
		s.awaitPolls(network, 2, endpointID) // anything read twice would have arrived
		rc.mu.Lock()
		defer rc.mu.Unlock()
		ids := map[string]int{}
		for _, e := range rc.events {
			ids[e.eventID]++
		}
		want := []string{"confirmed:" + network + ":" + in + ":" + payer + ":in", "confirmed:" + network + ":" + out + ":" + payer + ":out"}
		for _, id := range want {
			if ids[id] != 1 {
				t.Errorf("event %s arrived %d times", id, ids[id])
			}
		}
		if len(rc.events) != 4 || len(ids) != 4 {
			t.Errorf("%d events, %d ids, want 4 (the faucet's and the recipient's are no organization's): %v", len(rc.events), len(ids), ids)
		}
	})
}

// The dev node restarted over its ledger skips a slot, as a cluster skips a slot without a block: the watcher, which
// kept polling while the node was down, goes past the skipped slot (getBlocks does not list it) and reports the next
// airdrop.
func TestSolanaBalanceWebhooksAcrossASkippedSlot(t *testing.T) {
	t.Parallel()
	ledger := filepath.Join(t.TempDir(), "ledger.json")
	start := func(listen string) *solanadev.Node {
		n, err := solanadev.Start(context.Background(), solanadev.Config{ListenAddr: listen, SlotPeriod: 20 * time.Millisecond,
			StateFile: ledger, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	node := start("127.0.0.1:0")
	s := webhookStack(t, testdb.SQLite(t))
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, "", api.WebhookBalanceFinalizedUpdates)
	address, _ := s.solanaWallet("restarted")
	network, url := node.CAIP2(), node.URL()
	proxy := newNodeProxy(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.coord.WatchBalances(ctx, []coordinator.Network{{CAIP2: network, RPCURL: proxy.url, PollInterval: 20 * time.Millisecond}})
	}()
	t.Cleanup(func() { cancel(); <-done })
	finalized := func(amount string) func(string, map[string]any) bool {
		return func(_ string, b map[string]any) bool { return b["address"] == address && b["amount"] == amount }
	}
	s.awaitCursors(network)
	if _, err := node.Airdrop(solKey(t, address), lamportsPerSOL); err != nil {
		t.Fatal(err)
	}
	rc.awaitBody("the first airdrop", finalized("1000000000"))
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	down := proxy.unreachable.Load()
	testwait.Until(t, "polls that find no node", func() bool { return proxy.unreachable.Load() >= down+2 })
	node = start(strings.TrimPrefix(url, "http://"))
	defer node.Close()
	if _, err := node.Airdrop(solKey(t, address), 2*lamportsPerSOL); err != nil {
		t.Fatal(err)
	}
	rc.awaitBody("the airdrop after the restart", finalized("2000000000"))
	var slot uint64 // first: the finalized slot moves on every 400 ms
	solanaRPC(t, node, &slot, "getSlot", map[string]string{"commitment": "finalized"})
	var blocks []uint64
	solanaRPC(t, node, &blocks, "getBlocks", 0, slot, map[string]string{"commitment": "finalized"})
	if len(blocks) != int(slot) { // slots 0..slot, one skipped
		t.Errorf("%d blocks up to slot %d: want one slot skipped", len(blocks), slot)
	}
}

// A transaction that fails on chain (an overdraft, let through without preflight) still costs its fee payer the fee:
// the payer's confirmed event says so (amount and fee 5,000 lamports), and the recipient, whose balance did not move,
// has none. An endpoint filtered to another address, or another network, receives nothing of the payer's.
func TestSolanaBalanceWebhooksOfAFailedTransaction(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	network := node.CAIP2()
	nws, err := send.NewNetworks([]send.Network{{CAIP2: network, RPCURL: skipPreflight(t, node), NativeUSD: 150, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) {
		c.Networks = nws
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond,
			Backoff: webhook.Backoff{Base: time.Millisecond, Cap: 5 * time.Millisecond, MaxAttempts: 5}}
	})
	runSends(t, s.coord)
	runWebhooks(t, s.coord)
	payer, _ := s.solanaWallet("overdrawn")
	recipient, _ := s.solanaWallet("recipient")
	rc, elsewhere := newReceiver(t, s, 0), newReceiver(t, s, 0)
	endpoints := []string{
		s.subscribe(rc.srv.URL, `{"networks":["`+network+`"],"addresses":["`+payer+`","`+recipient+`"]}`, api.WebhookBalanceConfirmedUpdates),
		s.subscribe(elsewhere.srv.URL, `{"addresses":["`+recipient+`"]}`, api.WebhookBalanceConfirmedUpdates),
		s.subscribe(elsewhere.srv.URL, `{"networks":["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]}`, api.WebhookBalanceConfirmedUpdates),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.coord.WatchBalances(ctx, []coordinator.Network{{CAIP2: network, RPCURL: node.URL(), PollInterval: 20 * time.Millisecond}})
	}()
	t.Cleanup(func() { cancel(); <-done })
	s.awaitCursors(network)
	if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
		t.Fatal(err)
	}
	id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer,
		solana.SystemTransfer(solKey(t, payer), solKey(t, recipient), 2*lamportsPerSOL)), SignWiths: []string{payer}, Caip2: network})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := s.waitSend(id)
	if st == nil || st.Solana == nil || st.TxStatus != api.TxStatusFailed {
		t.Fatalf("the overdraft did not land failed: %+v", st)
	}
	body := rc.awaitBody("the fee of the failed transaction", func(_ string, b map[string]any) bool {
		return b["transactionHash"] == st.Solana.Signature
	})
	if body["address"] != payer || body["direction"] != "out" || body["amount"] != "5000" || body["fee"] != "5000" {
		t.Errorf("the failed transaction's event: %v", body)
	}
	s.awaitPolls(network, 2, endpoints...) // an event of the recipient's, or to the endpoints filtered elsewhere, would have arrived
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, e := range rc.events {
		if strings.Contains(string(e.body), recipient) {
			t.Errorf("an event of the recipient, whose balance did not move: %s", e.body)
		}
	}
	if len(rc.events) != 2 || elsewhere.count() != 0 {
		t.Errorf("%d events (want the airdrop's and the fee's), %d to the endpoint filtered elsewhere", len(rc.events), elsewhere.count())
	}
}

// nodeProxy forwards requests to a node and counts those it could not forward, as when the node is down.
type nodeProxy struct {
	url         string
	unreachable atomic.Int64
}

func newNodeProxy(t *testing.T, target string) *nodeProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &nodeProxy{}
	forward := httputil.NewSingleHostReverseProxy(u)
	forward.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		p.unreachable.Add(1)
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
	srv := httptest.NewServer(forward)
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}
