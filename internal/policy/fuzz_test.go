package policy

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"eth.tx.to == '0xAbC' && eth.tx.data[0..10] == '0x6e553f65'",
	"approvers.any(user, user.id == 'u')",
	"approvers.filter(u, u.tags.contains('t')).count() >= 2 || !(credentials.count() == 0)",
	"activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
	"activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'u' in activity.params.user_ids",
	"wallet_account.path_indexes[0] == 8797555 && wallet_account.path_hardened.all(h, h == true)",
	"eth.eip_712.message['permitted'].all(p, p['token'] == '0xa0b8') && eth.eip_712.domain.chain_id == 1",
	"eth.tx.value > 500000000000000000 && eth.tx.chain_id == 11155111 && eth.tx.nonce <= 3",
	"wallet.id == 'w' || private_key.tags.contains('t')",
	"wallets[0..1].any(w, w.exported) && eth.tx.data[1] == 'x'",
	"eth.eip_712.message['a'][0]['b'][1..2].count() == 1",
	"(a || b) && !c == d",
	"f(1, 'x', [true])",
	"eth.tx.to == \"x\"",
	"solana.tx.transfers.all(t, t.to == 'B' && t.amount < 5) && solana.tx.spl_transfers.any(s, s.signers.contains('S'))",
	"solana.tx.instructions[0].accounts.any(a, a.signer && a.writable) && solana.tx.address_table_lookups[0].writable_indexes.count == 1",
	"bitcoin.tx.outputs.all(o, o.address in ['a', 'b'] && o.value < 200000) && bitcoin.tx.fee <= 50000 && bitcoin.tx.locktime.type == 'Blocks'",
	"tron.tx.contract[0].amount < 10000000 && tron.tx.contract[0].data[0..8] == 'a9059cbb' || tron.tx.contract.any(c, c.owner.keys.count() > 1)",
}

// FuzzParse checks that parsing never panics and that printing a parsed tree and
// parsing the text again gives the same tree and the same text.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tree, err := parse(src)
		if err != nil {
			return
		}
		printed := format(tree)
		again, err := parse(printed)
		if err != nil {
			t.Fatalf("printed %q of %q does not parse: %v", printed, src, err)
		}
		if !equalTrees(tree, again) {
			t.Fatalf("printed %q of %q parses to another tree", printed, src)
		}
		if format(again) != printed {
			t.Fatalf("printing is not stable: %q then %q", printed, format(again))
		}
		for _, field := range []Field{Condition, Consensus} {
			_, _ = Compile(src, field)
		}
	})
}

// fuzzInput carries every keyword, so compiled expressions reach every evaluator.
func fuzzInput() *Input {
	var msg map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"a":[{"b":"0x1","c":[1,2]}],"permitted":[{"token":"0xA0B8"}],"n":"12","f":1.5,"z":null}`))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil {
		panic(err)
	}
	msg["g"] = float64(3)
	return &Input{
		Activity:    Activity{Type: "ACTIVITY_TYPE_DELETE_USERS", Kind: "DELETE_USERS", Resource: "USER", Action: "DELETE", Params: map[string]any{"user_ids": []string{"u", "v"}, "user_id": "u", "otp_length": 6}},
		Approvers:   []User{{ID: "u", Tags: []string{"t"}}, {ID: "v"}},
		Credentials: []Credential{{ID: "c", UserID: "u", Type: "CREDENTIAL_TYPE_API_KEY_P256"}},
		EthTx:       &EthTx{To: "0xAbC", Data: "0x6e553f6500", Value: big.NewInt(7), ChainID: big.NewInt(1)},
		EIP712:      &EIP712{PrimaryType: "P", Message: msg},
		Wallet:      &Wallet{ID: "w"},
		Wallets:     []Wallet{{ID: "w", Exported: true}},
		WalletAccount: &WalletAccount{Address: "0x1", PathIndexes: []uint32{44, 60},
			PathHardened: []bool{true}},
		SolanaTx:  solLookup().SolanaTx,
		BitcoinTx: btcTx(btcTo, 5, 7).BitcoinTx,
		TronTx:    tronTransfer(5).TronTx,
	}
}

// FuzzEval checks that no compiled expression panics on a fixed input, and that Eval
// agrees with the three-valued evaluation the decision uses.
func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	in := fuzzInput()
	f.Fuzz(func(t *testing.T, src string, condition bool) {
		field := Consensus
		if condition {
			field = Condition
		}
		e, err := Compile(src, field)
		if err != nil {
			return
		}
		got, err := e.Eval(in)
		known, result, err2 := e.evalKleene(in, nil)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%q: Eval error %v, Kleene error %v", src, err, err2)
		}
		if err == nil && (!known || result != got) {
			t.Fatalf("%q: Eval %v, Kleene %v %v", src, got, known, result)
		}
		if err != nil && got {
			t.Fatalf("%q: true with error %v", src, err)
		}
	})
}
