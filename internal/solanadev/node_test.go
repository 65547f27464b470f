package solanadev

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/solana"
)

// devNode starts a node whose slots move only with transactions (and the test), over a state file.
func devNode(t testing.TB, file string) *Node {
	t.Helper()
	n, err := Start(context.Background(), Config{ListenAddr: "127.0.0.1:0", SlotPeriod: time.Hour, StateFile: file})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// call makes one JSON-RPC call over HTTP and returns its result, or its error.
func call(t *testing.T, n *Node, method string, params ...any) (json.RawMessage, *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(n.URL(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *rpcError
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Result, out.Error
}

func mustCall(t *testing.T, n *Node, method string, params ...any) json.RawMessage {
	t.Helper()
	r, err := call(t, n, method, params...)
	if err != nil {
		t.Fatalf("%s: %d %s %v", method, err.Code, err.Message, err.Data)
	}
	return r
}

func balance(t *testing.T, n *Node, k solana.Key) uint64 {
	var v struct{ Value uint64 }
	_ = json.Unmarshal(mustCall(t, n, "getBalance", k.String()), &v)
	return v.Value
}

func blockhash(t *testing.T, n *Node) solana.Key {
	var v struct{ Value struct{ Blockhash string } }
	_ = json.Unmarshal(mustCall(t, n, "getLatestBlockhash"), &v)
	k, err := solana.ParseKey(v.Value.Blockhash)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type keypair struct {
	pub  solana.Key
	priv ed25519.PrivateKey
}

func newKeypair() keypair {
	pub, priv, _ := ed25519.GenerateKey(nil)
	return keypair{solana.Key(pub), priv}
}

// signed builds and signs a transaction paid by the first signer.
func signed(t *testing.T, n *Node, signers []keypair, ins ...solana.NewInstruction) *solana.Transaction {
	t.Helper()
	tx, err := solana.NewLegacyTransaction(signers[0].pub, blockhash(t, n), ins...)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range signers {
		i, ok := tx.Message.SignerIndex(s.pub)
		if !ok {
			t.Fatalf("%s is no signer", s.pub)
		}
		var sig [64]byte
		copy(sig[:], ed25519.Sign(s.priv, tx.Message.Bytes()))
		tx = tx.Signed(i, sig)
	}
	return tx
}

func funded(t *testing.T, n *Node, lamports uint64) keypair {
	k := newKeypair()
	mustCall(t, n, "requestAirdrop", k.pub.String(), lamports)
	return k
}

func send(t *testing.T, n *Node, tx *solana.Transaction, opts map[string]any) (string, *rpcError) {
	t.Helper()
	if opts == nil {
		opts = map[string]any{}
	}
	opts["encoding"] = "base64"
	r, err := call(t, n, "sendTransaction", base64.StdEncoding.EncodeToString(tx.Serialize()), opts)
	var sig string
	_ = json.Unmarshal(r, &sig)
	return sig, err
}

func TestTransferChargesFeeAndConfirms(t *testing.T) {
	n := devNode(t, "")
	alice, bob := funded(t, n, 2_000_000_000), newKeypair()
	tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, 1_000_000_000))
	// base58, the RPC's default encoding
	r := mustCall(t, n, "sendTransaction", keys.Base58Encode(tx.Serialize()))
	var sig string
	_ = json.Unmarshal(r, &sig)
	if sig != keys.Base58Encode(tx.Signatures[0][:]) {
		t.Fatalf("signature %s, want the first signature", sig)
	}
	if got := balance(t, n, bob.pub); got != 1_000_000_000 {
		t.Errorf("recipient holds %d", got)
	}
	if got := balance(t, n, alice.pub); got != 1_000_000_000-LamportsPerSignature {
		t.Errorf("sender holds %d, want 1 SOL less the 5000-lamport fee", got)
	}
	statusOf := func() string {
		var v struct {
			Value []*struct{ ConfirmationStatus string }
		}
		_ = json.Unmarshal(mustCall(t, n, "getSignatureStatuses", []string{sig}), &v)
		return v.Value[0].ConfirmationStatus
	}
	if s := statusOf(); s != "processed" {
		t.Errorf("status %s right after, want processed", s)
	}
	n.mu.Lock()
	n.st.Slot++
	n.mu.Unlock()
	if s := statusOf(); s != "confirmed" {
		t.Errorf("status %s a slot later, want confirmed", s)
	}
	if tr := mustCall(t, n, "getTransaction", sig); string(tr) != "null" {
		t.Errorf("getTransaction at finalized before finality: %s", tr)
	}
	n.mu.Lock()
	n.st.Slot += FinalizedDepth
	n.mu.Unlock()
	if s := statusOf(); s != "finalized" {
		t.Errorf("status %s 33 slots later, want finalized", s)
	}
	var got struct {
		Meta struct {
			Fee          uint64
			Err          any
			PostBalances []uint64
		}
	}
	_ = json.Unmarshal(mustCall(t, n, "getTransaction", sig, map[string]any{"encoding": "json"}), &got)
	if got.Meta.Fee != LamportsPerSignature || got.Meta.Err != nil || len(got.Meta.PostBalances) != 3 {
		t.Errorf("getTransaction meta %+v", got.Meta)
	}
	var parsed struct {
		Transaction struct {
			Message struct {
				Instructions []struct {
					Program string
					Parsed  struct {
						Type string
						Info struct {
							Source, Destination string
							Lamports            uint64
						}
					}
				}
			}
		}
	}
	_ = json.Unmarshal(mustCall(t, n, "getTransaction", sig, map[string]any{"encoding": "jsonParsed"}), &parsed)
	if in := parsed.Transaction.Message.Instructions; len(in) != 1 || in[0].Program != "system" || in[0].Parsed.Type != "transfer" ||
		in[0].Parsed.Info.Source != alice.pub.String() || in[0].Parsed.Info.Destination != bob.pub.String() || in[0].Parsed.Info.Lamports != 1_000_000_000 {
		t.Errorf("jsonParsed instructions %+v", in)
	}
}

func TestRefusals(t *testing.T) {
	n := devNode(t, "")
	alice, bob := funded(t, n, 1_000_000_000), newKeypair()
	t.Run("bad signature", func(t *testing.T) {
		tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, 1))
		tx.Signatures[0][0] ^= 1
		if _, err := send(t, n, tx, nil); err == nil || err.Code != codeSignatureVerification {
			t.Fatalf("tampered signature: %+v", err)
		}
		if _, err := send(t, n, tx, map[string]any{"skipPreflight": true}); err == nil || err.Code != codeSignatureVerification {
			t.Fatalf("tampered signature, skipPreflight: %+v", err)
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, 1_000_000))
		if _, err := send(t, n, tx, nil); err != nil {
			t.Fatal(err)
		}
		before := balance(t, n, alice.pub)
		_, err := send(t, n, tx, nil)
		if err == nil || err.Code != codePreflightFailure || !strings.Contains(err.Message, "already been processed") {
			t.Fatalf("duplicate: %+v", err)
		}
		if balance(t, n, alice.pub) != before {
			t.Error("a duplicate was charged")
		}
	})
	t.Run("expired blockhash", func(t *testing.T) {
		tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, 1_000_000))
		n.mu.Lock()
		n.st.Slot += MaxProcessingAge + 1
		n.mu.Unlock()
		_, err := send(t, n, tx, nil)
		if err == nil || err.Code != codePreflightFailure || !strings.Contains(string(mustJSON(err.Data)), "BlockhashNotFound") {
			t.Fatalf("expired blockhash: %+v", err)
		}
		sig, err := send(t, n, tx, map[string]any{"skipPreflight": true})
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Value []any }
		_ = json.Unmarshal(mustCall(t, n, "getSignatureStatuses", []string{sig}), &v)
		if v.Value[0] != nil {
			t.Errorf("an expired transaction sent with skipPreflight landed: %v", v.Value[0])
		}
	})
	t.Run("insufficient funds", func(t *testing.T) {
		before := balance(t, n, alice.pub)
		tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, before))
		_, err := send(t, n, tx, nil)
		if err == nil || err.Code != codePreflightFailure || !strings.Contains(string(mustJSON(err.Data)), `{"InstructionError":[0,{"Custom":1}]}`) {
			t.Fatalf("overdraft: %+v", err)
		}
		if balance(t, n, alice.pub) != before {
			t.Error("a refused preflight was charged")
		}
		// Without preflight it lands, failed, and costs its fee alone.
		sig, err := send(t, n, tx, map[string]any{"skipPreflight": true})
		if err != nil {
			t.Fatal(err)
		}
		if got := balance(t, n, alice.pub); got != before-LamportsPerSignature {
			t.Errorf("after a failed transaction the payer holds %d, want %d", got, before-LamportsPerSignature)
		}
		var v struct{ Value []struct{ Err any } }
		_ = json.Unmarshal(mustCall(t, n, "getSignatureStatuses", []string{sig}), &v)
		if v.Value[0].Err == nil {
			t.Error("the failed transaction's status has no err")
		}
		poor := newKeypair()
		tx = signed(t, n, []keypair{poor}, solana.SystemTransfer(poor.pub, bob.pub, 1))
		if _, err := send(t, n, tx, nil); err == nil || !strings.Contains(string(mustJSON(err.Data)), "AccountNotFound") {
			t.Fatalf("unfunded payer: %+v", err)
		}
	})
	t.Run("unsupported program", func(t *testing.T) {
		tx := signed(t, n, []keypair{alice}, solana.NewInstruction{Program: newKeypair().pub, Data: []byte{3},
			Accounts: []solana.AccountMeta{{Key: alice.pub, Signer: true, Writable: true}}})
		_, err := send(t, n, tx, nil)
		if err == nil || !strings.Contains(string(mustJSON(err.Data)), `{"InstructionError":[0,"UnsupportedProgramId"]}`) {
			t.Fatalf("token program: %+v", err)
		}
	})
	t.Run("rent", func(t *testing.T) {
		tx := signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, newKeypair().pub, 1000))
		if _, err := send(t, n, tx, nil); err == nil || !strings.Contains(string(mustJSON(err.Data)), "InsufficientFundsForRent") {
			t.Fatalf("below rent exemption: %+v", err)
		}
	})
}

func TestCreateAccountAndState(t *testing.T) {
	file := filepath.Join(t.TempDir(), "solana.json")
	n := devNode(t, file)
	alice, fresh := funded(t, n, 1_000_000_000), newKeypair()
	owner := newKeypair().pub
	rent := MinimumBalanceForRentExemption(10)
	tx := signed(t, n, []keypair{alice, fresh}, solana.SystemCreateAccount(alice.pub, fresh.pub, rent, 10, owner))
	if _, err := send(t, n, tx, nil); err != nil {
		t.Fatal(err)
	}
	var info struct {
		Value struct {
			Lamports uint64
			Owner    string
			Data     []string
			Space    int
		}
	}
	_ = json.Unmarshal(mustCall(t, n, "getAccountInfo", fresh.pub.String(), map[string]string{"encoding": "base64"}), &info)
	if info.Value.Lamports != rent || info.Value.Owner != owner.String() || info.Value.Space != 10 {
		t.Fatalf("created account %+v", info.Value)
	}
	// again: the account is in use
	tx = signed(t, n, []keypair{alice, fresh}, solana.SystemCreateAccount(alice.pub, fresh.pub, rent, 10, owner))
	if _, err := send(t, n, tx, nil); err == nil || !strings.Contains(string(mustJSON(err.Data)), `{"Custom":0}`) {
		t.Fatalf("account in use: %+v", err)
	}
	genesis, before := n.GenesisHash(), balance(t, n, alice.pub)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	again := devNode(t, file)
	if again.GenesisHash() != genesis || balance(t, again, alice.pub) != before {
		t.Errorf("after a restart: genesis %s (was %s), balance %d (was %d)", again.GenesisHash(), genesis, balance(t, again, alice.pub), before)
	}
	if !strings.HasPrefix(again.CAIP2(), "solana:") || len(again.CAIP2()) != len("solana:")+32 {
		t.Errorf("CAIP-2 %s", again.CAIP2())
	}
}

func TestFeeAndRentQueries(t *testing.T) {
	n := devNode(t, "")
	alice := funded(t, n, 1_000_000_000)
	other := newKeypair()
	tx := signed(t, n, []keypair{alice, other}, solana.SystemCreateAccount(alice.pub, other.pub, 1, 0, solana.SystemProgram))
	var fee struct{ Value *uint64 }
	_ = json.Unmarshal(mustCall(t, n, "getFeeForMessage", base64.StdEncoding.EncodeToString(tx.Message.Bytes())), &fee)
	if fee.Value == nil || *fee.Value != 2*LamportsPerSignature {
		t.Errorf("fee of a two-signature message: %v", fee.Value)
	}
	var rent uint64
	_ = json.Unmarshal(mustCall(t, n, "getMinimumBalanceForRentExemption", 0), &rent)
	if rent != 890880 {
		t.Errorf("rent exemption of an empty account %d, want Solana's 890880", rent)
	}
	if _, err := call(t, n, "getProgramAccounts", alice.pub.String()); err == nil || err.Code != codeMethodNotFound {
		t.Errorf("unknown method: %+v", err)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Equal airdrops at once are as many transfers, none refused as a duplicate of another.
func TestAirdropsAtOnce(t *testing.T) {
	n := devNode(t, "")
	k := newKeypair()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := n.Airdrop(k.pub, 1_000_000_000); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := balance(t, n, k.pub); got != 8_000_000_000 {
		t.Errorf("eight airdrops of 1 SOL: %d lamports", got)
	}
}

// The node forgets its oldest transactions past History, and only those.
func TestHistoryPruned(t *testing.T) {
	n := devNode(t, "")
	n.mu.Lock()
	for i := range History + History/5 + 1 {
		n.st.Txs[string(rune(i))] = &TxRecord{Slot: uint64(i + 1)}
	}
	n.prune()
	kept, oldest := len(n.st.Txs), n.st.Txs[string(rune(History/5+1))]
	n.mu.Unlock()
	if kept != History || oldest == nil {
		t.Errorf("kept %d transactions (oldest kept %v), want the newest %d", kept, oldest, History)
	}
}
