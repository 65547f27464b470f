package coordinator_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// What a node refuses for good is refused when it is submitted, with the node's reason, and nothing is recorded: a
// gas limit below what the transaction needs before it runs (a payment's 21,000; calldata's cost; a batch's; an
// undelegation's authorization), above 2^24 or 2^64-1, a priority fee above the fee cap; a signed transaction with
// any of these; and, with sponsor true, gas or fee fields at all (the sponsor's are the server's).
func TestSendsRefuseGasTheNodeRefuses(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
			nws, err := send.NewNetworks([]send.Network{{CAIP2: "eip155:1337", RPCURL: "http://127.0.0.1:9", // no worker sends
				BatchDelegate: common.HexToAddress("0x00000000000000000000000000000000000de1e9"), GasStation: common.HexToAddress("0x0000000000000000000000000000000000057a71")}})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Networks = nws
		})
		org := s.boot.OrganizationID
		from := s.ethWallet("refused")
		dead := "0x000000000000000000000000000000000000dEaD"
		yes := true
		transfer := "0x" + hex.EncodeToString(calldata(t, "transfer", other, big.NewInt(5)))
		for _, c := range []struct {
			name string
			p    api.EthSendTransactionIntentV2
			want string
		}{
			{"a payment with 20,000 gas", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead, Value: "1"}}, GasLimit: "20000"}, "intrinsic gas too low"},
			{"a token transfer with 21,000 gas", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: token.Hex(), Data: transfer}}, GasLimit: "21000"}, "intrinsic gas too low"},
			{"a batch with 22,000 gas", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead, Value: "1"}, {To: dead, Value: "2"}}, GasLimit: "22000"}, "intrinsic gas too low"},
			{"2^24 + 1 gas", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead}}, GasLimit: "16777217"}, "transaction gas limit too high"},
			{"2^64 - 1 gas", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead}}, GasLimit: "18446744073709551615"}, "transaction gas limit too high"},
			{"a tip above the fee cap", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead}}, MaxFeePerGas: "1000000000", MaxPriorityFeePerGas: "2000000000"},
				"max priority fee per gas higher than max fee per gas"},
			{"a sponsored send at 4,000 gwei", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead}}, Sponsor: &yes, MaxFeePerGas: "4000000000000"},
				"a sponsored send's gas and fees are its gas sponsor's"},
			{"a sponsored send with its own gas limit", api.EthSendTransactionIntentV2{Calls: []api.EthCallParams{{To: dead}}, Sponsor: &yes, GasLimit: "10000000"},
				"a sponsored send's gas and fees are its gas sponsor's"},
		} {
			c.p.From, c.p.Caip2 = from, "eip155:1337"
			_, _, err := s.root.EthSendTransaction(bg, org, c.p)
			expectErr(t, c.name, err, apierr.InvalidArgument, c.want)
		}
		_, _, err := s.root.EthUndelegate7702(bg, org, api.EthUndelegate7702Intent{From: from, Caip2: "eip155:1337", GasLimit: "30000"})
		expectErr(t, "an undelegation with 30,000 gas", err, apierr.InvalidArgument, "intrinsic gas too low")

		signed := func(gas uint64, tip, fee int64) string {
			enc, err := rlp.EncodeToBytes([]any{big.NewInt(1337), uint64(0), big.NewInt(tip), big.NewInt(fee), gas,
				common.HexToAddress(dead), big.NewInt(1), []byte{}, types.AccessList{}})
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: hex.EncodeToString(append([]byte{2}, enc...))})
			if err != nil {
				t.Fatal(err)
			}
			return res.SignedTransaction
		}
		_, _, err = s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: signed(20000, 1, 2), Caip2: "eip155:1337"})
		expectErr(t, "a signed transaction with 20,000 gas", err, apierr.InvalidArgument, "intrinsic gas too low")
		_, _, err = s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: signed(21000, 3, 2), Caip2: "eip155:1337"})
		expectErr(t, "a signed transaction whose tip is above its fee cap", err, apierr.InvalidArgument, "max priority fee per gas higher than max fee per gas")
		if due, err := s.store.DueSends(bg, "eip155:1337", time.Now().Add(time.Hour).UnixNano(), 10); err != nil || len(due) != 0 {
			t.Errorf("refused sends left %d sends recorded (%v)", len(due), err)
		}
	})
}

// signedBy signs an EIP-1559 payment of the root organization's account at nonce, with the fees and gas given.
func (s *stack) signedBy(t *testing.T, node *chain.Node, from string, nonce, gas uint64, tip, fee *big.Int) string {
	t.Helper()
	enc, err := rlp.EncodeToBytes([]any{node.ChainID(), nonce, tip, fee, gas, common.HexToAddress("0x000000000000000000000000000000000000bEEF"),
		big.NewInt(1), []byte{}, types.AccessList{}})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := s.root.SignTransaction(bg, s.boot.OrganizationID, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
		UnsignedTransaction: hex.EncodeToString(append([]byte{2}, enc...))})
	if err != nil {
		t.Fatal(err)
	}
	return res.SignedTransaction
}

// A signed transaction the node refuses for good fails, and does not hold its nonce: alone (its fee above the node's
// cap of 1 ether a transaction), its nonce is given back and the account's next send takes it; with a later send of
// the account signed behind it (the node refusing it for now, then for good), its nonce is filled by a zero-value
// transfer of the account to itself, and the later one is mined.
func TestSendRefusedForGoodReleasesOrFillsItsNonce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		var doomed atomic.Value // the hash of the transaction the proxy refuses
		doomed.Store(common.Hash{})
		var behindSigned atomic.Bool
		proxy := refusingNode(t, node, func(tx *types.Transaction) string {
			if tx.Nonce() == 2 {
				behindSigned.Store(true)
			}
			switch {
			case tx.Hash() != doomed.Load().(common.Hash):
				return ""
			case !behindSigned.Load():
				return "transaction underpriced"
			}
			return "intrinsic gas too low: gas 21000, minimum needed 53000"
		})
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) { cfg.Networks = proxiedNetworks(t, node, proxy) })
		runSends(t, s.coord)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "refused for good", 1, 0)
		account := common.HexToAddress(from)
		tooDear := big.NewInt(100_000 * params.GWei) // 21,000 gas at 100,000 gwei: 2.1 ether, above the node's cap
		raw := func(signed string) string {
			res, _, err := s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: signed, Caip2: caip2(node)})
			if err != nil {
				t.Fatal(err)
			}
			return res.TransactionHash
		}
		refused := raw(s.signedBy(t, node, from, 0, 21000, big.NewInt(params.GWei), tooDear))
		st, err := s.root.WaitForSendTransaction(bg, org, refused, 30*time.Second)
		if err == nil || !strings.Contains(err.Error(), "refused the transaction for good") || !strings.Contains(err.Error(), "nonce 0 is given back") {
			t.Fatalf("a transaction above the node's fee cap: %+v %v", st, err)
		}
		if st, err := s.waitSend(mustSend(t, s, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000bEEF", Value: "2"})); err != nil || st.TxStatus != "INCLUDED" {
			t.Fatalf("the account's next send, on the nonce given back: %+v %v", st, err)
		}

		signed := s.signedBy(t, node, from, 1, 21000, big.NewInt(params.GWei), big.NewInt(10*params.GWei))
		rawTx := new(types.Transaction)
		if err := rawTx.UnmarshalBinary(common.FromHex(signed)); err != nil {
			t.Fatal(err)
		}
		doomed.Store(rawTx.Hash())
		refused = raw(signed)
		waitFor(t, "nonce 1 refused for now", func() bool {
			st, err := s.root.GetSendTransactionStatus(bg, org, refused)
			return err == nil && strings.Contains(st.TxError, "underpriced")
		})
		behind := mustSend(t, s, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000bEEF", Value: "3"})
		if st, err := s.waitSend(behind); err != nil || st.TxStatus != "INCLUDED" {
			t.Fatalf("the send behind the refused nonce: %+v %v", st, err)
		}
		if _, err := s.root.WaitForSendTransaction(bg, org, refused, 30*time.Second); err == nil || !strings.Contains(err.Error(), "nonce 1 is filled by a zero-value transfer") {
			t.Fatalf("a refused transaction with another behind it: %v", err)
		}
		if n, err := node.Client().NonceAt(bg, account, nil); err != nil || n != 3 {
			t.Fatalf("the account's mined count is %d, want 3 (%v)", n, err)
		}
		if bal, _ := node.Client().BalanceAt(bg, common.HexToAddress("0x000000000000000000000000000000000000bEEF"), nil); bal.Int64() != 5 {
			t.Errorf("the recipient holds %s wei, want 5: the filler moves nothing", bal)
		}

		// A raw transaction whose nonce is ahead of the address's next would wait forever: refused.
		_, _, err = s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{Caip2: caip2(node),
			SignedTransaction: s.signedBy(t, node, from, 9, 21000, big.NewInt(params.GWei), big.NewInt(10*params.GWei))})
		expectErr(t, "a raw transaction with a nonce ahead", err, apierr.InvalidArgument, "nonce 9 is ahead of")
	})
}

// proxiedNetworks configures the dev chain's network behind a proxy.
func proxiedNetworks(t *testing.T, node *chain.Node, proxy *httptest.Server) *send.Networks {
	t.Helper()
	nws, err := send.NewNetworks([]send.Network{{CAIP2: caip2(node), RPCURL: proxy.URL, BatchDelegate: node.Contracts()[contracts.Delegate7702],
		GasStation: node.Contracts()[contracts.Station], NativeUSD: 3000, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return nws
}

// refusingNode is a JSON-RPC proxy to a node that answers eth_sendRawTransaction of the transactions refuse picks
// with a refusal of its choosing (transient first, then for good), and passes everything else on.
func refusingNode(t *testing.T, node *chain.Node, refuse func(tx *types.Transaction) string) *httptest.Server {
	t.Helper()
	target, _ := url.Parse(node.RPCURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params []string        `json:"params"`
		}
		if json.Unmarshal(body, &call) == nil && call.Method == "eth_sendRawTransaction" && len(call.Params) == 1 {
			tx := new(types.Transaction)
			if raw, err := hexutil.Decode(call.Params[0]); err == nil && tx.UnmarshalBinary(raw) == nil {
				if msg := refuse(tx); msg != "" {
					w.Header().Set("Content-Type", "application/json")
					_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": call.ID, "error": map[string]any{"code": -32000, "message": msg}})
					return
				}
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// One tenant's sponsored send the node refuses for good does not jam its billing organization's sponsor: a
// sub-organization's send whose transaction the node refuses (held until another sub-organization's send was signed
// behind it on the sponsor's next nonce, then refused for good) fails, its reservation released; the sponsor's nonce
// is filled, and the other sub-organization's send is mined.
func TestSponsoredSendRefusedForGoodDoesNotJamTheSponsor(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		var jammer atomic.Value // the account whose sponsored transaction the node refuses
		jammer.Store(common.Address{})
		var behindSigned atomic.Bool
		var other atomic.Value
		other.Store(common.Address{})
		proxy := refusingNode(t, node, func(tx *types.Transaction) string {
			a, o := jammer.Load().(common.Address), other.Load().(common.Address)
			if o != (common.Address{}) && bytes.Contains(tx.Data(), o.Bytes()) {
				behindSigned.Store(true)
			}
			if a == (common.Address{}) || !bytes.Contains(tx.Data(), a.Bytes()) {
				return ""
			}
			if !behindSigned.Load() {
				return "transaction underpriced" // for now: the watch sends it again
			}
			return "intrinsic gas too low: gas 21000, minimum needed 60000"
		})
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
			cfg.Networks = proxiedNetworks(t, node, proxy)
			cfg.FundSponsor = func(ctx context.Context, address common.Address) error {
				_, err := node.Faucet().Fund(ctx, address, big.NewInt(params.Ether), nil)
				return err
			}
		})
		runSends(t, s.coord)
		org := s.boot.OrganizationID
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1000", SubOrgWindowLimitUsd: "1000", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		subAccount := func(name string) (*client.Client, string, string) {
			key, params := newKey(t, stamp.CurveP256)
			created, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams(name, params))
			if err != nil {
				t.Fatal(err)
			}
			c := s.client(key)
			w, _, err := c.CreateWallet(bg, created.SubOrganizationID, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
			if err != nil {
				t.Fatal(err)
			}
			return c, created.SubOrganizationID, w.Addresses[0]
		}
		mallory, malloryOrg, malloryFrom := subAccount("Mallory")
		alice, aliceOrg, aliceFrom := subAccount("Alice")
		jammer.Store(common.HexToAddress(malloryFrom))
		other.Store(common.HexToAddress(aliceFrom))
		yes := true
		sponsored := func(c *client.Client, orgID, from string) string {
			res, _, err := c.EthSendTransaction(bg, orgID, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
				Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d0d0"}}})
			if err != nil {
				t.Fatal(err)
			}
			return res.SendTransactionStatusID
		}
		jam := sponsored(mallory, malloryOrg, malloryFrom)
		waitFor(t, "mallory's send signed and refused for now", func() bool {
			st, err := mallory.GetSendTransactionStatus(bg, malloryOrg, jam)
			return err == nil && st.TxStatus == api.TxStatusBroadcasting && strings.Contains(st.TxError, "underpriced")
		})
		behind := sponsored(alice, aliceOrg, aliceFrom)
		if st, err := alice.WaitForSendTransaction(bg, aliceOrg, behind, 30*time.Second); err != nil || st.TxStatus != "INCLUDED" {
			t.Fatalf("alice's sponsored send, behind mallory's on the sponsor's nonces: %+v %v", st, err)
		}
		st, err := mallory.WaitForSendTransaction(bg, malloryOrg, jam, 30*time.Second)
		if err == nil || !strings.Contains(err.Error(), "refused the transaction for good") || !strings.Contains(err.Error(), "is filled by a zero-value transfer") {
			t.Fatalf("mallory's send, refused for good: %+v %v", st, err)
		}
		if failed, err := s.store.SendByID(bg, malloryOrg, jam); err != nil || failed.GasCostWei != "" {
			t.Errorf("the refused send still reserves %q wei of the sponsor's limit (%v)", failed.GasCostWei, err)
		}
		if costs, err := s.store.SponsoredGasCosts(bg, org, malloryOrg, 0); err != nil || len(costs) != 1 {
			t.Errorf("mallory's sponsored costs: %+v %v, want the filler's alone", costs, err)
		}
	})
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 30 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A gas limit above the latest block's (on a network whose per-transaction cap the operator raised above it) is
// refused when the send is submitted, once the send worker has read a block.
func TestSendsRefuseGasAboveTheBlock(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		nws, err := send.NewNetworks([]send.Network{{CAIP2: caip2(node), RPCURL: node.RPCURL(), MaxTxGas: 100_000_000, PollInterval: 20 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) { cfg.Networks = nws })
		runSends(t, s.coord)
		waitFor(t, "the worker reads a block", func() bool { return nws.BlockGasLimit(caip2(node)) == chain.DefaultGasLimit })
		from := s.ethWallet("greedy")
		_, _, err = s.root.EthSendTransaction(bg, s.boot.OrganizationID, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node),
			Calls: []api.EthCallParams{{To: from}}, GasLimit: "70000000"})
		expectErr(t, "70,000,000 gas in blocks of 60,000,000", err, apierr.InvalidArgument, "exceeds block gas limit")
	})
}

// A sponsored send's fees are the server's estimate within the network's cap on sponsored fees: the sponsor's
// transaction offers no more than the cap, and while the base fee is above the cap the send waits, saying why, with
// nothing signed.
func TestSponsoredFeesWithinTheNetworksCap(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		head, err := node.Client().HeaderByNumber(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		tip, err := node.Client().SuggestGasTipCap(bg)
		if err != nil {
			t.Fatal(err)
		}
		// Above the base fee and the tip, under the estimate (twice the base fee and the tip).
		feeCap := new(big.Int).Add(new(big.Int).Add(head.BaseFee, tip), new(big.Int).Rsh(head.BaseFee, 1))
		capped := "eip155:" + node.ChainID().String()
		nws, err := send.NewNetworks([]send.Network{{CAIP2: capped, RPCURL: node.RPCURL(), BatchDelegate: node.Contracts()[contracts.Delegate7702],
			GasStation: node.Contracts()[contracts.Station], NativeUSD: 3000, PollInterval: 20 * time.Millisecond, SponsorMaxFeePerGas: feeCap}})
		if err != nil {
			t.Fatal(err)
		}
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
			cfg.Networks = nws
			cfg.FundSponsor = func(ctx context.Context, address common.Address) error {
				_, err := node.Faucet().Fund(ctx, address, big.NewInt(params.Ether), nil)
				return err
			}
		})
		runSends(t, s.coord)
		org := s.boot.OrganizationID
		from := s.ethWallet("capped fees")
		yes := true
		res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: capped, Sponsor: &yes,
			Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d0d1"}}})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(res.SendTransactionStatusID)
		if err != nil {
			t.Fatalf("%+v %v (base fee %s, cap %s)", st, err, head.BaseFee, feeCap)
		}
		tx, _, err := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash))
		if err != nil || tx.GasFeeCap().Cmp(feeCap) > 0 || tx.GasTipCap().Cmp(tx.GasFeeCap()) > 0 {
			t.Fatalf("the sponsor's transaction offers %v per gas (tip %v), above the cap of %s (%v)", tx.GasFeeCap(), tx.GasTipCap(), feeCap, err)
		}

		// A cap under the base fee: the send waits.
		low, err := send.NewNetworks([]send.Network{{CAIP2: capped, RPCURL: node.RPCURL(), BatchDelegate: node.Contracts()[contracts.Delegate7702],
			GasStation: node.Contracts()[contracts.Station], NativeUSD: 3000, PollInterval: 20 * time.Millisecond, SponsorMaxFeePerGas: big.NewInt(1)}})
		if err != nil {
			t.Fatal(err)
		}
		waiting := newStackWith(t, testdb.Another(t, b), nil, func(cfg *coordinator.Config) { cfg.Networks = low })
		runSends(t, waiting.coord)
		res, _, err = waiting.root.EthSendTransaction(bg, waiting.boot.OrganizationID, api.EthSendTransactionIntentV2{From: waiting.ethWallet("waits"),
			Caip2: capped, Sponsor: &yes, Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d0d1"}}})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the send waiting for the base fee", func() bool {
			st, err := waiting.root.GetSendTransactionStatus(bg, waiting.boot.OrganizationID, res.SendTransactionStatusID)
			return err == nil && st.TxStatus == api.TxStatusInitialized && strings.Contains(st.TxError, "waiting for the base fee")
		})
	})
}
