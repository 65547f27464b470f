package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// anvilKey is the dev chain's dev account: Anvil's well-known account 0, which deploys its contracts.
const anvilKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

// latencies keeps one kind of request's durations, for percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B, name string) time.Duration {
	slices.Sort(l)
	p50, p99 := l[len(l)/2], l[len(l)*99/100]
	b.ReportMetric(float64(p50.Microseconds()), name+"-p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), name+"-p99-µs")
	return p50
}

// BenchmarkWalletAddressBalances20Tokens measures get_wallet_address_balances, one client over HTTP on SQLite, for
// an address holding ETH and 20 ERC-20 tokens on the dev chain: in interleaved rounds, as kept for the watched block
// (cached) and read from the node again (one batched call of 21).
func BenchmarkWalletAddressBalances20Tokens(b *testing.B) {
	node, err := chain.Start(bg, chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { node.Close() })
	s := newStack(b, testdb.SQLite(b))
	org := s.boot.OrganizationID
	address := s.ethWallet("twenty tokens")
	key, _ := crypto.HexToECDSA(anvilKey)
	dev := chain.NewAccount(node.Client(), key, node.ChainID())
	token, err := contracts.Load(contracts.TestToken)
	if err != nil {
		b.Fatal(err)
	}
	var tokens []send.Token
	for i := range 20 {
		deploy, err := token.DeployData(fmt.Sprintf("Bench Token %d", i), fmt.Sprintf("BT%d", i), uint8(6+i%13), dev.Address())
		if err != nil {
			b.Fatal(err)
		}
		receipt, err := dev.Transact(bg, nil, nil, deploy)
		if err != nil {
			b.Fatal(err)
		}
		mint, _ := token.Pack("mint", common.HexToAddress(address), big.NewInt(int64(1_000_000+i)))
		if _, err := dev.Transact(bg, &receipt.ContractAddress, nil, mint); err != nil {
			b.Fatal(err)
		}
		tokens = append(tokens, send.Token{Address: receipt.ContractAddress.Hex()})
	}
	to := common.HexToAddress(address)
	if _, err := dev.Transact(bg, &to, big.NewInt(1e18), nil); err != nil {
		b.Fatal(err)
	}
	network := caip2(node)
	head, _ := node.Client().BlockNumber(bg)
	if err := s.store.Write(bg, func(tx *store.Tx) error {
		return tx.SetChainCursor(bg, network, "balance-confirmed", store.ChainCursor{Next: head + 1})
	}); err != nil {
		b.Fatal(err)
	}
	if err := s.coord.FollowChains([]coordinator.Network{{CAIP2: network, RPCURL: node.RPCURL(), Tokens: tokens}}); err != nil {
		b.Fatal(err)
	}
	req := api.GetWalletAddressBalancesRequest{OrganizationID: org, Address: address, CAIP2: network}
	if res, err := s.root.GetWalletAddressBalances(bg, req); err != nil || len(res.Balances) != 21 {
		b.Fatalf("balances: %+v, %v", res, err)
	}
	var cached, fresh latencies
	for b.Loop() {
		for _, l := range []*latencies{&cached, &fresh} {
			if l == &fresh {
				s.coord.ForgetBalances()
			}
			start := time.Now()
			if _, err := s.root.GetWalletAddressBalances(bg, req); err != nil {
				b.Fatal(err)
			}
			*l = append(*l, time.Since(start))
		}
	}
	c, f := cached.report(b, "cached"), fresh.report(b, "node")
	b.ReportMetric(float64(f)/float64(c), "node/cached-p50")
}

// BenchmarkEthTransactionHistoryAtDepth measures list_eth_transaction_history of an address with 10,000 transactions,
// one client over HTTP, pages of 10 read in interleaved rounds at the top, in the middle (after 5,000) and at the
// bottom (after 9,990): the index finds a page from its cursor, so the three cost the same.
func BenchmarkEthTransactionHistoryAtDepth(b *testing.B) {
	for _, backend := range []func(testing.TB) testdb.Backend{testdb.SQLite, testdb.Postgres} {
		db := backend(b)
		b.Run(db.Name, func(b *testing.B) { benchmarkHistoryDepth(b, db) })
	}
}

func benchmarkHistoryDepth(b *testing.B, db testdb.Backend) {
	s := newStack(b, db)
	org := s.boot.OrganizationID
	address := s.ethWallet("busy")
	network := "eip155:31337"
	if err := s.coord.FollowChains([]coordinator.Network{{CAIP2: network, RPCURL: "http://127.0.0.1:9"}}); err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	item := func(i int) []byte {
		fee := api.TransactionHistoryFee{Amount: "21000000000000", CAIP19: network + "/slip44:60"}
		t := api.EthTransactionHistoryItem{TransactionHash: fmt.Sprintf("0x%064x", i), Block: api.TransactionHistoryBlock{Number: fmt.Sprint(i),
			Hash: fmt.Sprintf("0x%064x", i+1), Timestamp: "2026-12-01T00:00:00Z"}, From: "0x000000000000000000000000000000000000dEaD",
			To: address, Fee: fee, Transfers: []api.TransactionHistoryTransfer{{Direction: api.TransferIn, Amount: "1000000",
				Counterparty: "0x000000000000000000000000000000000000dEaD", Asset: &api.TransactionHistoryAsset{CAIP19: network + "/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3",
					Symbol: "USDC", Name: "USD Coin", Decimals: 6}, Display: &api.TransactionHistoryDisplay{Crypto: "1"}}}}
		raw, _ := json.Marshal(t)
		return raw
	}
	for start := 0; start < n; start += 1000 {
		if err := s.store.Write(bg, func(tx *store.Tx) error {
			var rows []store.ChainTransaction
			for i := start; i < start+1000; i++ {
				rows = append(rows, store.ChainTransaction{Network: network, Address: strings.ToLower(address), Block: uint64(i + 1), Position: 0,
					TxHash: fmt.Sprintf("0x%064x", i), Item: item(i)})
			}
			return tx.RecordChainTransactions(bg, rows)
		}); err != nil {
			b.Fatal(err)
		}
	}
	// A cursor after the newest d entries is the d-th newest entry's: block n-d+1, position 0.
	after := func(d int) string { return fmt.Sprintf("%d_0", n-d+1) }
	pages := []struct {
		name string
		p    api.Pagination
	}{{"top", api.Pagination{Limit: "10"}}, {"middle", api.Pagination{Limit: "10", After: after(5000)}}, {"bottom", api.Pagination{Limit: "10", After: after(9990)}}}
	got := make([]latencies, len(pages))
	for b.Loop() {
		for i, pg := range pages {
			p := pg.p
			start := time.Now()
			res, err := s.root.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network, PaginationOptions: &p})
			got[i] = append(got[i], time.Since(start))
			if err != nil || len(res.Transactions) != 10 {
				b.Fatalf("%s: %d transactions, %v", pg.name, len(res.Transactions), err)
			}
		}
	}
	top := got[0].report(b, "top")
	got[1].report(b, "middle")
	bottom := got[2].report(b, "bottom")
	b.ReportMetric(float64(bottom)/float64(top), "bottom/top-p50")
}

// BenchmarkAllowlistAdmission measures what admitting requests by the IP allowlists costs: in interleaved rounds,
// whoami by the keys of a parent organization with a list of 100 rules (its and its key's lists read from the
// database, the list admitting the request), of a parent organization with none (the same read, which finds nothing)
// and of a sub-organization (which has none, and reads nothing), one client over HTTP.
func BenchmarkAllowlistAdmission(b *testing.B) {
	for _, backend := range []func(testing.TB) testdb.Backend{testdb.SQLite, testdb.Postgres} {
		db := backend(b)
		b.Run(db.Name, func(b *testing.B) {
			s := newStack(b, db)
			org := s.boot.OrganizationID
			var rules []api.IPAllowlistIntentRule
			for i := range 99 {
				rules = append(rules, api.IPAllowlistIntentRule{CIDR: fmt.Sprintf("10.%d.0.0/16", i)})
			}
			rules = append(rules, api.IPAllowlistIntentRule{CIDR: "127.0.0.0/8"})
			if _, _, err := s.root.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules}); err != nil {
				b.Fatal(err)
			}
			open, err := s.coord.CreateRootOrganization(bg, "Open", "root")
			if err != nil {
				b.Fatal(err)
			}
			subKey, subParams := newKey(b, "API_KEY_CURVE_P256")
			sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Sub", subParams))
			if err != nil {
				b.Fatal(err)
			}
			callers := []struct {
				name   string
				client interface {
					Whoami(ctx context.Context, org string) (*api.WhoamiResponse, error)
				}
				org string
			}{{"listed", s.root, org}, {"unlisted", s.client(open.APIKey), open.OrganizationID}, {"suborg", s.client(subKey), sub.SubOrganizationID}}
			got := make([]latencies, len(callers))
			for b.Loop() {
				for i, c := range callers {
					start := time.Now()
					if _, err := c.client.Whoami(bg, c.org); err != nil {
						b.Fatal(err)
					}
					got[i] = append(got[i], time.Since(start))
				}
			}
			listed, unlisted, suborg := got[0].report(b, "listed"), got[1].report(b, "unlisted"), got[2].report(b, "suborg")
			b.ReportMetric(float64(listed)/float64(suborg), "listed/suborg-p50")
			b.ReportMetric(float64(unlisted)/float64(suborg), "unlisted/suborg-p50")
		})
	}
}
