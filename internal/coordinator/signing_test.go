package coordinator_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

var (
	token = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	vault = common.HexToAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512")
	other = common.HexToAddress("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0")
)

const erc4626ABI = `[
 {"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}]},
 {"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]},
 {"type":"function","name":"deposit","inputs":[{"name":"assets","type":"uint256"},{"name":"receiver","type":"address"}]},
 {"type":"function","name":"redeem","inputs":[{"name":"shares","type":"uint256"},{"name":"receiver","type":"address"},{"name":"owner","type":"address"}]}
]`

func calldata(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	parsed, err := abi.JSON(strings.NewReader(erc4626ABI))
	if err != nil {
		t.Fatal(err)
	}
	data, err := parsed.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// unsigned1559 encodes an unsigned EIP-1559 transaction the way viem serializes one: 0x02 || rlp(9 fields).
func unsigned1559(t testing.TB, to common.Address, data []byte, nonce uint64) string {
	t.Helper()
	fields := []any{big.NewInt(1337), nonce, big.NewInt(1e9), big.NewInt(2e9), uint64(100000), to, big.NewInt(0), data, types.AccessList{}}
	enc, err := rlp.EncodeToBytes(fields)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(append([]byte{2}, enc...))
}

func ethAccount() api.WalletAccountParams {
	return api.WalletAccountParams{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}
}

// ethWallet creates a wallet of one Ethereum account in the stack's root organization and returns its address.
func (s *stack) ethWallet(name string) string {
	s.t.Helper()
	w, _, err := s.root.CreateWallet(bg, s.boot.OrganizationID, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		s.t.Fatal(err)
	}
	return w.Addresses[0]
}

// The second specification's journey on the coordinator: a non-root agent bound by three policies signs an approval,
// a deposit and a redeem, and nothing else.
func TestSeedPoliciesGateTheAgent(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "agent wallet", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		from := common.HexToAddress(w.Addresses[0])
		if w.Addresses[0] != from.Hex() {
			t.Fatalf("address %s is not EIP-55 checksummed", w.Addresses[0])
		}
		consensus := "approvers.any(user, user.id == '" + agentID + "')"
		_, _, err = s.root.CreatePolicies(bg, org, api.CreatePoliciesIntent{Policies: []api.CreatePolicyIntentV3{
			{PolicyName: "approve", Effect: api.EffectAllow, Consensus: consensus, Condition: "eth.tx.to == '" + token.Hex() + "' && eth.tx.data[0..10] == '0x095ea7b3'", Notes: ""},
			{PolicyName: "deposit", Effect: api.EffectAllow, Consensus: consensus, Condition: "eth.tx.to == '" + vault.Hex() + "' && eth.tx.data[0..10] == '0x6e553f65'", Notes: ""},
			{PolicyName: "withdraw", Effect: api.EffectAllow, Consensus: consensus, Condition: "eth.tx.to == '" + strings.ToLower(vault.Hex()) + "' && eth.tx.data[0..10] == '0xba087652'", Notes: ""},
		}})
		if err != nil {
			t.Fatal(err)
		}
		amount := big.NewInt(1_000_000)
		allowed := []struct {
			name string
			to   common.Address
			data []byte
		}{
			{"approve", token, calldata(t, "approve", vault, amount)},
			{"deposit", vault, calldata(t, "deposit", amount, from)},
			{"redeem", vault, calldata(t, "redeem", amount, from, from)},
		}
		for i, c := range allowed {
			res, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
				UnsignedTransaction: unsigned1559(t, c.to, c.data, uint64(i)), Type: api.TransactionTypeEthereum})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			raw, _ := hex.DecodeString(res.SignedTransaction)
			var tx types.Transaction
			if err := tx.UnmarshalBinary(raw); err != nil {
				t.Fatalf("%s: signed transaction does not decode: %v", c.name, err)
			}
			sender, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), &tx)
			if err != nil || sender != from || *tx.To() != c.to {
				t.Fatalf("%s: sender %s, want %s (%v)", c.name, sender, from, err)
			}
		}
		denied := []struct {
			name string
			to   common.Address
			data []byte
		}{
			{"transfer to another contract", other, calldata(t, "transfer", other, amount)},
			{"approve on the vault", vault, calldata(t, "approve", other, amount)},
		}
		for _, c := range denied {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
				UnsignedTransaction: unsigned1559(t, c.to, c.data, 9), Type: api.TransactionTypeEthereum})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status() != 403 || e.Code != apierr.PermissionDenied {
				t.Fatalf("%s: %v", c.name, err)
			}
			evals := e.Extra[0].(map[string]any)["policyEvaluations"].([]any)
			if len(evals) != 3 {
				t.Fatalf("%s: %d evaluations", c.name, len(evals))
			}
			for _, ev := range evals {
				if o := ev.(map[string]any)["outcome"]; o != "OUTCOME_DENY_IMPLICIT" {
					t.Fatalf("%s: outcome %v", c.name, o)
				}
			}
		}
	})
}

func TestSigningRefusals(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		tx := unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), 0)
		sign := func(c *client.Client, orgID, signWith, unsigned string) error {
			_, _, err := c.SignTransaction(bg, orgID, api.SignTransactionIntentV2{SignWith: signWith, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
			return err
		}
		if err := sign(s.root, org, w.Addresses[0], "0xzz"); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("undecodable: %v", err)
		}
		if err := sign(s.root, org, "0x0000000000000000000000000000000000000001", tx); !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "no wallet account or private key") {
			t.Fatalf("unknown signWith: %v", err)
		}
		// Another organization's user cannot sign with this wallet.
		subKey, subParams := newKey(t, "API_KEY_CURVE_P256")
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("other", subParams))
		if err != nil {
			t.Fatal(err)
		}
		if err := sign(s.client(subKey), sub.SubOrganizationID, w.Addresses[0], tx); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("another organization's user: %v", err)
		}
		if err := sign(s.client(subKey), org, w.Addresses[0], tx); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("another organization's key in this organization: %v", err)
		}
		// A deleted wallet signs nothing.
		if _, _, err := s.root.DeleteWallets(bg, org, api.DeleteWalletsIntent{WalletIDs: []string{w.WalletID}}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("deleting an unexported wallet without deleteWithoutExport: %v", err)
		}
		yes := true
		if _, _, err := s.root.DeleteWallets(bg, org, api.DeleteWalletsIntent{WalletIDs: []string{w.WalletID}, DeleteWithoutExport: &yes}); err != nil {
			t.Fatal(err)
		}
		if err := sign(s.root, org, w.Addresses[0], tx); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("deleted wallet: %v", err)
		}
	})
}

// A signing activity that waits for consensus is signed when the approval that completes it arrives: transactions
// and raw payloads alike, each as it was submitted.
func TestSigningAwaitsConsensus(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		tag, _, signers := s.tagged(2, "signer")
		address := s.ethWallet("shared")
		from := common.HexToAddress(address)
		both := "approvers.filter(u, u.tags.contains('" + tag + "')).count() >= 2"
		s.policy("two sign approvals", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"'", both)
		s.policy("two sign payloads", api.EffectAllow, "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'", both)

		_, pending, err := signers[0].SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address,
			UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(5)), 3), Type: api.TransactionTypeEthereum})
		var ae *client.ActivityError
		if !errors.As(err, &ae) || pending.Status != api.StatusConsensusNeeded {
			t.Fatalf("one signer: %v %+v", err, pending)
		}
		done, err := signers[1].ApproveActivity(bg, org, pending.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("approval: %v %+v", err, done)
		}
		var signed api.SignTransactionResult
		if err := json.Unmarshal(done.Result["signTransactionResult"], &signed); err != nil {
			t.Fatal(err)
		}
		raw, _ := hex.DecodeString(signed.SignedTransaction)
		var tx types.Transaction
		if err := tx.UnmarshalBinary(raw); err != nil || tx.Nonce() != 3 {
			t.Fatalf("signed transaction %s: %v", signed.SignedTransaction, err)
		}
		if sender, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), &tx); err != nil || sender != from {
			t.Fatalf("sender %s, want %s (%v)", sender, from, err)
		}

		digest := crypto.Keccak256([]byte("approved by two"))
		_, pending, err = signers[1].SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: address,
			Payload: hex.EncodeToString(digest), Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
		if !errors.As(err, &ae) || pending.Status != api.StatusConsensusNeeded {
			t.Fatalf("one signer of a payload: %v %+v", err, pending)
		}
		if done, err = signers[0].ApproveActivity(bg, org, pending.Fingerprint); err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("payload approval: %v %+v", err, done)
		}
		var sig api.SignRawPayloadResult
		if err := json.Unmarshal(done.Result["signRawPayloadResult"], &sig); err != nil {
			t.Fatal(err)
		}
		rsv, _ := hex.DecodeString(sig.R + sig.S + sig.V)
		pub, err := crypto.SigToPub(digest, rsv)
		if err != nil || crypto.PubkeyToAddress(*pub) != from {
			t.Fatalf("payload signature recovers to %v (%v), want %s", pub, err, from)
		}
	})
}

// A policy may decide on the activity's parameters (activity.params), which are read from the intent only when some
// policy of the organization names them.
func TestPolicyOnActivityParams(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		address := s.ethWallet("w")
		s.policy("hex digests only", api.EffectAllow,
			"activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.encoding == 'PAYLOAD_ENCODING_HEXADECIMAL'",
			"approvers.any(u, u.id == '"+agentID+"')")
		digest := hex.EncodeToString(crypto.Keccak256([]byte("x")))
		if _, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: address, Payload: digest,
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
			t.Fatalf("hex digest: %v", err)
		}
		_, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: address, Payload: "hello",
			Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: "HASH_FUNCTION_KECCAK256"})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("text payload: %v", err)
		}
	})
}

// TestSigningRefreshesStaleDocument: an activity that changes the organization leaves the document that requests
// authenticate against behind its stored version. The next signing activity, decided ahead against that stale
// document, is recorded in a transaction instead; once committed, the document it read there is the one the following
// activities are decided ahead against, so that they do not all take the slower path.
func TestSigningRefreshesStaleDocument(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		stored, err := s.store.GetOrg(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		sign := func(i int) {
			t.Helper()
			if _, _, err := s.root.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0],
				Payload: fmt.Sprintf("0x%064x", i), Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
				t.Fatal(err)
			}
		}
		sign(1)
		if got := s.coord.CachedOrgVersion(org); got != stored.Version {
			t.Fatalf("after a signing activity the cached document is at version %d, the stored one at %d", got, stored.Version)
		}
		sign(2)
		if n := s.activityCount(org); n < 3 {
			t.Errorf("%d activities recorded, want the wallet and both signatures", n)
		}
	})
}
