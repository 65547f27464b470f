package coordinator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/base58"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// With an ABI uploaded for the token, a policy reads the function called and its arguments by name; without it (or
// after it is deleted) the fields are absent and the policy allows nothing.
func TestSmartContractInterfacesInPolicies(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		from := s.ethWallet("bob's wallet")
		created, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{
			SmartContractAddress: strings.ToLower(token.Hex()), SmartContractInterface: erc4626ABI,
			Type: api.InterfaceTypeEthereum, Label: "USDC"})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "small approvals to the vault",
			Effect: api.EffectAllow, Consensus: "approvers.any(user, user.id == '" + bobID + "')",
			Condition: "eth.tx.function_name == 'approve' && eth.tx.function_signature == 'approve(address,uint256)' && " +
				"eth.tx.contract_call_args['spender'] == '" + vault.Hex() + "' && eth.tx.contract_call_args['amount'] <= 1000"})
		if err != nil {
			t.Fatal(err)
		}
		nonce := uint64(0)
		sign := func(to [20]byte, data []byte) error {
			nonce++
			_, _, err := bob.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, to, data, nonce)})
			return err
		}
		if err := sign(token, calldata(t, "approve", vault, big.NewInt(500))); err != nil {
			t.Fatalf("an approval the policy allows: %v", err)
		}
		for name, c := range map[string]struct {
			to   [20]byte
			data []byte
		}{
			"too large":          {token, calldata(t, "approve", vault, big.NewInt(5000))},
			"another spender":    {token, calldata(t, "approve", other, big.NewInt(5))},
			"another function":   {token, calldata(t, "transfer", vault, big.NewInt(5))},
			"no interface":       {other, calldata(t, "approve", vault, big.NewInt(5))},
			"unknown selector":   {token, []byte{0xde, 0xad, 0xbe, 0xef}},
			"truncated calldata": {token, calldata(t, "approve", vault, big.NewInt(5))[:20]},
		} {
			if err := sign(c.to, c.data); !client.IsCode(err, apierr.PermissionDenied) {
				t.Errorf("%s: %v, want a denial", name, err)
			}
		}

		got, err := s.root.GetSmartContractInterface(bg, org, created.SmartContractInterfaceID)
		if err != nil || got.SmartContractInterface.SmartContractInterface != erc4626ABI || got.SmartContractInterface.Label != "USDC" {
			t.Fatalf("get_smart_contract_interface: %+v %v", got, err)
		}
		list, _ := s.root.GetSmartContractInterfaces(bg, org)
		if len(list.SmartContractInterfaces) != 1 {
			t.Fatalf("get_smart_contract_interfaces: %+v", list)
		}
		if _, _, err := s.root.DeleteSmartContractInterface(bg, org, created.SmartContractInterfaceID); err != nil {
			t.Fatal(err)
		}
		if err := sign(token, calldata(t, "approve", vault, big.NewInt(500))); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("after the interface was deleted: %v, want a denial", err)
		}
		if _, err := s.root.GetSmartContractInterface(bg, org, created.SmartContractInterfaceID); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("a deleted interface: %v", err)
		}
	})
}

func TestSmartContractInterfaceBadInput(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	good := api.CreateSmartContractInterfaceIntent{SmartContractAddress: token.Hex(), SmartContractInterface: erc4626ABI,
		Type: api.InterfaceTypeEthereum, Label: "token"}
	if _, _, err := s.root.CreateSmartContractInterface(bg, org, good); err != nil {
		t.Fatal(err)
	}
	before := s.activityCount(org)
	with := func(f func(p *api.CreateSmartContractInterfaceIntent)) api.CreateSmartContractInterfaceIntent {
		p := good
		p.Label = "other"
		f(&p)
		return p
	}
	for name, c := range map[string]struct {
		p    api.CreateSmartContractInterfaceIntent
		code apierr.Code
		want string
	}{
		"not an ABI": {with(func(p *api.CreateSmartContractInterfaceIntent) { p.SmartContractInterface = `{"a":1}` }), apierr.InvalidArgument, "not a contract ABI"},
		"too large": {with(func(p *api.CreateSmartContractInterfaceIntent) {
			p.SmartContractInterface = strings.Repeat(" ", 400<<10+1)
		}), apierr.InvalidArgument, "at most 409600 bytes"},
		"bad address":    {with(func(p *api.CreateSmartContractInterfaceIntent) { p.SmartContractAddress = "0x1234" }), apierr.InvalidArgument, "not a 0x-prefixed Ethereum address"},
		"bad type":       {with(func(p *api.CreateSmartContractInterfaceIntent) { p.Type = "SMART_CONTRACT_INTERFACE_TYPE_COBOL" }), apierr.InvalidArgument, "parameters.type"},
		"bad program id": {with(func(p *api.CreateSmartContractInterfaceIntent) { p.Type = api.InterfaceTypeSolana }), apierr.InvalidArgument, "not a Solana program id"},
		"IDL with an undefined type": {with(func(p *api.CreateSmartContractInterfaceIntent) {
			p.Type, p.SmartContractAddress = api.InterfaceTypeSolana, "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"
			p.SmartContractInterface = `{"instructions": [{"name": "route", "accounts": [], "args": [{"name": "plan", "type": {"defined": "Plan"}}]}]}`
		}), apierr.InvalidArgument, `instruction "route", argument "plan": type "Plan" is not defined`},
	} {
		_, _, err := s.root.CreateSmartContractInterface(bg, org, c.p)
		if !client.IsCode(err, c.code) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want code %d with %q", name, err, c.code, c.want)
		}
	}
	if after := s.activityCount(org); after != before {
		t.Errorf("refused uploads stored %d activities", after-before)
	}
	// A second interface for the same address is refused, and only the failed activity is recorded.
	if _, _, err := s.root.CreateSmartContractInterface(bg, org, with(func(*api.CreateSmartContractInterfaceIntent) {})); err == nil || !strings.Contains(err.Error(), "already describes") {
		t.Errorf("a second interface for the address: %v", err)
	}
	list, _ := s.root.GetSmartContractInterfaces(bg, org)
	if len(list.SmartContractInterfaces) != 1 {
		t.Errorf("interfaces after the refusals: %d, want 1", len(list.SmartContractInterfaces))
	}
}

// With an Anchor IDL uploaded for a program, a policy reads its instructions by name, their arguments and accounts
// (the reference's policy 26) in a transaction that also calls a program without an IDL; other arguments, and the
// same call after the IDL is deleted, are denied.
func TestSolanaIDLInPolicies(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../solana/testdata/idl.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		IDL   json.RawMessage `json:"idl"`
		Cases []struct {
			DataHex string `json:"data_hex"`
		} `json:"cases"`
	}
	var program struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil || json.Unmarshal(fx.IDL, &program) != nil {
		t.Fatal("testdata/idl.json does not read")
	}
	route, _ := hex.DecodeString(fx.Cases[0].DataHex) // in_amount 995500000
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		address, pub := s.solanaWallet("sol")
		created, _, err := s.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{
			SmartContractAddress: program.Address, SmartContractInterface: string(fx.IDL), Type: api.InterfaceTypeSolana, Label: "router"})
		if err != nil {
			t.Fatal(err)
		}
		s.policy("route 995.5", api.EffectAllow, "solana.tx.instructions.any(i, i.program_key == '"+program.Address+"' && "+
			"i.parsed_instruction_data.instruction_name == 'route' && i.parsed_instruction_data.program_call_args['in_amount'] == 995500000 && "+
			"i.parsed_instruction_data.named_accounts['user_transfer_authority'] == '"+address+"')",
			"approvers.any(u, u.id == '"+agentID+"')")
		sign := func(data []byte) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, Type: api.TransactionTypeSolana,
				UnsignedTransaction: hex.EncodeToString(solanaProgramCall(pub, base58.Decode(program.Address), data))})
			return err
		}
		if err := sign(route); err != nil {
			t.Fatalf("the route the policy allows: %v", err)
		}
		other := bytes.Clone(route)
		at := bytes.Index(other, binary.LittleEndian.AppendUint64(nil, 995500000))
		binary.LittleEndian.PutUint64(other[at:], 995500001)
		for name, data := range map[string][]byte{"another amount": other, "unknown discriminator": append([]byte{9}, route[1:]...),
			"truncated": route[:20]} {
			if err := sign(data); !client.IsCode(err, apierr.PermissionDenied) {
				t.Errorf("%s: %v, want a denial", name, err)
			}
		}
		if _, _, err := s.root.DeleteSmartContractInterface(bg, org, created.SmartContractInterfaceID); err != nil {
			t.Fatal(err)
		}
		if err := sign(route); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("after the IDL was deleted: %v, want a denial", err)
		}
	})
}

// solanaProgramCall is a legacy transaction signed by from: a Compute Budget instruction, then a call of program with
// data and the accounts program, from, a writable account, the Compute Budget program.
func solanaProgramCall(from, program, data []byte) []byte {
	budget := base58.Decode("ComputeBudget111111111111111111111111111111")
	msg := []byte{1, 0, 2, 4} // one signer; two read-only unsigned accounts (the programs); four accounts
	msg = append(append(append(append(msg, from...), bytes.Repeat([]byte{0xa5}, 32)...), budget...), program...)
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...) // recent blockhash
	msg = append(msg, 2)                              // instructions
	msg = append(msg, 2, 0, 5, 2, 0x40, 0x0d, 0x03, 0x00)
	msg = append(msg, 3, 4, 3, 0, 1, 2, byte(len(data)))
	msg = append(msg, data...)
	return append(append([]byte{1}, make([]byte, 64)...), msg...)
}
