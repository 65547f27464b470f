package coordinator_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testmem"
)

// The uploads are refused with the reason, and store nothing: a function taking uint256[10000][10000][1000]
// (whose decoding allocated ~800 GB), one taking an unknown type, 2,000 nested tuples, a function without a name.
func TestSmartContractInterfaceRefusesHostileABIs(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	deep := `{"name":"x","type":"uint256"}`
	for range 2000 {
		deep = `{"name":"x","type":"tuple","components":[` + deep + `]}`
	}
	fn := func(inputs string) string { return `[{"type":"function","name":"f","inputs":[` + inputs + `]}]` }
	before := s.activityCount(org)
	for name, c := range map[string]struct{ abi, want string }{
		"absurd array": {fn(`{"name":"x","type":"uint256[10000][10000][1000]"}`), `function "f": input "x": type uint256[10000][10000][1000]: an array of 10000 elements takes more than 131072 bytes`},
		"2 GB array":   {fn(`{"name":"x","type":"uint256[1000][250][1000]"}`), `function "f": input "x": type uint256[1000][250][1000]: its encoding takes more than 131072 bytes, more than a transaction holds`},
		"uint7":        {fn(`{"name":"x","type":"uint7"}`), `function "f": input "x": type uint7: an integer's size is a multiple of 8 from 8 to 256`},
		"deep tuples":  {fn(deep), `function "f": input "x": arrays and tuples nest deeper than 32`},
		"nameless":     {`[{"type":"function","name":"","inputs":[]}]`, "entry 0: the function has no name; functions, events and errors are named"},
	} {
		_, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{SmartContractAddress: token.Hex(),
			SmartContractInterface: c.abi, Type: api.InterfaceTypeEthereum, Label: "hostile"})
		expectErr(t, name, err, apierr.InvalidArgument, "parameters.smartContractInterface: "+c.want)
	}
	if n := s.activityCount(org); n != before {
		t.Errorf("refused uploads recorded %d activities", n-before)
	}
	if list, _ := s.root.GetSmartContractInterfaces(bg, org); len(list.SmartContractInterfaces) != 0 {
		t.Errorf("refused uploads stored %d interfaces", len(list.SmartContractInterfaces))
	}
}

// nestedABI declares a function and a custom error taking uint256[][][][], which any ABI may: it is the calldata that
// makes it hostile (aliasedCalldata).
const nestedABI = `[{"type":"function","name":"f","inputs":[{"name":"x","type":"uint256[][][][]"}]},
 {"type":"error","name":"Boom","inputs":[{"name":"x","type":"uint256[][][][]"}]}]`

// aliasedCalldata is the selector and one uint256[][][][] argument of 32 KB whose every level's 250 offsets point at
// the next level's one array: 250^4 (3.9 billion) numbers for a decoder that follows each offset.
func aliasedCalldata(selector string) []byte {
	const n = 250
	out, _ := hex.DecodeString(strings.TrimPrefix(selector, "0x"))
	out = append(out, word(32)...)
	for level := range 4 {
		out = append(out, word(n)...)
		for range n {
			if level < 3 {
				out = append(out, word(32*n)...)
			} else {
				out = append(out, word(1)...)
			}
		}
	}
	return out
}

// word is an ABI word holding n.
func word(n int) []byte {
	w := make([]byte, 32)
	binary.BigEndian.PutUint64(w[24:], uint64(n))
	return w
}

func selectorOf(sig string) string {
	return "0x" + hex.EncodeToString(crypto.Keccak256([]byte(sig))[:4])
}

// The attack paths, with an ABI any upload accepts and calldata that would make go-ethereum allocate 3.9
// billion numbers: a SIGN_TRANSACTION_V2, and an evaluate_activity query sent with a read-only session, to the address.
// The decoder refuses the calldata, so policies find no function called (a policy allowing f denies it); the process
// lives and signs f's honest calldata next. In a child process capped at 2 GiB of memory: before the decoder was
// bounded, the child died of "out of memory".
func TestHostileCalldataDoesNotCrashTheCoordinator(t *testing.T) {
	if !testmem.Capped(t, 2<<30) {
		return
	}
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		from := s.ethWallet("bob's wallet")
		if _, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{SmartContractAddress: token.Hex(),
			SmartContractInterface: nestedABI, Type: api.InterfaceTypeEthereum, Label: "nested"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "calls of f", Effect: api.EffectAllow,
			Consensus: "approvers.any(user, user.id == '" + bobID + "')", Condition: "eth.tx.function_name == 'f'"}); err != nil {
			t.Fatal(err)
		}
		hostile := aliasedCalldata(selectorOf("f(uint256[][][][])"))
		honest := honestCalldata()
		sign := func(c *client.Client, data []byte, nonce uint64) error {
			_, _, err := c.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, token, data, nonce)})
			return err
		}
		if err := sign(bob, hostile, 1); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("bob signing the hostile calldata: %v, want a denial (no function decoded)", err)
		}
		if err := sign(s.root, hostile, 2); err != nil {
			t.Errorf("the root user signing the hostile calldata (no policy applies to the root quorum): %v", err)
		}

		session, _, err := s.root.CreateReadOnlySession(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		params, _ := json.Marshal(api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
			UnsignedTransaction: unsigned1559(t, token, hostile, 3)})
		body, _ := json.Marshal(api.EvaluateActivityRequest{OrganizationID: org, Activity: api.SubmitRequest{Type: api.SignTransactionV2.Type,
			TimestampMs: "1", OrganizationID: org, Parameters: params}})
		h := http.Header{}
		h.Set("X-Session", session.Session)
		if r := s.post("/public/v1/query/evaluate_activity", body, h); r.status != http.StatusOK {
			t.Errorf("evaluate_activity with a read-only session: %d %s", r.status, r.raw)
		}

		if err := sign(bob, honest, 4); err != nil {
			t.Errorf("bob signing f with honest calldata after the attacks: %v", err)
		}
	})
}

// honestCalldata is f's calldata with one small uint256[][][][]: [[[[1]]]].
func honestCalldata() []byte {
	out, _ := hex.DecodeString(strings.TrimPrefix(selectorOf("f(uint256[][][][])"), "0x"))
	out = append(out, word(32)...)
	for level := range 4 {
		out = append(out, word(1)...)
		if level < 3 {
			out = append(out, word(32)...)
		} else {
			out = append(out, word(1)...)
		}
	}
	return out
}

// deployReverter deploys a contract that reverts with its calldata as the revert data, from a fresh funded account.
func deployReverter(t *testing.T, node *chain.Node) common.Address {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	deployer := crypto.PubkeyToAddress(key.PublicKey)
	if _, err := node.Faucet().Fund(bg, deployer, big.NewInt(params.Ether), nil); err != nil {
		t.Fatal(err)
	}
	// Runtime: CALLDATASIZE PUSH0 PUSH0 CALLDATACOPY CALLDATASIZE PUSH0 REVERT. Init code: store it and return it.
	initCode, _ := hex.DecodeString("66" + "365f5f37365ffd" + "5f52" + "6007" + "6019" + "f3")
	receipt, err := newAccount(node, key).Transact(context.Background(), nil, nil, initCode)
	if err != nil || receipt.Status != 1 {
		t.Fatalf("deploying the reverter: %+v %v", receipt, err)
	}
	return receipt.ContractAddress
}

func newAccount(node *chain.Node, key *ecdsa.PrivateKey) *chain.Account {
	return chain.NewAccount(node.Client(), key, node.ChainID())
}

// The revert path: the send worker decodes a reverting call's revert data with the custom errors the organization
// uploaded for the address. A contract that reverts with Boom and the hostile encoding fails the send with the data
// undecoded; the worker lives on and the next send is included. Capped as above.
func TestHostileRevertDataDoesNotCrashTheSendWorker(t *testing.T) {
	if !testmem.Capped(t, 2<<30) {
		return
	}
	node := devChain(t)
	s := sendingStack(t, testdb.SQLite(t), node)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "payer", 1, 0)
	reverter := deployReverter(t, node)
	if _, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{SmartContractAddress: reverter.Hex(),
		SmartContractInterface: nestedABI, Type: api.InterfaceTypeEthereum, Label: "reverter"}); err != nil {
		t.Fatal(err)
	}
	boom := aliasedCalldata(selectorOf("Boom(uint256[][][][])"))
	id := mustSend(t, s, from, caip2(node), api.EthCallParams{To: reverter.Hex(), Data: "0x" + hex.EncodeToString(boom)})
	st, err := s.waitSend(id)
	if err == nil || st.Error == nil || len(st.Error.RevertChain) == 0 {
		t.Fatalf("the reverting send: %+v %v, want FAILED with its revert", st, err)
	}
	if e := st.Error.RevertChain[len(st.Error.RevertChain)-1]; e.ErrorType != "unknown" || e.Unknown.Selector != selectorOf("Boom(uint256[][][][])") {
		t.Errorf("the hostile revert was decoded as %+v, want left undecoded", e)
	}
	id = mustSend(t, s, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000dEaD", Value: "1"})
	if st, err := s.waitSend(id); err != nil || st.TxStatus != api.TxStatusIncluded {
		t.Errorf("the next send: %+v %v", st, err)
	}
}
