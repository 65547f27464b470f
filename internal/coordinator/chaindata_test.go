package coordinator_test

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// watchFromHead starts the balance watchers on the networks, from the blocks after the current heads, until the test
// ends.
func (s *stack) watchFromHead(t *testing.T, heads map[string]uint64, networks ...coordinator.Network) {
	t.Helper()
	for network, head := range heads {
		if err := s.store.Write(bg, func(tx *store.Tx) error {
			for _, w := range []string{"balance-confirmed", "balance-finalized"} {
				if err := tx.SetChainCursor(bg, network, w, store.ChainCursor{Next: head + 1}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.coord.FollowChains(networks); err != nil { // before any query, as the stack does
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.coord.WatchBalances(ctx, networks) }()
	t.Cleanup(func() { stop(); <-done })
}

// history waits until the address's history lists n transactions, then returns them.
func (s *stack) ethHistory(t *testing.T, network, address string, n int, ready func([]api.EthTransactionHistoryItem) bool) []api.EthTransactionHistoryItem {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := s.root.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: s.boot.OrganizationID, Address: address,
			CAIP2: network, PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Transactions) == n && (ready == nil || ready(res.Transactions)) {
			return res.Transactions
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history of %s has %d transactions, want %d: %+v", address, len(res.Transactions), n, res.Transactions)
		}
	}
}

// The EVM chain data of a wallet account on the dev chain, funded (1 ETH, 100 USDC) and then sending through the
// coordinator: its history, newest first, with each transaction's block, fee, transfers (assets with their CAIP-19
// ids and display values) and origin, FINALIZED once a block is on top; pages by pageInfo cursors; its non-zero
// balances at the last block the watcher read, equal to the node's; the network's supported assets, their metadata read
// from the contracts. Bad input gets the documented errors.
func TestEVMChainData(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	network := caip2(node)
	usdc, dai := node.Contracts()[contracts.USDC], node.Contracts()[contracts.DAI]
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := sendingStack(t, b, node)
		org := s.boot.OrganizationID
		address := s.ethWallet("history")
		head, err := node.Client().BlockNumber(bg)
		if err != nil {
			t.Fatal(err)
		}
		s.watchFromHead(t, map[string]uint64{network: head}, coordinator.Network{CAIP2: network, RPCURL: node.RPCURL(), Confirmations: 1,
			PollInterval: 20 * time.Millisecond, Tokens: []send.Token{{Address: usdc.Hex()}, {Address: dai.Hex()}}})

		if _, err := node.Faucet().Fund(bg, common.HexToAddress(address), big.NewInt(params.Ether), map[string]*big.Int{"USDC": big.NewInt(100_000_000)}); err != nil {
			t.Fatal(err)
		}
		recipient := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
		id := mustSend(t, s, address, network, api.EthCallParams{To: recipient.Hex(), Value: "1000000000000000"})
		st, err := s.waitSend(id)
		if err != nil {
			t.Fatal(err)
		}
		sendActs, _ := s.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org, FilterByType: []string{api.EthSendTransactionV2.Type}})
		// One more block finalizes them all (Confirmations 1).
		if _, err := node.Faucet().Fund(bg, node.DevAccount(), big.NewInt(1), nil); err != nil {
			t.Fatal(err)
		}
		items := s.ethHistory(t, network, address, 3, func(items []api.EthTransactionHistoryItem) bool {
			for _, i := range items {
				if i.Status != api.TxHistoryFinalized {
					return false
				}
			}
			return true
		})
		sent, token, coin := items[0], items[1], items[2]
		if sent.TransactionHash != st.Eth.TxHash || sent.Origin != api.OriginSigil || sent.Turnkey == nil ||
			sent.Turnkey.ActivityFingerprint != sendActs.Activities[0].Fingerprint || sent.Turnkey.SubmittedAt == "" || sent.Turnkey.Sponsored ||
			!strings.EqualFold(sent.From, address) || sent.To != recipient.Hex() || sent.ExecutionFailed == nil || *sent.ExecutionFailed {
			t.Errorf("the send through the coordinator: %+v", sent)
		}
		if len(sent.Transfers) != 1 || sent.Transfers[0].Direction != api.TransferOut || sent.Transfers[0].Amount != "1000000000000000" ||
			sent.Transfers[0].Counterparty != recipient.Hex() || sent.Transfers[0].Asset.CAIP19 != network+"/slip44:60" || sent.Transfers[0].Display.Crypto != "0.001" {
			t.Errorf("the send's transfers: %+v", sent.Transfers)
		}
		receipt, err := node.Client().TransactionReceipt(bg, common.HexToHash(sent.TransactionHash))
		if err != nil {
			t.Fatal(err)
		}
		if fee := new(big.Int).Mul(new(big.Int).SetUint64(receipt.GasUsed), receipt.EffectiveGasPrice); sent.Fee.Amount != fee.String() ||
			sent.Fee.CAIP19 != network+"/slip44:60" || sent.Block.Number != receipt.BlockNumber.String() || sent.Block.Hash != receipt.BlockHash.Hex() {
			t.Errorf("the send's fee and block: %+v %+v, receipt %v", sent.Fee, sent.Block, receipt)
		}
		if _, err := time.Parse(time.RFC3339, sent.Block.Timestamp); err != nil {
			t.Errorf("block timestamp %q", sent.Block.Timestamp)
		}
		usdcID := network + "/erc20:" + strings.ToLower(usdc.Hex())
		if token.Origin != api.OriginExternal || token.Turnkey != nil || len(token.Transfers) != 1 || token.Transfers[0].Direction != api.TransferIn ||
			token.Transfers[0].Asset == nil || token.Transfers[0].Asset.CAIP19 != usdcID || token.Transfers[0].Asset.Decimals != 6 ||
			token.Transfers[0].Asset.Symbol == "" || token.Transfers[0].Display.Crypto != "100" || token.To != usdc.Hex() {
			t.Errorf("the USDC funding: %+v", token)
		}
		if len(coin.Transfers) != 1 || coin.Transfers[0].Amount != "1000000000000000000" || coin.Transfers[0].Display.Crypto != "1" ||
			coin.Transfers[0].Counterparty != node.DevAccount().Hex() {
			t.Errorf("the ETH funding: %+v", coin)
		}

		// The history is the database's: a coordinator started again over it, its watcher not running, lists it whole.
		restarted := coordinator.New(s.store, coordinator.Config{Logger: slog.New(slog.DiscardHandler), Keyring: s.ring})
		if err := restarted.FollowChains([]coordinator.Network{{CAIP2: network, RPCURL: node.RPCURL()}}); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(restarted.Handler())
		t.Cleanup(srv.Close)
		again := client.New(srv.URL, s.boot.APIKey)
		again.Now = s.stamps.Now
		if res, err := again.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network}); err != nil ||
			len(res.Transactions) != 3 || res.Transactions[0].TransactionHash != sent.TransactionHash || res.Transactions[0].Status != api.TxHistoryFinalized {
			t.Fatalf("after a restart: %+v, %v", res, err)
		}

		// Pages: one at a time, by endCursor, and back by startCursor.
		page := func(p api.Pagination) *api.ListEthTransactionHistoryResponse {
			t.Helper()
			res, err := s.root.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network, PaginationOptions: &p})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		first := page(api.Pagination{Limit: "1"})
		if len(first.Transactions) != 1 || first.Transactions[0].TransactionHash != sent.TransactionHash || !first.PageInfo.HasNextPage || first.PageInfo.HasPreviousPage {
			t.Fatalf("page 1: %+v", first)
		}
		second := page(api.Pagination{Limit: "1", After: first.PageInfo.EndCursor})
		if len(second.Transactions) != 1 || second.Transactions[0].TransactionHash != token.TransactionHash || !second.PageInfo.HasNextPage || !second.PageInfo.HasPreviousPage {
			t.Fatalf("page 2: %+v", second)
		}
		last := page(api.Pagination{Limit: "5", After: second.PageInfo.EndCursor})
		if len(last.Transactions) != 1 || last.Transactions[0].TransactionHash != coin.TransactionHash || last.PageInfo.HasNextPage {
			t.Fatalf("page 3: %+v", last)
		}
		back := page(api.Pagination{Limit: "1", Before: second.PageInfo.StartCursor})
		if len(back.Transactions) != 1 || back.Transactions[0].TransactionHash != sent.TransactionHash || back.PageInfo.HasPreviousPage || !back.PageInfo.HasNextPage {
			t.Fatalf("back to page 1: %+v", back)
		}

		// Balances at the watched block: the node's, non-zero only (no DAI).
		var balances []api.AssetBalance
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			res, err := s.root.GetWalletAddressBalances(bg, api.GetWalletAddressBalancesRequest{OrganizationID: org, Address: address, CAIP2: network})
			if err != nil {
				t.Fatal(err)
			}
			balances = res.Balances
			want, _ := node.Client().BalanceAt(bg, common.HexToAddress(address), nil)
			if len(balances) == 2 && balances[0].Balance == want.String() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("balances %+v, the node's ETH %s", balances, want)
			}
		}
		if balances[0].CAIP19 != network+"/slip44:60" || balances[0].Symbol != "ETH" || balances[0].Decimals != 18 || balances[0].Display == nil ||
			!strings.HasPrefix(balances[0].Display.Crypto, "0.998") || balances[1].CAIP19 != usdcID || balances[1].Balance != "100000000" ||
			balances[1].Display.Crypto != "100" || balances[1].Decimals != 6 {
			t.Errorf("balances: %+v", balances)
		}
		assets, err := s.root.ListSupportedAssets(bg, api.ListSupportedAssetsRequest{OrganizationID: org, CAIP2: network})
		if err != nil {
			t.Fatal(err)
		}
		if len(assets.Assets) != 3 || assets.Assets[0].Symbol != "ETH" || assets.Assets[1].CAIP19 != usdcID || assets.Assets[2].Decimals != 18 ||
			assets.Assets[2].CAIP19 != network+"/erc20:"+strings.ToLower(dai.Hex()) || assets.Assets[2].Symbol == "" || assets.Assets[2].Name == "" {
			t.Errorf("supported assets: %+v", assets.Assets)
		}

		// Bad input.
		pk, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
			PrivateKeyName: "k", Curve: "CURVE_SECP256K1", PrivateKeyTags: []string{}, AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}})
		if err != nil {
			t.Fatal(err)
		}
		balancesOf := func(address, network string) error {
			_, err := s.root.GetWalletAddressBalances(bg, api.GetWalletAddressBalancesRequest{OrganizationID: org, Address: address, CAIP2: network})
			return err
		}
		expectErr(t, "an unknown network", balancesOf(address, "eip155:1"), apierr.InvalidArgument, `"eip155:1" is not a network this server follows`)
		expectErr(t, "a malformed address", balancesOf("0x1234", network), apierr.InvalidArgument, "is not an EVM address")
		expectErr(t, "a Solana address", balancesOf("11111111111111111111111111111112", network), apierr.InvalidArgument, "is a Solana address")
		expectErr(t, "a private key's address", balancesOf(pk.PrivateKeys[0].Addresses[0].Address, network), apierr.InvalidArgument, "only wallet account addresses")
		expectErr(t, "another's address", balancesOf(recipient.Hex(), network), apierr.NotFound, "is not a wallet account of organization")
		_, err = s.root.ListSolTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network})
		expectErr(t, "a Solana history of an EVM network", err, apierr.InvalidArgument, "use list_eth_transaction_history")
		_, err = s.root.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network,
			PaginationOptions: &api.Pagination{After: "7"}})
		expectErr(t, "a cursor of nothing", err, apierr.InvalidArgument, "is not a cursor of a transaction history page")
	})
}

// A reorganisation that drops a block drops its transactions from the history: the watcher, gone back to the common
// ancestor, deletes the entries it wrote from there on and writes the new blocks' instead.
func TestEVMHistoryAcrossAReorganisation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	node, rpcClient := ownChain(t)
	s := newStack(t, testdb.SQLite(t))
	network := caip2(node)
	address := s.ethWallet("reorg")
	head, _ := node.Client().BlockNumber(ctx)
	s.watchFromHead(t, map[string]uint64{network: head}, coordinator.Network{CAIP2: network, RPCURL: node.RPCURL(), Confirmations: 3, PollInterval: 20 * time.Millisecond})
	var snapshot hexutil.Uint64
	if err := rpcClient.CallContext(ctx, &snapshot, "evm_snapshot"); err != nil {
		t.Fatal(err)
	}
	eth := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether)) }
	if _, err := node.Faucet().Fund(ctx, common.HexToAddress(address), eth(1), nil); err != nil {
		t.Fatal(err)
	}
	dropped := s.ethHistory(t, network, address, 1, nil)[0]
	var reverted bool
	if err := rpcClient.CallContext(ctx, &reverted, "evm_revert", snapshot); err != nil || !reverted {
		t.Fatalf("evm_revert: %v %v", reverted, err)
	}
	if _, err := node.Faucet().Fund(ctx, common.HexToAddress(address), eth(2), nil); err != nil { // the same height, another block
		t.Fatal(err)
	}
	items := s.ethHistory(t, network, address, 1, func(items []api.EthTransactionHistoryItem) bool {
		return items[0].TransactionHash != dropped.TransactionHash
	})
	if items[0].Transfers[0].Amount != eth(2).String() || items[0].Block.Number != dropped.Block.Number || items[0].Block.Hash == dropped.Block.Hash {
		t.Fatalf("after the reorganisation: %+v (dropped %+v)", items[0], dropped)
	}
}

// The Solana chain data of a wallet account on the dev node: an airdrop to it and a send from it through the
// coordinator are in its history, with their slots, fees, signers and System Program transfers, the send's origin the
// coordinator; its SOL balance is the cluster's; the cluster's supported asset is SOL. An EVM address, or the EVM
// history of a cluster, is refused.
func TestSolanaChainData(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := solanaNode(t)
		network := node.CAIP2()
		s := solanaSendingStack(t, b, node)
		org := s.boot.OrganizationID
		address, _ := s.solanaWallet("sol-history")
		var slot uint64
		solanaRPC(t, node, &slot, "getSlot", map[string]string{"commitment": "confirmed"})
		s.watchFromHead(t, map[string]uint64{network: slot}, coordinator.Network{CAIP2: network, RPCURL: node.URL(), PollInterval: 20 * time.Millisecond})

		airdrop, err := node.Airdrop(solKey(t, address), lamportsPerSOL)
		if err != nil {
			t.Fatal(err)
		}
		strangerPub, _, _ := ed25519.GenerateKey(nil)
		stranger := solana.Key(strangerPub).String()
		awaitBalance := func() []api.AssetBalance {
			t.Helper()
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				res, err := s.root.GetWalletAddressBalances(bg, api.GetWalletAddressBalancesRequest{OrganizationID: org, Address: address, CAIP2: network})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Balances) == 1 {
					return res.Balances
				}
				if time.Now().After(deadline) {
					t.Fatalf("balances: %+v", res.Balances)
				}
			}
		}
		awaitBalance()
		id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{SignWiths: []string{address}, Caip2: network,
			UnsignedTransaction: unsignedSolana(t, address, solana.SystemTransfer(solKey(t, address), solKey(t, stranger), 1_000_000))})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.root.WaitForSendTransaction(bg, org, id, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var items []api.SolTransactionHistoryItem
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			res, err := s.root.ListSolTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: "solana:" + strings.TrimPrefix(network, "solana:")})
			if err != nil {
				t.Fatal(err)
			}
			if items = res.Transactions; len(items) == 2 && items[0].Status == api.TxHistoryFinalized && items[1].Status == api.TxHistoryFinalized {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("history: %+v", items)
			}
		}
		sent, in := items[0], items[1]
		if sent.Signature != st.Solana.Signature || sent.Origin != api.OriginSigil || sent.Turnkey == nil || sent.FeePayer != address ||
			len(sent.Signers) != 1 || sent.Signers[0] != (api.SolTransactionHistorySigner{Address: address, Writable: true}) ||
			sent.Fee.Amount == "0" || sent.Fee.CAIP19 != network+"/slip44:501" || len(sent.Transfers) != 1 ||
			sent.Transfers[0].Direction != api.TransferOut || sent.Transfers[0].Counterparty != stranger || sent.Transfers[0].Amount != "1000000" ||
			sent.Transfers[0].Display.Crypto != "0.001" || *sent.ExecutionFailed {
			t.Errorf("the send: %+v", sent)
		}
		if in.Signature != airdrop || in.Origin != api.OriginExternal || len(in.Transfers) != 1 || in.Transfers[0].Direction != api.TransferIn ||
			in.Transfers[0].Amount != "1000000000" || in.Block.Number == "" || in.Block.Hash == "" {
			t.Errorf("the airdrop: %+v", in)
		}
		var want struct{ Value uint64 }
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			solanaRPC(t, node, &want, "getBalance", address, map[string]string{"commitment": "confirmed"})
			if got := awaitBalance(); got[0].Balance == big.NewInt(int64(want.Value)).String() {
				if got[0].CAIP19 != network+"/slip44:501" || got[0].Symbol != "SOL" || got[0].Decimals != 9 {
					t.Errorf("balance %+v", got[0])
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the balance never reached the cluster's %d", want.Value)
			}
		}
		assets, err := s.root.ListSupportedAssets(bg, api.ListSupportedAssetsRequest{OrganizationID: org, CAIP2: network})
		if err != nil || len(assets.Assets) != 1 || assets.Assets[0].CAIP19 != network+"/slip44:501" {
			t.Errorf("supported assets: %+v, %v", assets, err)
		}
		_, err = s.root.GetWalletAddressBalances(bg, api.GetWalletAddressBalancesRequest{OrganizationID: org, Address: "0x000000000000000000000000000000000000bEEF", CAIP2: network})
		expectErr(t, "an EVM address on a Solana cluster", err, apierr.InvalidArgument, "is an EVM address")
		_, err = s.root.ListEthTransactionHistory(bg, api.ListTransactionHistoryRequest{OrganizationID: org, Address: address, CAIP2: network})
		expectErr(t, "an EVM history of a Solana cluster", err, apierr.InvalidArgument, "use list_sol_transaction_history")
	})
}
