package coordinator_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
	"github.com/sigil/sigil/stamp"
)

// devChain starts a dev chain for the test.
func devChain(t testing.TB) *chain.Node {
	t.Helper()
	node, err := chain.Start(context.Background(), chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	return node
}

func caip2(node *chain.Node) string { return "eip155:" + node.ChainID().String() }

// sendingStack is a stack whose coordinator sends on the dev chain, its send worker running until the test ends.
func sendingStack(t testing.TB, b testdb.Backend, node *chain.Node) *stack {
	t.Helper()
	s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
		cfg.Networks = devNetworks(t, node)
		cfg.FundSponsor = func(ctx context.Context, address common.Address) error {
			_, err := node.Faucet().Fund(ctx, address, big.NewInt(params.Ether), nil)
			return err
		}
	})
	runSends(t, s.coord)
	return s
}

func devNetworks(t testing.TB, node *chain.Node) *send.Networks {
	nws, err := send.NewNetworks([]send.Network{{CAIP2: caip2(node), RPCURL: node.RPCURL(), BatchDelegate: node.Contracts()[contracts.Delegate7702],
		GasStation: node.Contracts()[contracts.Station], NativeUSD: 3000, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return nws
}

func runSends(t testing.TB, c *coordinator.Coordinator) {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.RunSends(ctx) }()
	t.Cleanup(func() { stop(); <-done })
}

// fundedWallet creates an Ethereum account in the root organization and funds it with eth ether and usdc USDC units.
func (s *stack) fundedWallet(node *chain.Node, name string, eth int64, usdc int64) string {
	s.t.Helper()
	address := s.ethWallet(name)
	tokens := map[string]*big.Int{}
	if usdc > 0 {
		tokens["USDC"] = big.NewInt(usdc)
	}
	if eth > 0 || usdc > 0 {
		if _, err := node.Faucet().Fund(bg, common.HexToAddress(address), new(big.Int).Mul(big.NewInt(eth), big.NewInt(params.Ether)), tokens); err != nil {
			s.t.Fatal(err)
		}
	}
	return address
}

func (s *stack) sendCalls(c *client.Client, from, network string, calls ...api.EthCallParams) (string, error) {
	res, _, err := c.EthSendTransaction(bg, s.boot.OrganizationID, api.EthSendTransactionIntentV2{From: from, Caip2: network, Calls: calls})
	if err != nil {
		return "", err
	}
	return res.SendTransactionStatusID, nil
}

func mustSend(t *testing.T, s *stack, from, network string, calls ...api.EthCallParams) string {
	t.Helper()
	id, err := s.sendCalls(s.root, from, network, calls...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (s *stack) waitSend(id string) (*api.GetSendTransactionStatusResponse, error) {
	s.t.Helper()
	return s.root.WaitForSendTransaction(bg, s.boot.OrganizationID, id, 30*time.Second)
}

var transferABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

func usdcTransfer(to common.Address, amount int64) string {
	data, err := transferABI.Pack("transfer", to, big.NewInt(amount))
	if err != nil {
		panic(err)
	}
	return "0x" + hex.EncodeToString(data)
}

// A send of ETH and one of an ERC-20 transfer are signed, broadcast and INCLUDED, with their hashes; the recipient
// holds what was sent, the next nonce is past both, and the activity's result names the send.
func TestEthSendTransactionIncluded(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := sendingStack(t, b, node)
		from := s.fundedWallet(node, "payer", 1, 5_000_000)
		to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
		if b.Name == "postgres" {
			to = common.HexToAddress("0x000000000000000000000000000000000000bEE0")
		}
		id, err := s.sendCalls(s.root, from, caip2(node), api.EthCallParams{To: to.Hex(), Value: "1000000000000000"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Eth == nil || len(st.Eth.TxHash) != 66 || st.Error != nil {
			t.Fatalf("status %+v", st)
		}
		receipt, err := node.Client().TransactionReceipt(bg, common.HexToHash(st.Eth.TxHash))
		if err != nil || receipt.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("receipt %v %v", receipt, err)
		}
		if bal, _ := node.Client().BalanceAt(bg, to, nil); bal.Cmp(big.NewInt(1e15)) != 0 {
			t.Errorf("recipient holds %s wei", bal)
		}
		usdc := node.Contracts()[contracts.USDC]
		id2, err := s.sendCalls(s.root, from, caip2(node), api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(to, 1_000_000)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id2); err != nil {
			t.Fatal(err)
		}
		nonces, err := s.root.GetNonces(bg, api.GetNoncesRequest{OrganizationID: s.boot.OrganizationID, Address: from, Caip2: caip2(node)})
		if err != nil || nonces.Nonce != "2" {
			t.Errorf("nonces %+v %v", nonces, err)
		}
		acts, err := s.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: s.boot.OrganizationID, FilterByType: []string{api.EthSendTransactionV2.Type}})
		if err != nil || len(acts.Activities) != 2 {
			t.Fatalf("activities %v %v", acts, err)
		}
		if !strings.Contains(string(acts.Activities[0].Result[api.EthSendTransactionV2.ResultKey]), `"sendTransactionStatusId"`) {
			t.Errorf("result %s", acts.Activities[0].Result)
		}
	})
}

// Bad input: an unknown network and a deadline in the past are refused (400) and record nothing; a call that reverts
// (caught by the simulation, nothing signed) fails with the custom error decoded once its ABI is uploaded; an
// unfunded account, a nonce far ahead and a nonce used already fail with the reason; a status of another organization
// is not found.
func TestEthSendTransactionRefusals(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "payer", 1, 0)
	to := "0x000000000000000000000000000000000000dEaD"
	_, err := s.sendCalls(s.root, from, "eip155:999999", api.EthCallParams{To: to})
	expectErr(t, "unknown network", err, apierr.InvalidArgument, `unknown network "eip155:999999": this server sends on `+caip2(node))
	_, _, err = s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Deadline: "1000",
		Calls: []api.EthCallParams{{To: to}}})
	expectErr(t, "deadline", err, apierr.InvalidArgument, "parameters.deadline (1970-01-01T00:16:40Z) has passed")
	if due, err := s.store.DueSends(bg, caip2(node), time.Now().UnixNano(), 10); err != nil || len(due) != 0 {
		t.Errorf("refused sends left %d sends to make (%v)", len(due), err)
	}
	before := s.activityCount(org)
	_, _, err = s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Calls: []api.EthCallParams{}})
	expectErr(t, "no calls", err, apierr.InvalidArgument, "between 1 and 50 calls")
	sponsor := true
	_, _, err = s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &sponsor, Nonce: "1", Calls: []api.EthCallParams{{To: to}}})
	expectErr(t, "sponsored with a nonce", err, apierr.InvalidArgument, "a sponsored send's transaction is the gas sponsor's")
	if n := s.activityCount(org); n != before {
		t.Errorf("refused requests recorded %d activities", n-before)
	}

	usdc := node.Contracts()[contracts.USDC]
	overdraw := api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(common.HexToAddress(to), 1)}
	failed := func(name, wantMessage string, calls ...api.EthCallParams) *api.GetSendTransactionStatusResponse {
		t.Helper()
		id, err := s.sendCalls(s.root, from, caip2(node), calls...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st, err := s.waitSend(id)
		var sf *client.SendFailedError
		if !errors.As(err, &sf) || !strings.Contains(st.Error.Message, wantMessage) || st.TxError != st.Error.Message {
			t.Fatalf("%s: %+v %v, want FAILED with %q", name, st, err, wantMessage)
		}
		if st.Eth != nil {
			t.Errorf("%s: a transaction was signed: %s", name, st.Eth.TxHash)
		}
		return st
	}
	tokenABI, err := os.ReadFile("../abis/TestToken.abi")
	if err != nil {
		t.Fatal(err)
	}
	st := failed("reverting call", "the simulation reverts, so nothing was signed: reverted with data nothing here decodes", overdraw)
	if e := st.Error.RevertChain[0]; e.ErrorType != "unknown" || e.Unknown.Selector != "0xe450d38c" || e.Address != strings.ToLower(usdc.Hex()) {
		t.Errorf("undecoded revert %+v", e)
	}
	if _, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{SmartContractAddress: usdc.Hex(),
		SmartContractInterface: string(tokenABI), Type: api.InterfaceTypeEthereum, Label: "USDC"}); err != nil {
		t.Fatal(err)
	}
	st = failed("reverting call with its ABI", "reverted with ERC20InsufficientBalance", overdraw)
	if c := st.Error.RevertChain[0].Custom; c == nil || c.ErrorName != "ERC20InsufficientBalance" ||
		c.ParamsJSON != `{"balance":0,"needed":1,"sender":"`+common.HexToAddress(from).Hex()+`"}` {
		t.Errorf("custom revert %+v", st.Error.RevertChain[0])
	}
	// The chain runs from the outermost call to the one that raised the error: in a batch, from the account (whose
	// delegate bubbles the failing call's revert) to the token; through a vault, from the vault to the token.
	st = failed("reverting call in a batch", "reverted with ERC20InsufficientBalance", api.EthCallParams{To: to}, overdraw)
	if c := st.Error.RevertChain; len(c) != 2 || c[0].Address != strings.ToLower(from) || c[1].Address != strings.ToLower(usdc.Hex()) ||
		c[1].Custom == nil || c[1].Custom.ErrorName != "ERC20InsufficientBalance" {
		t.Errorf("batch revert chain %+v", c)
	}
	vault := node.Contracts()[contracts.VaultUSDC]
	deposit, err := contracts.MustLoad(contracts.SimpleVault).ABI.Pack("deposit", big.NewInt(1), common.HexToAddress(from))
	if err != nil {
		t.Fatal(err)
	}
	st = failed("deposit without an allowance", "reverted with ERC20InsufficientAllowance",
		api.EthCallParams{To: vault.Hex(), Data: "0x" + hex.EncodeToString(deposit)})
	if c := st.Error.RevertChain; len(c) != 2 || c[0].Address != strings.ToLower(vault.Hex()) || c[0].Unknown == nil ||
		c[1].Address != strings.ToLower(usdc.Hex()) || c[1].Custom == nil || c[1].Custom.ErrorName != "ERC20InsufficientAllowance" {
		t.Errorf("vault revert chain %+v", c)
	}
	unfunded := s.ethWallet("empty")
	id, err := s.sendCalls(s.root, unfunded, caip2(node), api.EthCallParams{To: to, Value: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.waitSend(id); err == nil || !strings.Contains(st.Error.Message, "insufficient funds: "+strings.ToLower(unfunded)+" holds 0 wei and the calls send 1 wei") {
		t.Errorf("unfunded: %+v %v", st, err)
	}
	if _, err := s.waitSend(mustSend(t, s, from, caip2(node), api.EthCallParams{To: to, Value: "1"})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ nonce, want string }{
		{"5", "nonce 5 is ahead of " + strings.ToLower(from) + "'s next nonce 1"},
		{"0", "nonce 0 is used already: " + strings.ToLower(from) + "'s next nonce is 1"},
	} {
		res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Nonce: c.nonce, Calls: []api.EthCallParams{{To: to}}})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := s.waitSend(res.SendTransactionStatusID); err == nil || !strings.Contains(st.Error.Message, c.want) {
			t.Errorf("nonce %s: %+v %v", c.nonce, st, err)
		}
	}
	other := newStack(t, testdb.SQLite(t))
	_, err = other.root.GetSendTransactionStatus(bg, other.boot.OrganizationID, id)
	expectErr(t, "another organization's send", err, apierr.NotFound, "not found")
}

// Sends from one address at once take consecutive nonces, none twice and none skipped, and are all included.
func TestEthSendTransactionConcurrentNonces(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := sendingStack(t, b, node)
		from := s.fundedWallet(node, "busy", 1, 0)
		nonces := concurrentSends(t, node, from, 12, func(i int) (*stack, *client.Client) { return s, s.root })
		if !slices.Equal(nonces, seq(12)) {
			t.Errorf("nonces %v", nonces)
		}
	})
}

// Two coordinator processes over one PostgreSQL database, each with its send worker, send from one address at once:
// the nonces are still consecutive, each taken once.
func TestEthSendTransactionTwoProcesses(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	b := testdb.Postgres(t)
	s := sendingStack(t, b, node)
	st, err := store.Open(bg, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	second := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.DiscardHandler), Keyring: s.ring, Networks: devNetworks(t, node)})
	runSends(t, second)
	srv := httptest.NewServer(second.Handler())
	t.Cleanup(srv.Close)
	from := s.fundedWallet(node, "shared", 1, 0)
	other := client.New(srv.URL, s.boot.APIKey)
	other.PollInterval, other.Now = 10*time.Millisecond, s.stamps.Now
	nonces := concurrentSends(t, node, from, 16, func(i int) (*stack, *client.Client) {
		if i%2 == 0 {
			return s, s.root
		}
		return s, other
	})
	if !slices.Equal(nonces, seq(16)) {
		t.Errorf("nonces %v", nonces)
	}
}

// unsignedTransfer is an unsigned EIP-1559 transfer of value wei, hex, with fees the dev chain takes.
func unsignedTransfer(t *testing.T, chainID *big.Int, nonce uint64, to common.Address, value *big.Int) string {
	t.Helper()
	enc, err := rlp.EncodeToBytes([]any{chainID, nonce, big.NewInt(1e9), big.NewInt(50e9), uint64(21000), to, value, []byte{}, types.AccessList{}})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(append([]byte{2}, enc...))
}

func seq(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i)
	}
	return out
}

// concurrentSends submits n sends of 1 wei from one address at once (each through the client pick gives), waits for
// all to be included, and returns their nonces in order.
func concurrentSends(t *testing.T, node *chain.Node, from string, n int, pick func(i int) (*stack, *client.Client)) []uint64 {
	t.Helper()
	var mu sync.Mutex
	var nonces []uint64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, c := pick(i)
			id, err := s.sendCalls(c, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000c0DE", Value: strconv.Itoa(i + 1)})
			if err != nil {
				t.Error(err)
				return
			}
			st, err := s.waitSend(id)
			if err != nil {
				t.Error(err)
				return
			}
			tx, _, err := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			nonces = append(nonces, tx.Nonce())
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(nonces)
	return nonces
}

// Each call of a send is decided as eth.tx: a user allowed to send to one address sends there, a batch with a call
// elsewhere is denied whole, and a batch of allowed calls is sent.
func TestEthSendTransactionPolicyPerCall(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "agent", 1, 0)
	allowed, other := "0x00000000000000000000000000000000000a11ed", "0x0000000000000000000000000000000000000bad"
	userID, agent := s.createUser(org, s.root, "agent")
	s.policy("agent sends to one address", "EFFECT_ALLOW",
		"activity.action == 'SIGN' && eth.tx.to == '"+allowed+"' && eth.tx.chain_id == "+node.ChainID().String(),
		"approvers.any(user, user.id == '"+userID+"')")
	id, err := s.sendCalls(agent, from, caip2(node), api.EthCallParams{To: allowed, Value: "7"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.waitSend(id); err != nil {
		t.Fatal(err)
	}
	_, err = s.sendCalls(agent, from, caip2(node), api.EthCallParams{To: allowed, Value: "1"}, api.EthCallParams{To: other, Value: "1"})
	expectErr(t, "a batch with a call elsewhere", err, apierr.PermissionDenied, "permissions")
	_, err = s.sendCalls(agent, from, caip2(node), api.EthCallParams{To: other, Value: "1"})
	expectErr(t, "a call elsewhere", err, apierr.PermissionDenied, "permissions")
	id, err = s.sendCalls(agent, from, caip2(node), api.EthCallParams{To: allowed, Value: "1"}, api.EthCallParams{To: allowed, Value: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.waitSend(id); err != nil {
		t.Fatal(err)
	}
	if bal, _ := node.Client().BalanceAt(bg, common.HexToAddress(allowed), nil); bal.Int64() != 10 {
		t.Errorf("the allowed address holds %s wei, want 7 + 1 + 2", bal)
	}
}

// Several calls run as one EIP-7702 batch: the first delegates the account to the batch delegate (a type-4
// transaction) and runs the calls in order; a later one runs through the delegation already there (type 2); a batch
// with a reverting call fails in simulation and changes nothing; nobody but the account can make it execute calls.
func TestEthSendTransactionBatch(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := sendingStack(t, b, node)
		from := s.fundedWallet(node, "batcher", 1, 3_000_000)
		usdc, delegate := node.Contracts()[contracts.USDC], node.Contracts()[contracts.Delegate7702]
		alice, bob := common.HexToAddress("0x00000000000000000000000000000000000A11cE"), common.HexToAddress("0x0000000000000000000000000000000000000B0b")
		if b.Name == "postgres" {
			alice, bob = common.HexToAddress("0x00000000000000000000000000000000000A11c0"), common.HexToAddress("0x0000000000000000000000000000000000000B00")
		}
		batch := func(calls ...api.EthCallParams) (*api.GetSendTransactionStatusResponse, error) {
			id, err := s.sendCalls(s.root, from, caip2(node), calls...)
			if err != nil {
				t.Fatal(err)
			}
			return s.waitSend(id)
		}
		st, err := batch(api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(alice, 1_000_000)}, api.EthCallParams{To: bob.Hex(), Value: "9"})
		if err != nil {
			t.Fatal(err)
		}
		tx, _, err := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash))
		if err != nil || tx.Type() != types.SetCodeTxType || *tx.To() != common.HexToAddress(from) || len(tx.SetCodeAuthorizations()) != 1 {
			t.Fatalf("first batch: %+v %v", tx, err)
		}
		if auth := tx.SetCodeAuthorizations()[0]; auth.Address != delegate || auth.ChainID.ToBig().Cmp(node.ChainID()) != 0 {
			t.Errorf("authorization %+v", auth)
		}
		code, _ := node.Client().CodeAt(bg, common.HexToAddress(from), nil)
		if got, ok := types.ParseDelegation(code); !ok || got != delegate {
			t.Errorf("the account's code %x, want a delegation to %s", code, delegate)
		}
		if bal, _ := node.Client().BalanceAt(bg, bob, nil); bal.Int64() != 9 {
			t.Errorf("bob holds %s wei", bal)
		}
		st, err = batch(api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(alice, 500_000)}, api.EthCallParams{To: bob.Hex(), Value: "1"})
		if err != nil {
			t.Fatal(err)
		}
		if tx, _, _ := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash)); tx.Type() != types.DynamicFeeTxType {
			t.Errorf("a batch of a delegated account is type %d", tx.Type())
		}
		balanceOf := func(a common.Address) *big.Int {
			out, err := node.Client().CallContract(bg, ethereum.CallMsg{To: &usdc, Data: append([]byte{0x70, 0xa0, 0x82, 0x31}, common.LeftPadBytes(a.Bytes(), 32)...)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return new(big.Int).SetBytes(out)
		}
		if got := balanceOf(alice); got.Int64() != 1_500_000 {
			t.Errorf("alice holds %s USDC units", got)
		}
		st, err = batch(api.EthCallParams{To: bob.Hex(), Value: "1"}, api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(alice, 10_000_000)})
		if err == nil || !strings.Contains(st.Error.Message, "the simulation reverts, so nothing was signed") || st.Eth != nil {
			t.Errorf("a batch with a reverting call: %+v %v", st, err)
		}
		if bal, _ := node.Client().BalanceAt(bg, bob, nil); bal.Int64() != 10 {
			t.Errorf("after the failed batch bob holds %s wei", bal)
		}
		data, _ := hex.DecodeString(strings.TrimPrefix(usdcTransfer(alice, 1), "0x"))
		execute, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"execute","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}],"outputs":[]}]`))
		if err != nil {
			t.Fatal(err)
		}
		type call struct {
			To    common.Address
			Value *big.Int
			Data  []byte
		}
		steal, _ := execute.Pack("execute", []call{{To: usdc, Value: new(big.Int), Data: data}})
		account := common.HexToAddress(from)
		_, err = node.Client().CallContract(bg, ethereum.CallMsg{From: node.DevAccount(), To: &account, Data: steal}, nil)
		if err == nil || !strings.Contains(err.Error(), "revert") {
			t.Errorf("another account made the delegated account call: %v", err)
		}

		// ETH_UNDELEGATE_7702 removes the delegation; with none, there is nothing to remove.
		undelegate := func() (*api.GetSendTransactionStatusResponse, error) {
			res, _, err := s.root.EthUndelegate7702(bg, s.boot.OrganizationID, api.EthUndelegate7702Intent{From: from, Caip2: caip2(node)})
			if err != nil {
				t.Fatal(err)
			}
			return s.waitSend(res.SendTransactionStatusID)
		}
		st, err = undelegate()
		if err != nil {
			t.Fatal(err)
		}
		tx, _, _ = node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash))
		if auths := tx.SetCodeAuthorizations(); tx.Type() != types.SetCodeTxType || len(auths) != 1 || auths[0].Address != (common.Address{}) {
			t.Errorf("the undelegation: type %d, %+v", tx.Type(), auths)
		}
		if code, _ := node.Client().CodeAt(bg, account, nil); len(code) != 0 {
			t.Errorf("after the undelegation the account's code is %x", code)
		}
		if st, err := undelegate(); err == nil || !strings.Contains(st.Error.Message, "has no EIP-7702 delegation to remove") {
			t.Errorf("undelegating twice: %+v %v", st, err)
		}
	})
}

// A transaction signed with SIGN_TRANSACTION_V2 and handed to ETH_SEND_RAW_TRANSACTION is broadcast and included,
// its status read by its hash; one whose nonce another transaction took meanwhile is reported replaced.
func TestEthSendRawTransaction(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "raw", 1, 0)
	signed := func(nonce uint64, value int64) string {
		unsigned := unsignedTransfer(t, node.ChainID(), nonce, common.HexToAddress("0x000000000000000000000000000000000000aBcD"), big.NewInt(value))
		res, _, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
		if err != nil {
			t.Fatal(err)
		}
		return res.SignedTransaction
	}
	res, _, err := s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: "0x" + signed(0, 1), Caip2: caip2(node)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.waitSend(res.TransactionHash)
	if err != nil || st.Eth.TxHash != res.TransactionHash {
		t.Fatalf("raw send: %+v %v", st, err)
	}
	// Nonce 1 twice: one sent around the coordinator first, then the other through it.
	first, second := signed(1, 2), signed(1, 3)
	raw, _ := hex.DecodeString(first)
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if err := node.Client().SendTransaction(bg, tx); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the first transaction's receipt", func() bool {
		r, err := node.Client().TransactionReceipt(bg, tx.Hash())
		return err == nil && r != nil
	})
	res, _, err = s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: second, Caip2: caip2(node)})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.waitSend(res.TransactionHash); err == nil || !strings.Contains(st.Error.Message, "replaced: another transaction of "+strings.ToLower(from)+" took nonce 1") {
		t.Errorf("replaced: %+v %v", st, err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := types.SignNewTx(key, types.LatestSignerForChainID(node.ChainID()), &types.DynamicFeeTx{ChainID: node.ChainID(), Gas: 21000, GasFeeCap: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	rawStranger, _ := stranger.MarshalBinary()
	_, _, err = s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: hex.EncodeToString(rawStranger), Caip2: caip2(node)})
	expectErr(t, "a stranger's transaction", err, apierr.InvalidArgument, "which is no wallet account or private key of this organization")
}

// An endpoint subscribed to SEND_TRANSACTION_STATUS_UPDATES receives a send's BROADCASTING and INCLUDED statuses,
// written in the transactions that moved the send, and a FAILED one with its reason; its networks filter holds them.
func TestSendTransactionStatusWebhooks(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}
		c.Networks = devNetworks(t, node)
	})
	runWebhooks(t, s.coord)
	runSends(t, s.coord)
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, `{"networks":["`+caip2(node)+`"]}`, api.WebhookSendTransactionUpdates)
	elsewhere := newReceiver(t, s, 0)
	s.subscribe(elsewhere.srv.URL, `{"networks":["eip155:1"]}`, api.WebhookSendTransactionUpdates)
	from := s.fundedWallet(node, "hooked", 1, 0)
	id, err := s.sendCalls(s.root, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000b00c", Value: "5"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.waitSend(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{api.TxStatusBroadcasting, api.TxStatusIncluded} {
		body := rc.awaitBody(status, func(eventType string, b map[string]any) bool {
			return eventType == api.WebhookSendTransactionUpdates && b["sendTransactionStatusId"] == id && b["txStatus"] == status
		})
		eth, _ := body["eth"].(map[string]any)
		if body["network"] != caip2(node) || body["from"] != strings.ToLower(from) || body["organizationId"] != s.boot.OrganizationID || eth["txHash"] != st.Eth.TxHash {
			t.Errorf("%s: %v", status, body)
		}
	}
	unfunded := s.ethWallet("hooked but empty")
	failedID, err := s.sendCalls(s.root, unfunded, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000b00c", Value: "5"})
	if err != nil {
		t.Fatal(err)
	}
	body := rc.awaitBody("FAILED", func(eventType string, b map[string]any) bool {
		return b["sendTransactionStatusId"] == failedID && b["txStatus"] == api.TxStatusFailed
	})
	if e, _ := body["error"].(map[string]any); !strings.Contains(e["message"].(string), "insufficient funds") {
		t.Errorf("failed: %v", body)
	}
	if n := elsewhere.count(); n != 0 {
		t.Errorf("an endpoint filtered to another network received %d deliveries", n)
	}
}

// A network whose node does not answer leaves a send INITIALIZED with the reason, and fails it, nothing signed, once
// it has waited its time.
func TestEthSendTransactionNodeDown(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(nil)
	down.Close() // its port now refuses connections
	nws, err := send.NewNetworks([]send.Network{{CAIP2: "eip155:31337", RPCURL: down.URL, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) { c.Networks, c.SendGiveUp = nws, 2*time.Second })
	runSends(t, s.coord)
	from := s.ethWallet("stranded")
	id, err := s.sendCalls(s.root, from, "eip155:31337", api.EthCallParams{To: from, Value: "1"})
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := s.root.WaitForSendTransaction(bg, s.boot.OrganizationID, id, 500*time.Millisecond)
	if err == nil || waiting.TxStatus != api.TxStatusInitialized || !strings.Contains(waiting.TxError, "the network's node did not answer") {
		t.Errorf("while the node is down: %+v %v", waiting, err)
	}
	st, err := s.waitSend(id)
	if err == nil || !strings.Contains(st.Error.Message, "nothing was signed: the network's node did not answer") || st.Eth != nil {
		t.Errorf("after giving up: %+v %v", st, err)
	}
}

// A node that answers too slowly: the step that waits on it is abandoned and the send says why, nothing is signed
// twice, and once the node is quick again the send goes through.
func TestEthSendTransactionSlowNode(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	var delay atomic.Int64
	delay.Store(int64(time.Second))
	target, _ := url.Parse(node.RPCURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Duration(delay.Load())):
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer slow.Close()
	nws, err := send.NewNetworks([]send.Network{{CAIP2: caip2(node), RPCURL: slow.URL, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) { c.Networks, c.SendLease = nws, 600*time.Millisecond })
	runSends(t, s.coord)
	from := s.fundedWallet(node, "slow", 1, 0)
	id, err := s.sendCalls(s.root, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000c10c", Value: "1"})
	if err != nil {
		t.Fatal(err)
	}
	var waiting *api.GetSendTransactionStatusResponse
	waitFor(t, "the send saying the node does not answer", func() bool {
		waiting, err = s.root.GetSendTransactionStatus(bg, s.boot.OrganizationID, id)
		return err == nil && strings.Contains(waiting.TxError, "did not answer")
	})
	if waiting.TxStatus != api.TxStatusInitialized {
		t.Fatalf("while the node is slow: %+v", waiting)
	}
	delay.Store(0)
	st, err := s.waitSend(id)
	if err != nil || st.TxStatus != "INCLUDED" {
		t.Fatalf("once the node is quick: %+v %v", st, err)
	}
	if n, err := node.Client().NonceAt(bg, common.HexToAddress(from), nil); err != nil || n != 1 {
		t.Fatalf("the account sent %d transactions, want 1 (%v)", n, err)
	}
}

// A send a policy lets through only with a second approval waits for it, records nothing to send meanwhile, and is
// sent once approved.
func TestEthSendTransactionAfterConsensus(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "guarded", 1, 0)
	agentID, agent := s.createUser(org, s.root, "agent")
	s.policy("sends need the root user too", "EFFECT_ALLOW", "activity.action == 'SIGN'",
		"approvers.any(user, user.id == '"+agentID+"') && approvers.any(user, user.id == '"+s.boot.UserID+"')")
	_, a, err := agent.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node),
		Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000c0c0", Value: "3"}}})
	if !isConsensusNeeded(err) {
		t.Fatalf("the agent's send alone: %v", err)
	}
	if due, err := s.store.DueSends(bg, caip2(node), time.Now().UnixNano(), 10); err != nil || len(due) != 0 {
		t.Fatalf("a send waiting for consensus left %d sends to make (%v)", len(due), err)
	}
	done, err := s.root.ApproveActivity(bg, org, a.Fingerprint)
	if err != nil || done.Status != api.StatusCompleted {
		t.Fatalf("approval: %v", err)
	}
	var res api.EthSendTransactionResultV2
	if err := client.Result(done, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := s.waitSend(res.SendTransactionStatusID); err != nil {
		t.Fatal(err)
	}
}

// With sponsor true the organization's gas sponsor pays: created on first use and funded, it submits the account's
// signed batch through the gas station (with the account's authorization the first time), the account paying no gas
// and its sponsored-batch nonce moving on; a gasStationNonce not the account's next fails the send; a sponsored
// batch that reverts fails in simulation.
func TestEthSendTransactionSponsored(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "sponsored", 0, 2_000_000)
	account := common.HexToAddress(from)
	if _, err := node.Faucet().Fund(bg, account, big.NewInt(100), nil); err != nil { // value to send, no gas money
		t.Fatal(err)
	}
	usdc, station := node.Contracts()[contracts.USDC], node.Contracts()[contracts.Station]
	carol := common.HexToAddress("0x00000000000000000000000000000000000C4a01")
	yes := true
	sponsored := func(gsNonce string, calls ...api.EthCallParams) (*api.GetSendTransactionStatusResponse, error) {
		res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
			GasStationNonce: gsNonce, Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		return s.waitSend(res.SendTransactionStatusID)
	}
	st, err := sponsored("0", api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(carol, 1_000_000)}, api.EthCallParams{To: carol.Hex(), Value: "40"})
	if err != nil {
		t.Fatal(err)
	}
	tx, _, err := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash))
	if err != nil || *tx.To() != station || tx.Type() != types.SetCodeTxType {
		t.Fatalf("the sponsored transaction: %+v %v", tx, err)
	}
	sender, _ := types.Sender(types.LatestSignerForChainID(node.ChainID()), tx)
	if sender == account {
		t.Error("the account sent its sponsored transaction itself")
	}
	if bal, _ := node.Client().BalanceAt(bg, account, nil); bal.Int64() != 60 {
		t.Errorf("the account holds %s wei: it paid gas, or did not send its 40 wei", bal)
	}
	if bal, _ := node.Client().BalanceAt(bg, carol, nil); bal.Int64() != 40 {
		t.Errorf("carol holds %s wei", bal)
	}
	nonces, err := s.root.GetNonces(bg, api.GetNoncesRequest{OrganizationID: org, Address: from, Caip2: caip2(node), GasStationNonce: &yes})
	// The account's own nonce moved too: its authorization took nonce 0.
	if err != nil || nonces.GasStationNonce != "1" || nonces.Nonce != "1" {
		t.Errorf("nonces after one sponsored batch: %+v %v", nonces, err)
	}
	st, err = sponsored("", api.EthCallParams{To: carol.Hex(), Value: "10"})
	if err != nil {
		t.Fatal(err)
	}
	if tx, _, _ := node.Client().TransactionByHash(bg, common.HexToHash(st.Eth.TxHash)); tx.Type() != types.DynamicFeeTxType {
		t.Errorf("a sponsored send of a delegated account is type %d", tx.Type())
	}
	if st, err := sponsored("0", api.EthCallParams{To: carol.Hex(), Value: "1"}); err == nil || !strings.Contains(st.Error.Message, "gasStationNonce 0 is not "+strings.ToLower(from)+"'s next sponsored-batch nonce, 2") {
		t.Errorf("a used gasStationNonce: %+v %v", st, err)
	}
	if st, err := sponsored("", api.EthCallParams{To: usdc.Hex(), Data: usdcTransfer(carol, 5_000_000)}); err == nil || !strings.Contains(st.Error.Message, "the simulation reverts") {
		t.Errorf("a sponsored batch that reverts: %+v %v", st, err)
	}

	// On chain: only the station may submit a signed batch to the account, and only one the account signed for its
	// next nonce before the deadline.
	calls := `{"name":"calls","type":"tuple[]","components":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}`
	contractABI, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"executeSponsored","outputs":[],"inputs":[` + calls +
		`,{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"signature","type":"bytes"}]},
		{"type":"function","name":"execute","outputs":[],"inputs":[{"name":"account","type":"address"},` + calls +
		`,{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"signature","type":"bytes"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		To    common.Address
		Value *big.Int
		Data  []byte
	}
	drain := []call{{To: node.DevAccount(), Value: big.NewInt(50), Data: []byte{}}}
	later, forged := big.NewInt(time.Now().Add(time.Hour).Unix()), make([]byte, 65)
	direct, _ := contractABI.Pack("executeSponsored", drain, big.NewInt(2), later, forged)
	viaStation, _ := contractABI.Pack("execute", account, drain, big.NewInt(2), later, forged)
	stale, _ := contractABI.Pack("execute", account, drain, big.NewInt(0), later, forged)
	expired, _ := contractABI.Pack("execute", account, drain, big.NewInt(2), big.NewInt(1), forged)
	for _, c := range []struct {
		name string
		to   common.Address
		data []byte
	}{{"directly", account, direct}, {"a forged signature", station, viaStation}, {"a used nonce", station, stale}, {"after the deadline", station, expired}} {
		to := c.to
		if _, err := node.Client().CallContract(bg, ethereum.CallMsg{From: node.DevAccount(), To: &to, Data: c.data}, nil); err == nil || !strings.Contains(err.Error(), "revert") {
			t.Errorf("a sponsored batch submitted %s: %v", c.name, err)
		}
	}
}

// Gas-spend limits: the billing organization sets them (checked: a window past 30 days is refused); get_gas_usage
// reports the spend of included sponsored sends against the limit, in wei and in USD at the network's price; a
// sponsored send once the spend reached the limit is refused, while the account may still pay its own; disabled
// sponsorship refuses sponsored sends.
func TestSponsoredGasLimits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := sendingStack(t, b, node)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "limited", 1, 0)
		_, err := s.root.GetGasUsage(bg, org)
		expectErr(t, "usage with no configuration", err, apierr.NotFound, "set no gas-spend limits")
		_, _, err = s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "50000"})
		expectErr(t, "a long window", err, apierr.InvalidArgument, "from 1 to 43200")
		res, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"})
		if err != nil || res.GasUsageConfigID == "" {
			t.Fatalf("upsert: %+v %v", res, err)
		}
		usage, err := s.root.GetGasUsage(bg, org)
		if err != nil || usage.UsageUsd != "0" || usage.WindowLimitUsd != "1" || usage.WindowDurationMinutes != 60 || !common.IsHexAddress(usage.SponsorAddress) {
			t.Fatalf("usage before: %+v %v", usage, err)
		}
		// The sponsor exists before any sponsored send, so that it can be funded first; it is the one that pays.
		sponsorAddress := common.HexToAddress(usage.SponsorAddress)
		funded, err := node.Client().BalanceAt(bg, sponsorAddress, nil)
		if err != nil || funded.Sign() == 0 {
			t.Fatalf("the sponsor %s holds %v (%v)", sponsorAddress, funded, err)
		}
		yes := true
		sponsored := func() (string, error) {
			res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
				Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d00d", Value: "1"}}})
			if err != nil {
				return "", err
			}
			return res.SendTransactionStatusID, nil
		}
		id, err := sponsored()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id); err != nil {
			t.Fatal(err)
		}
		usage, err = s.root.GetGasUsage(bg, org)
		if err != nil || usage.UsageUsd == "0" || usage.UsageWei == "0" || usage.SponsorAddress != sponsorAddress.Hex() {
			t.Fatalf("usage after one sponsored send: %+v %v", usage, err)
		}
		if left, err := node.Client().BalanceAt(bg, sponsorAddress, nil); err != nil || new(big.Int).Sub(funded, left).String() != usage.UsageWei {
			t.Errorf("the sponsor paid %v, the usage says %s wei (%v)", new(big.Int).Sub(funded, left), usage.UsageWei, err)
		}
		// A limit a twentieth above the spend: the spend has not reached it, so a second sponsored send is accepted, but
		// what it may cost would pass it, and the worker refuses it before signing anything.
		limit := justAbove(t, usage.UsageUsd)
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: limit, SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		id, err = sponsored()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id); err == nil || !strings.Contains(err.Error(), "past its limit of "+limit+" USD") {
			t.Errorf("a sponsored send that would pass the limit: %v", err)
		}
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "0.000001", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		_, err = sponsored()
		expectErr(t, "a sponsored send past the limit", err, apierr.ResourceExhausted, "at or past its limit of 0.000001 USD")
		if _, err := s.waitSend(mustSend(t, s, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000d00d", Value: "1"})); err != nil {
			t.Errorf("a send the account pays, past the sponsor's limit: %v", err)
		}
		no := false
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "100", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60", Enabled: &no}); err != nil {
			t.Fatal(err)
		}
		_, err = sponsored()
		expectErr(t, "sponsorship disabled", err, apierr.FailedPrecondition, "gas sponsorship is disabled")
	})
}

// justAbove is a USD amount a twentieth above usd: under it, but below what any sponsored send may cost on top.
func justAbove(t *testing.T, usd string) string {
	t.Helper()
	v, err := strconv.ParseFloat(usd, 64)
	if err != nil || v <= 0 {
		t.Fatalf("usage %q", usd)
	}
	return strconv.FormatFloat(v*1.05, 'f', -1, 64)
}

// Sponsored sends of five accounts submitted together, under a limit about one and a half of them fit in (measured by
// a first send's cost): each passes the check at submission (none is signed yet), but the worker checks again as it
// signs, counting what the sends signed before may cost and what this one may, so the sends it signs never take the
// spend past the limit, and the others fail with the limit's reason.
func TestSponsoredGasLimitHoldsForSendsSubmittedTogether(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := sendingStack(t, b, node)
		org := s.boot.OrganizationID
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		var accounts []string
		for i := range 6 {
			accounts = append(accounts, s.fundedWallet(node, fmt.Sprintf("together %d", i), 1, 0))
		}
		yes := true
		first, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: accounts[0], Caip2: caip2(node), Sponsor: &yes,
			Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d00f", Value: "1"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(first.SendTransactionStatusID); err != nil {
			t.Fatal(err)
		}
		measured, err := s.root.GetGasUsage(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		one, _ := strconv.ParseFloat(measured.UsageUsd, 64) // what a first sponsored send of an account costs
		limit := 2.7 * one                                  // the first's cost, and about one and a half sends more
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: strconv.FormatFloat(limit, 'f', -1, 64),
			SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		accounts = accounts[1:]
		var ids []string
		for _, from := range accounts {
			res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
				Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d00f", Value: "1"}}})
			if err != nil {
				expectErr(t, "a sponsored send after one was signed", err, apierr.ResourceExhausted, "at or past its limit")
				continue
			}
			ids = append(ids, res.SendTransactionStatusID)
		}
		included, refused := 0, 0
		for _, id := range ids {
			st, err := s.waitSend(id)
			switch {
			case err == nil && st.TxStatus == "INCLUDED":
				included++
			case err == nil:
				t.Errorf("send %s: %+v", id, st)
			case strings.Contains(err.Error(), "past its limit"):
				refused++
			default:
				t.Errorf("send %s failed for another reason: %v", id, err)
			}
		}
		usage, err := s.root.GetGasUsage(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		spent, _ := strconv.ParseFloat(usage.UsageUsd, 64)
		if included == 0 || refused == 0 || spent > limit {
			t.Fatalf("%d of %d sponsored sends submitted together paid for, %d refused: %s USD spent under a limit of %v", included, len(ids), refused, usage.UsageUsd, limit)
		}
	})
}

// Sponsored sends of one account submitted together each take their own sponsored-batch nonce: none reverts for a
// nonce another already used.
func TestSponsoredSendsTogether(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "sponsored together", 1, 0)
	yes := true
	var ids []string
	for range 3 {
		res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
			Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d010", Value: "1"}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.SendTransactionStatusID)
	}
	for _, id := range ids {
		if st, err := s.waitSend(id); err != nil || st.TxStatus != "INCLUDED" {
			t.Errorf("send %s: %+v %v", id, st, err)
		}
	}
}

// A sub-organization's sponsored sends are paid by its billing organization's sponsor and held to the
// sub-organization limit, apart from the billing organization's own, and to the billing organization's limit too,
// which counts every organization's spend: a new sub-organization, with nothing spent, is refused once its billing
// organization's window is at its limit. A sub-organization cannot set limits.
func TestSponsoredGasLimitsOfSubOrganizations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testSponsoredGasLimitsOfSubOrganizations)
}

func testSponsoredGasLimitsOfSubOrganizations(t *testing.T, b testdb.Backend) {
	node := devChain(t)
	s := sendingStack(t, b, node)
	org := s.boot.OrganizationID
	subKey, subParams := newKey(t, stamp.CurveP256)
	created, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Alice", subParams))
	if err != nil {
		t.Fatal(err)
	}
	sub, alice := created.SubOrganizationID, s.client(subKey)
	w, _, err := alice.CreateWallet(bg, sub, api.CreateWalletIntent{WalletName: "alice", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	from := w.Addresses[0]
	if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1000", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
		t.Fatal(err)
	}
	_, _, err = alice.UpsertGasUsageConfig(bg, sub, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1000", SubOrgWindowLimitUsd: "1000", WindowDurationMinutes: "60"})
	expectErr(t, "limits set by a sub-organization", err, apierr.FailedPrecondition, "set by the billing organization")
	yes := true
	send := func(c *client.Client, orgID, from string) (string, error) {
		res, _, err := c.EthSendTransaction(bg, orgID, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
			Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d00e"}}})
		if err != nil {
			return "", err
		}
		return res.SendTransactionStatusID, nil
	}
	id, err := send(alice, sub, from)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.WaitForSendTransaction(bg, sub, id, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	usage, err := alice.GetGasUsage(bg, sub)
	if err != nil || usage.WindowLimitUsd != "1" || usage.UsageUsd == "0" {
		t.Fatalf("the sub-organization's usage: %+v %v", usage, err)
	}
	if parent, err := s.root.GetGasUsage(bg, org); err != nil || usage.SponsorAddress == "" || usage.SponsorAddress != parent.SponsorAddress {
		t.Errorf("the sub-organization's sponsor %q is not its billing organization's: %+v %v", usage.SponsorAddress, parent, err)
	}
	limit := justAbove(t, usage.UsageUsd)
	if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1000", SubOrgWindowLimitUsd: limit, WindowDurationMinutes: "60"}); err != nil {
		t.Fatal(err)
	}
	if id, err = send(alice, sub, from); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.WaitForSendTransaction(bg, sub, id, 30*time.Second); err == nil || !strings.Contains(err.Error(), "past its limit of "+limit+" USD") {
		t.Errorf("a second sponsored send, which would pass the sub-organization's limit: %v", err)
	}
	own := s.ethWallet("billing")
	id, err = send(s.root, org, own)
	if err != nil {
		t.Fatalf("the billing organization, under its own limit: %v", err)
	}
	if _, err := s.waitSend(id); err != nil {
		t.Fatal(err)
	}
	total, err := s.root.GetGasUsage(bg, org)
	if err != nil || total.WindowLimitUsd != "1000" || total.UsageWei == usage.UsageWei {
		t.Errorf("the billing organization's usage (all its organizations): %+v %v", total, err)
	}

	// The billing organization's window at its limit: a new sub-organization, which spent nothing, is refused.
	if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "0.000001", SubOrgWindowLimitUsd: "1000", WindowDurationMinutes: "60"}); err != nil {
		t.Fatal(err)
	}
	bobKey, bobParams := newKey(t, stamp.CurveP256)
	fresh, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Bob", bobParams))
	if err != nil {
		t.Fatal(err)
	}
	bob := s.client(bobKey)
	bw, _, err := bob.CreateWallet(bg, fresh.SubOrganizationID, api.CreateWalletIntent{WalletName: "bob", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = send(bob, fresh.SubOrganizationID, bw.Addresses[0])
	expectErr(t, "a new sub-organization under a billing organization at its limit", err, apierr.ResourceExhausted,
		"the billing organization's (all its organizations') sponsored gas spend")
}

// The same body submitted again is the same activity with the same send: the transaction is signed and broadcast once.
func TestEthSendTransactionOnce(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "once", 1, 0)
	body := envelope(api.EthSendTransactionV2.Type, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node),
		Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000e0e0", Value: "5"}}}, time.Now())
	ids := map[string]bool{}
	for range 3 {
		r := s.stamped("/public/v1/submit/eth_send_transaction", body, s.boot.APIKey)
		if r.status != 200 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		activity, _ := r.body["activity"].(map[string]any)
		result, _ := activity["result"].(map[string]any)
		res, _ := result["ethSendTransactionResultV2"].(map[string]any)
		ids[activity["id"].(string)+" "+res["sendTransactionStatusId"].(string)] = true
	}
	if len(ids) != 1 {
		t.Fatalf("three submits of one body: %v", ids)
	}
	for id := range ids {
		if _, err := s.waitSend(strings.Fields(id)[1]); err != nil {
			t.Fatal(err)
		}
	}
	if bal, _ := node.Client().BalanceAt(bg, common.HexToAddress("0x000000000000000000000000000000000000e0e0"), nil); bal.Int64() != 5 {
		t.Errorf("the recipient holds %s wei, want 5: sent once", bal)
	}
	if n, _ := node.Client().NonceAt(bg, common.HexToAddress(from), nil); n != 1 {
		t.Errorf("the account sent %d transactions", n)
	}
}

// A signed transaction the node refuses (a fee below what it takes) stays BROADCASTING with the node's reason, sent
// again later: its nonce is not abandoned.
func TestEthSendRawTransactionRefusedByTheNode(t *testing.T) {
	t.Parallel()
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "cheap", 1, 0)
	enc, err := rlp.EncodeToBytes([]any{node.ChainID(), uint64(0), big.NewInt(0), big.NewInt(1), uint64(21000),
		common.HexToAddress("0x000000000000000000000000000000000000cAFE"), big.NewInt(1), []byte{}, types.AccessList{}})
	if err != nil {
		t.Fatal(err)
	}
	signed, _, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: hex.EncodeToString(append([]byte{2}, enc...)),
		Type: api.TransactionTypeEthereum})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{SignedTransaction: signed.SignedTransaction, Caip2: caip2(node)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.root.WaitForSendTransaction(bg, org, res.TransactionHash, time.Second)
	if err == nil || st.TxStatus != api.TxStatusBroadcasting || !strings.Contains(st.TxError, "the node refused the transaction") {
		t.Errorf("a transaction the node refuses: %+v %v", st, err)
	}
}
