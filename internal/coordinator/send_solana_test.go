package coordinator_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/testdb"
)

const lamportsPerSOL = 1_000_000_000

// solanaNode starts a Solana dev node whose slots pass every 20 ms.
func solanaNode(t testing.TB) *solanadev.Node {
	t.Helper()
	n, err := solanadev.Start(context.Background(), solanadev.Config{ListenAddr: "127.0.0.1:0", SlotPeriod: 20 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// solanaSendingStack is a stack whose coordinator sends on the Solana dev node.
func solanaSendingStack(t testing.TB, b testdb.Backend, node *solanadev.Node, more ...func(*coordinator.Config)) *stack {
	t.Helper()
	nws, err := send.NewNetworks([]send.Network{{CAIP2: node.CAIP2(), Name: "Solana dev", RPCURL: node.URL(), NativeUSD: 150, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
		cfg.Networks = nws
		cfg.FundSolanaSponsor = func(_ context.Context, address string) error {
			k, err := solana.ParseKey(address)
			if err == nil {
				_, err = node.Airdrop(k, 10*lamportsPerSOL)
			}
			return err
		}
		for _, f := range more {
			f(cfg)
		}
	})
	runSends(t, s.coord)
	return s
}

// solanaRPC calls the dev node's JSON-RPC API.
func solanaRPC(t testing.TB, node *solanadev.Node, out any, method string, params ...any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(node.URL(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage
		Error  any
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
		t.Fatalf("%s: %v %v", method, r.Error, err)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatal(err)
	}
}

func solBalance(t testing.TB, node *solanadev.Node, address string) uint64 {
	var r struct{ Value uint64 }
	solanaRPC(t, node, &r, "getBalance", address)
	return r.Value
}

func solKey(t testing.TB, address string) solana.Key {
	k, err := solana.ParseKey(address)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// unsignedSolana is a transaction of ins paid by payer, with no blockhash (the coordinator fetches one), as hex.
func unsignedSolana(t testing.TB, payer string, ins ...solana.NewInstruction) string {
	tx, err := solana.NewLegacyTransaction(solKey(t, payer), solana.Key{}, ins...)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(tx.Serialize())
}

func (s *stack) solSend(c *client.Client, p api.SolSendTransactionIntentV2) (string, error) {
	res, _, err := c.SolSendTransaction(bg, s.boot.OrganizationID, p)
	if err != nil {
		return "", err
	}
	return res.SendTransactionStatusID, nil
}

// A transfer from a funded wallet account is signed with a fetched blockhash, broadcast, and INCLUDED once the cluster
// confirms it, with its signature; the recipient holds what was sent and the payer paid the 5,000-lamport fee. A
// transaction two accounts of the organization sign (CreateAccount) goes through as well.
func TestSolSendTransactionIncluded(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := solanaSendingStack(t, b, node)
		payer, _ := s.solanaWallet("payer")
		recipient, _ := s.solanaWallet("recipient")
		if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
			t.Fatal(err)
		}
		tx := unsignedSolana(t, payer, solana.SystemTransfer(solKey(t, payer), solKey(t, recipient), lamportsPerSOL/10))
		id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: tx, SignWiths: []string{payer}, Caip2: node.CAIP2()})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.TxStatus != api.TxStatusIncluded || st.Solana == nil || len(st.Solana.Signature) < 86 || st.Eth != nil || st.Error != nil {
			t.Fatalf("status %+v", st)
		}
		var statuses struct {
			Value []*struct{ ConfirmationStatus string }
		}
		solanaRPC(t, node, &statuses, "getSignatureStatuses", []string{st.Solana.Signature})
		if statuses.Value[0] == nil || statuses.Value[0].ConfirmationStatus == "processed" {
			t.Errorf("the cluster's status of %s: %+v", st.Solana.Signature, statuses.Value[0])
		}
		if got := solBalance(t, node, recipient); got != lamportsPerSOL/10 {
			t.Errorf("recipient holds %d lamports", got)
		}
		if got := solBalance(t, node, payer); got != lamportsPerSOL-lamportsPerSOL/10-solanadev.LamportsPerSignature {
			t.Errorf("payer holds %d lamports", got)
		}

		fresh, _ := s.solanaWallet("fresh")
		rent := solanadev.MinimumBalanceForRentExemption(0)
		tx = unsignedSolana(t, payer, solana.SystemCreateAccount(solKey(t, payer), solKey(t, fresh), rent, 0, solana.SystemProgram))
		id, err = s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: tx, SignWiths: []string{payer, fresh}, Caip2: node.CAIP2()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id); err != nil {
			t.Fatal(err)
		}
		if got := solBalance(t, node, fresh); got != rent {
			t.Errorf("the account created holds %d lamports, want %d", got, rent)
		}
		// The first version of the activity: one signer, signWith.
		act, err := s.root.Submit(bg, s.boot.OrganizationID, api.SolSendTransaction.ActivitySpec, api.SolSendTransactionIntent{
			UnsignedTransaction: unsignedSolana(t, payer, solana.SystemTransfer(solKey(t, payer), solKey(t, recipient), 1)),
			SignWith:            payer, Caip2: node.CAIP2()})
		if err != nil {
			t.Fatal(err)
		}
		var res api.SolSendTransactionResult
		if err := json.Unmarshal(act.Result[api.SolSendTransaction.ResultKey], &res); err != nil {
			t.Fatalf("result %s: %v", act.Result, err)
		}
		if _, err := s.waitSend(res.SendTransactionStatusID); err != nil {
			t.Fatal(err)
		}
		if got := solBalance(t, node, recipient); got != lamportsPerSOL/10+1 {
			t.Errorf("recipient holds %d lamports after the V1 send", got)
		}
	})
}

// A non-root user's send is decided by the policies on solana.tx, as signing the transaction would be: a transfer to
// the allowed recipient goes through; one elsewhere is denied, nothing signed, nothing recorded, nothing moved.
func TestSolSendTransactionPolicy(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := solanaSendingStack(t, b, node)
		org := s.boot.OrganizationID
		payer, _ := s.solanaWallet("agent's")
		bob, _ := s.solanaWallet("bob")
		eve, _ := s.solanaWallet("eve")
		if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
			t.Fatal(err)
		}
		userID, agent := s.createUser(org, s.root, "agent")
		s.policy("agent pays bob", api.EffectAllow, "activity.action == 'SIGN' && solana.tx.transfers.all(t, t.to == '"+bob+"')",
			"approvers.any(user, user.id == '"+userID+"')")
		transfer := func(to string) api.SolSendTransactionIntentV2 {
			return api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer,
				solana.SystemTransfer(solKey(t, payer), solKey(t, to), lamportsPerSOL/100)), SignWiths: []string{payer}, Caip2: node.CAIP2()}
		}
		id, err := s.solSend(agent, transfer(bob))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id); err != nil {
			t.Fatal(err)
		}
		before := s.activityCount(org)
		_, err = s.solSend(agent, transfer(eve))
		expectErr(t, "a transfer to eve", err, apierr.PermissionDenied, "permissions")
		if due, err := s.store.DueSends(bg, node.CAIP2(), time.Now().Add(time.Hour).UnixNano(), 10); err != nil || len(due) != 0 {
			t.Errorf("a denied send left %d sends (%v)", len(due), err)
		}
		if n := s.activityCount(org); n != before+1 {
			t.Errorf("the denied send recorded %d activities, want its one, failed", n-before)
		}
		// A send made after the denied one, included: the worker has run past where the denied one would be.
		if id, err = s.solSend(agent, transfer(bob)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(id); err != nil {
			t.Fatal(err)
		}
		if got := solBalance(t, node, eve); got != 0 {
			t.Errorf("eve holds %d lamports after a denied send", got)
		}
		if got := solBalance(t, node, bob); got != 2*lamportsPerSOL/100 {
			t.Errorf("bob holds %d lamports after two sends", got)
		}
	})
}

// Bad input is refused (400) with no send recorded: an unknown or malformed caip2, sponsorship, a transaction that
// does not parse, a signer that is not the transaction's, a signer slot nobody fills. Sends the cluster refuses fail
// with its reason: an unfunded payer at preflight, a blockhash that expired before it landed.
func TestSolSendTransactionRefusals(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := solanaSendingStack(t, b, node)
		payer, _ := s.solanaWallet("payer")
		other, _ := s.solanaWallet("other")
		evmAccount := s.ethWallet("evm")
		tx := unsignedSolana(t, payer, solana.SystemTransfer(solKey(t, payer), solKey(t, other), 1_000_000))
		ok := api.SolSendTransactionIntentV2{UnsignedTransaction: tx, SignWiths: []string{payer}, Caip2: node.CAIP2()}
		for _, c := range []struct {
			name string
			edit func(p *api.SolSendTransactionIntentV2)
			code apierr.Code
			want string
		}{
			{"unknown cluster", func(p *api.SolSendTransactionIntentV2) { p.Caip2 = "solana:devnet" }, apierr.InvalidArgument,
				`unknown network "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": this server sends on ` + node.CAIP2()},
			{"not solana", func(p *api.SolSendTransactionIntentV2) { p.Caip2 = "eip155:1" }, apierr.InvalidArgument, "is not a Solana CAIP-2 id"},
			{"not a transaction", func(p *api.SolSendTransactionIntentV2) { p.UnsignedTransaction = "0102" }, apierr.InvalidArgument, "parameters.unsignedTransaction"},
			{"no signer", func(p *api.SolSendTransactionIntentV2) { p.SignWiths = nil }, apierr.InvalidArgument, "parameters.signWiths"},
			{"another signer", func(p *api.SolSendTransactionIntentV2) { p.SignWiths = []string{other} }, apierr.InvalidArgument, "parameters.signWiths[0]: " + other + " is not one of the transaction's 1 signers"},
			{"an Ethereum key", func(p *api.SolSendTransactionIntentV2) { p.SignWiths = []string{evmAccount} }, apierr.InvalidArgument, "parameters.signWiths[0]: a Solana transaction needs a CURVE_ED25519 key"},
			{"a stranger", func(p *api.SolSendTransactionIntentV2) {
				p.SignWiths = []string{"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"}
			}, apierr.InvalidArgument, "no wallet account or private key 9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM in this organization"},
			{"bad blockhash", func(p *api.SolSendTransactionIntentV2) { p.RecentBlockhash = "nope" }, apierr.InvalidArgument, "parameters.recentBlockhash"},
		} {
			p := ok
			c.edit(&p)
			_, err := s.solSend(s.root, p)
			expectErr(t, c.name, err, c.code, c.want)
		}
		fresh, _ := s.solanaWallet("fresh")
		twoSigners := unsignedSolana(t, payer, solana.SystemCreateAccount(solKey(t, payer), solKey(t, fresh), 1_000_000, 0, solana.SystemProgram))
		_, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: twoSigners, SignWiths: []string{payer}, Caip2: node.CAIP2()})
		expectErr(t, "a signer left out", err, apierr.InvalidArgument, "signer "+fresh+" (slot 1) is neither in signWiths nor signed already")
		if due, err := s.store.DueSends(bg, node.CAIP2(), time.Now().Add(time.Hour).UnixNano(), 10); err != nil || len(due) != 0 {
			t.Errorf("refused requests left %d sends (%v)", len(due), err)
		}

		// The payer holds nothing: the cluster's preflight refuses it, and nothing was charged.
		id, err := s.solSend(s.root, ok)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(id)
		var sf *client.SendFailedError
		if !errors.As(err, &sf) || st.Error.Solana == nil || st.Error.Solana.Source != "preflight" || st.Error.Solana.TransactionErrorJSON != `"AccountNotFound"` ||
			!strings.Contains(st.Error.Message, "Attempt to debit an account but found no record of a prior credit") || st.TxError != st.Error.Message {
			t.Fatalf("unfunded payer: %+v %+v %v", st, st.Error, err)
		}

		// A blockhash the cluster does not know (expired): the send fails once it can no longer land.
		if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
			t.Fatal(err)
		}
		stale := ok
		stale.RecentBlockhash = solana.Key{1, 2, 3}.String()
		id, err = s.solSend(s.root, stale)
		if err != nil {
			t.Fatal(err)
		}
		st, err = s.waitSend(id)
		if err == nil || st.Error.Solana == nil || st.Error.Solana.Source != "expiry" || !strings.Contains(st.Error.Message, "expired before it landed") {
			t.Fatalf("stale blockhash: %+v %v", st, err)
		}
		if got := solBalance(t, node, other); got != 0 {
			t.Errorf("failed sends moved %d lamports", got)
		}
	})
}

// A cluster that does not answer leaves a send INITIALIZED with the reason, and fails it, nothing signed, once it has
// waited its time.
func TestSolSendTransactionNodeDown(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(nil)
	down.Close() // its port now refuses connections
	const cluster = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	nws, err := send.NewNetworks([]send.Network{{CAIP2: cluster, RPCURL: down.URL, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) { c.Networks, c.SendGiveUp = nws, 2*time.Second })
	runSends(t, s.coord)
	payer, _ := s.solanaWallet("stranded")
	// The alias names the configured cluster.
	id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer,
		solana.SystemTransfer(solKey(t, payer), solKey(t, payer), 1)), SignWiths: []string{payer}, Caip2: "solana:mainnet"})
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := s.root.WaitForSendTransaction(bg, s.boot.OrganizationID, id, 500*time.Millisecond)
	if err == nil || waiting.TxStatus != api.TxStatusInitialized || !strings.Contains(waiting.TxError, "the network's node did not answer") {
		t.Errorf("while the cluster is down: %+v %v", waiting, err)
	}
	st, err := s.waitSend(id)
	if err == nil || !strings.Contains(st.Error.Message, "nothing was signed: the network's node did not answer") || st.Solana != nil {
		t.Errorf("after giving up: %+v %v", st, err)
	}
}

// A Solana send's status updates reach the endpoints subscribed to SEND_TRANSACTION_STATUS_UPDATES, with its signature.
func TestSolSendTransactionWebhooks(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	s := solanaSendingStack(t, testdb.SQLite(t), node, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}
	})
	runWebhooks(t, s.coord)
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, `{"networks":["`+node.CAIP2()+`"]}`, api.WebhookSendTransactionUpdates)
	payer, _ := s.solanaWallet("hooked")
	if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
		t.Fatal(err)
	}
	id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer,
		solana.SystemTransfer(solKey(t, payer), solKey(t, payer), 1)), SignWiths: []string{payer}, Caip2: node.CAIP2()})
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
		sol, _ := body["solana"].(map[string]any)
		if body["network"] != node.CAIP2() || body["from"] != payer || sol["signature"] != st.Solana.Signature {
			t.Errorf("%s: %v", status, body)
		}
	}
}

// A sponsored send: the organization's fee sponsor (created and funded on first use) is added as the fee payer and
// signs first; the account moves exactly what it sends and pays no fee; the fee counts against the gas-spend limits,
// past which, or with sponsorship disabled, a sponsored send is refused. A transaction signed already, or one that
// sets a priority fee, is refused for sponsorship.
func TestSolSendTransactionSponsored(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := solanaSendingStack(t, b, node)
		org := s.boot.OrganizationID
		payer, _ := s.solanaWallet("sponsored")
		recipient, _ := s.solanaWallet("recipient")
		if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
			t.Fatal(err)
		}
		yes := true
		sponsored := func(ins ...solana.NewInstruction) (string, error) {
			return s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer, ins...),
				SignWiths: []string{payer}, Caip2: node.CAIP2(), Sponsor: &yes})
		}
		transfer := solana.SystemTransfer(solKey(t, payer), solKey(t, recipient), lamportsPerSOL/2)
		id, err := sponsored(transfer)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.waitSend(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := solBalance(t, node, payer); got != lamportsPerSOL/2 {
			t.Errorf("the sponsored account holds %d lamports, want exactly what it did not send", got)
		}
		if got := solBalance(t, node, recipient); got != lamportsPerSOL/2 {
			t.Errorf("recipient holds %d lamports", got)
		}
		var landed struct {
			Meta        struct{ Fee uint64 }
			Transaction struct {
				Message struct{ AccountKeys []string }
			}
		}
		solanaRPC(t, node, &landed, "getTransaction", st.Solana.Signature, map[string]string{"commitment": "confirmed"})
		sponsor := landed.Transaction.Message.AccountKeys[0]
		if sponsor == payer || landed.Meta.Fee != 2*solanadev.LamportsPerSignature {
			t.Fatalf("fee payer %s (the account is %s), fee %d", sponsor, payer, landed.Meta.Fee)
		}
		if got := solBalance(t, node, sponsor); got != 10*lamportsPerSOL-2*solanadev.LamportsPerSignature {
			t.Errorf("the sponsor holds %d lamports after paying one fee", got)
		}

		// The limits count the fee: 10,000 lamports at 150 USD a SOL is 0.0015 USD.
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "0.001", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		usage, err := s.root.GetGasUsage(bg, org)
		if err != nil || usage.UsageLamports != "10000" || usage.UsageWei != "0" || usage.UsageUsd != "0.0015" || usage.SolanaSponsorAddress != sponsor {
			t.Fatalf("usage after one sponsored send: %+v %v", usage, err)
		}
		small := solana.SystemTransfer(solKey(t, payer), solKey(t, recipient), 1)
		_, err = sponsored(small)
		expectErr(t, "past the limit", err, apierr.ResourceExhausted, "at or past its limit of 0.001 USD")
		no := false
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "100", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60", Enabled: &no}); err != nil {
			t.Fatal(err)
		}
		_, err = sponsored(small)
		expectErr(t, "sponsorship disabled", err, apierr.FailedPrecondition, "gas sponsorship is disabled")

		priority := solana.NewInstruction{Program: solKey(t, "ComputeBudget111111111111111111111111111111"), Data: []byte{3, 1, 0, 0, 0, 0, 0, 0, 0}}
		_, err = sponsored(priority, small)
		expectErr(t, "a priority fee", err, apierr.InvalidArgument, "sets a priority fee")
		signed, err := solana.NewLegacyTransaction(solKey(t, payer), solana.Key{}, small)
		if err != nil {
			t.Fatal(err)
		}
		signed = signed.Signed(0, [64]byte{1})
		_, err = s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: hex.EncodeToString(signed.Serialize()),
			SignWiths: []string{payer}, Caip2: node.CAIP2(), Sponsor: &yes})
		expectErr(t, "a signed transaction", err, apierr.InvalidArgument, "voids the signatures it holds")
	})
}

// skipPreflight is a proxy to the dev node that sends every transaction with skipPreflight, as an RPC provider that
// forwards straight to the leader does: a transaction whose instruction fails lands, failed, at its fee.
func skipPreflight(t testing.TB, node *solanadev.Node) string {
	target, _ := url.Parse(node.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if params, _ := req["params"].([]any); req["method"] == "sendTransaction" && len(params) == 2 {
			params[1].(map[string]any)["skipPreflight"] = true
		}
		body, _ := json.Marshal(req)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A sponsored transfer that fails on chain (an overdraft a cluster without preflight lets land): FAILED with the
// runtime's error, and its fee, which the sponsor paid, still counts against the gas-spend limits.
func TestSolSendTransactionFailsOnChain(t *testing.T) {
	t.Parallel()
	node := solanaNode(t)
	nws, err := send.NewNetworks([]send.Network{{CAIP2: node.CAIP2(), RPCURL: skipPreflight(t, node), NativeUSD: 150, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := newStackWith(t, testdb.SQLite(t), nil, func(cfg *coordinator.Config) {
		cfg.Networks = nws
		cfg.FundSolanaSponsor = func(_ context.Context, address string) error {
			_, err := node.Airdrop(solKey(t, address), lamportsPerSOL)
			return err
		}
	})
	runSends(t, s.coord)
	org := s.boot.OrganizationID
	if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "100", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
		t.Fatal(err)
	}
	payer, _ := s.solanaWallet("overdrawn")
	if _, err := node.Airdrop(solKey(t, payer), lamportsPerSOL); err != nil {
		t.Fatal(err)
	}
	yes := true
	id, err := s.solSend(s.root, api.SolSendTransactionIntentV2{UnsignedTransaction: unsignedSolana(t, payer,
		solana.SystemTransfer(solKey(t, payer), solKey(t, payer), 2*lamportsPerSOL)), SignWiths: []string{payer}, Caip2: node.CAIP2(), Sponsor: &yes})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.waitSend(id)
	if err == nil || st.Error.Solana == nil || st.Error.Solana.Source != "execution" ||
		st.Error.Solana.TransactionErrorJSON != `{"InstructionError":[0,{"Custom":1}]}` || st.Solana == nil {
		t.Fatalf("an overdraft landed: %+v %+v %v", st, st.Error, err)
	}
	usage, err := s.root.GetGasUsage(bg, org)
	if err != nil || usage.UsageLamports != "10000" {
		t.Errorf("usage after a sponsored send failed on chain: %+v %v", usage, err)
	}
	if got := solBalance(t, node, payer); got != lamportsPerSOL {
		t.Errorf("the account holds %d lamports: a failed transaction moves nothing, and the sponsor paid its fee", got)
	}
}
