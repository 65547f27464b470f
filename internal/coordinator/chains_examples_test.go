package coordinator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/btcutil/base58"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/testdb"
)

// solIx is an instruction of a test transaction: its program, accounts (writable, not signers unless the fee payer)
// and data.
type solIx struct {
	program  []byte
	accounts [][]byte
	data     []byte
}

// solanaMessageTx builds an unsigned transaction paid by payer: the payer first, the instructions' other accounts
// writable, the programs read-only. With lookup, it is a version 0 message whose instructions' account nil is loaded
// from a lookup table (its writable index 0).
func solanaMessageTx(payer []byte, ixs []solIx, lookup []byte) []byte {
	keys := [][]byte{payer}
	index := func(k []byte) byte {
		for i, o := range keys {
			if bytes.Equal(o, k) {
				return byte(i)
			}
		}
		keys = append(keys, k)
		return byte(len(keys) - 1)
	}
	var programs [][]byte
	for _, ix := range ixs {
		for _, a := range ix.accounts {
			if a != nil {
				index(a)
			}
		}
		programs = append(programs, ix.program)
	}
	nWritable := len(keys)
	for _, p := range programs {
		index(p)
	}
	msg := []byte{1, 0, byte(len(keys) - nWritable), byte(len(keys))}
	if lookup != nil {
		msg = append([]byte{0x80}, msg...)
	}
	for _, k := range keys {
		msg = append(msg, k...)
	}
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...)
	msg = append(msg, byte(len(ixs)))
	for _, ix := range ixs {
		msg = append(msg, index(ix.program), byte(len(ix.accounts)))
		for _, a := range ix.accounts {
			if a == nil {
				msg = append(msg, byte(len(keys))) // the first loaded account
			} else {
				msg = append(msg, index(a))
			}
		}
		msg = append(msg, byte(len(ix.data)))
		msg = append(msg, ix.data...)
	}
	if lookup != nil {
		msg = append(append(append(msg, 1), lookup...), 1, 0, 0)
	}
	return append(append([]byte{1}, make([]byte, 64)...), msg...)
}

func lamports(n uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{2, 0, 0, 0}, n) }

func transferChecked(amount uint64) []byte {
	return append(binary.LittleEndian.AppendUint64([]byte{12}, amount), 6)
}

// Every documented Solana, Bitcoin and Tron example policy, created as the reference documents it (the DENY ones as
// DENY), decides what evaluate_activity reports for a matching and a non-matching transaction signed by the
// organization's accounts: OUTCOME_ALLOW or OUTCOME_DENY_EXPLICIT for the one, anything else for the other.
func TestDocumentedChainPolicies(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	agentID, agent := s.createUser(org, s.root, "agent")
	consensus := "approvers.any(u, u.id == '" + agentID + "')"

	solAddress, payer := s.solanaWallet("sol")
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "btc and tron", Accounts: []api.WalletAccountParams{
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"},
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/86'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR"},
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/195'/0'", AddressFormat: "ADDRESS_FORMAT_TRON"}}})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
	pubs := map[string][]byte{}
	for _, a := range list.Accounts {
		pubs[a.Address], _ = hex.DecodeString(a.PublicKey)
	}
	segwit, taproot, tronFrom := w.Addresses[0], w.Addresses[1], w.Addresses[2]

	b58 := base58.Encode
	system, token := make([]byte, 32), base58.Decode("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
	bob, eve, other := bytes.Repeat([]byte{0xb0}, 32), bytes.Repeat([]byte{0xee}, 32), bytes.Repeat([]byte{0x0f}, 32)
	mint, otherMint, src, dst, multisig := bytes.Repeat([]byte{0x31}, 32), bytes.Repeat([]byte{0x32}, 32), bytes.Repeat([]byte{0x41}, 32), bytes.Repeat([]byte{0x42}, 32), bytes.Repeat([]byte{0x43}, 32)
	table := bytes.Repeat([]byte{0x7a}, 32)
	sol := func(ixs []solIx, lookup []byte) api.SignTransactionIntentV2 {
		return api.SignTransactionIntentV2{SignWith: solAddress, UnsignedTransaction: hex.EncodeToString(solanaMessageTx(payer, ixs, lookup)), Type: api.TransactionTypeSolana}
	}
	toBob := sol([]solIx{{system, [][]byte{payer, bob}, lamports(1_000)}}, nil)
	toEve := sol([]solIx{{system, [][]byte{payer, eve}, lamports(1_000)}}, nil)
	fromOther := sol([]solIx{{system, [][]byte{other, bob}, lamports(1_000)}}, nil)
	viaLookup := sol([]solIx{{system, [][]byte{payer, nil}, lamports(1_000)}}, table)
	spl := func(m []byte, amount uint64) api.SignTransactionIntentV2 {
		return sol([]solIx{{token, [][]byte{src, m, dst, payer}, transferChecked(amount)}}, nil)
	}
	splMultisig := sol([]solIx{{token, [][]byte{src, mint, dst, multisig, payer}, transferChecked(5)}}, nil)
	splTo := func(from, to []byte) api.SignTransactionIntentV2 {
		return sol([]solIx{{token, [][]byte{from, mint, to, payer}, transferChecked(5)}}, nil)
	}

	btcTo, btcElsewhere := "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7"
	// A PSBT paying value to `to` and 40,000 of change from 200,000 (outputs vout and vout+1 of the funding
	// transaction).
	btc := func(to string, value int64, vout uint32) api.SignTransactionIntentV2 {
		return api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: hex.EncodeToString(bitcoinPSBTWith(t, pubs[segwit], pubs[taproot], to, value, vout)),
			Type: api.TransactionTypeBitcoin}
	}
	tron := func(raw []byte) api.SignTransactionIntentV2 {
		return api.SignTransactionIntentV2{SignWith: tronFrom, UnsignedTransaction: hex.EncodeToString(raw), Type: api.TransactionTypeTron}
	}
	tronTo := "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL"
	usdt := "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"
	trc20 := func(contract string) []byte {
		raw := tronTransfer(tronFrom, tronTo, 1)
		// Swap the TransferContract for a TriggerSmartContract of a9059cbb to the contract.
		field := func(num int, data []byte) []byte {
			return append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num)<<3|2), uint64(len(data))), data...)
		}
		addr := func(a string) []byte { b, _, _ := base58.CheckDecode(a); return append([]byte{0x41}, b...) }
		value := append(append(field(1, addr(tronFrom)), field(2, addr(contract))...), field(4, append([]byte{0xa9, 0x05, 0x9c, 0xbb}, make([]byte, 64)...))...)
		any := append(field(1, []byte("type.googleapis.com/protocol.TriggerSmartContract")), field(2, value)...)
		start := bytes.Index(raw, []byte{11<<3 | 2})
		n, k := binary.Uvarint(raw[start+1:])
		tail := raw[start+1+k+int(n):]
		return append(append(append([]byte{}, raw[:start]...), field(11, append([]byte{1 << 3, 31}, field(2, any)...))...), tail...)
	}

	examples := []struct {
		name, effect, condition string
		match, miss             api.SignTransactionIntentV2
	}{
		// Solana: the reference's 22-25 and Turnkey's examples/solana and language pages.
		{"system program only", api.EffectAllow, "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')", toBob, spl(mint, 1)},
		{"strict recipient", api.EffectAllow, "solana.tx.instructions.count() == 1 && solana.tx.transfers.count() == 1 && solana.tx.transfers.all(transfer, transfer.to == '" + b58(bob) + "')", toBob, toEve},
		{"deny a recipient", api.EffectDeny, "solana.tx.transfers.any(transfer, transfer.to == '" + b58(eve) + "')", toEve, toBob},
		{"deny lookups", api.EffectDeny, "solana.tx.address_table_lookups.count() > 0", viaLookup, toBob},
		{"deny a lookup recipient", api.EffectDeny, "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')", viaLookup, toBob},
		{"transfers from one sender", api.EffectAllow, "solana.tx.transfers.all(transfer, transfer.from == '" + solAddress + "')", toBob, fromOther},
		{"one transfer, count without parentheses", api.EffectAllow, "solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '" + b58(bob) + "'", toBob, toEve},
		{"transfers to one recipient", api.EffectAllow, "solana.tx.transfers.all(transfer, transfer.to == '" + b58(bob) + "')", toBob, toEve},
		{"first instruction's data", api.EffectAllow, "solana.tx.instructions[0].instruction_data_hex == '" + hex.EncodeToString(lamports(1_000)) + "'", toBob, spl(mint, 1)},
		{"first instruction's first account", api.EffectAllow, "solana.tx.instructions[0].accounts[0].account_key == '" + solAddress + "'", toBob, fromOther},
		{"one SPL transfer from a token account", api.EffectAllow, "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.from == '" + b58(src) + "')", splTo(src, dst), splTo(dst, src)},
		{"SPL transfers to a token account", api.EffectAllow, "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.to == '" + b58(dst) + "')", splTo(src, dst), splTo(dst, src)},
		{"SPL transfers by an owner", api.EffectAllow, "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.owner == '" + solAddress + "')", spl(mint, 1), splMultisig},
		{"SPL amount below", api.EffectAllow, "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.amount < 1000)", spl(mint, 999), spl(mint, 1000)},
		{"SPL of one mint", api.EffectAllow, "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.token_mint == '" + b58(mint) + "')", spl(mint, 1), spl(otherMint, 1)},
		{"SPL multisig signer", api.EffectAllow, "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.signers.any(s, s == '" + solAddress + "'))", splMultisig, spl(mint, 1)},
		// Bitcoin: the reference's 28, Turnkey's examples/bitcoin and its with-bitcoin SDK example.
		{"every output to the recipient (or the change)", api.EffectAllow, "bitcoin.tx.outputs.all(o, o.address == '" + btcTo + "' || o.address == '" + segwit + "')",
			btc(btcTo, 150_000, 0), btc(btcElsewhere, 150_000, 0)},
		{"output values", api.EffectAllow, "bitcoin.tx.outputs.all(o, o.value < 150001)", btc(btcTo, 150_000, 0), btc(btcTo, 160_000, 0)},
		{"one UTXO", api.EffectAllow, "bitcoin.tx.inputs.all(i, i.tx_id == '" + fundingTx(pubs[segwit], pubs[taproot]).TxHash().String() + "' && i.vout <= 1)", btc(btcTo, 150_000, 0), btc(btcTo, 150_000, 2)},
		{"fee cap", api.EffectDeny, "bitcoin.tx.fee > 5000", btc(btcTo, 150_000, 0), btc(btcTo, 159_000, 0)},
		{"two outputs, recipient and change", api.EffectAllow, "bitcoin.tx.outputs.count() == 2 && bitcoin.tx.outputs.all(o, o.address in ['" + btcTo + "','" + segwit + "'])",
			btc(btcTo, 150_000, 0), btc(btcElsewhere, 150_000, 0)},
		// Tron: the reference's 27 and Turnkey's examples/tron.
		{"Tether transfers", api.EffectAllow, "tron.tx.contract[0].contract_address == '" + usdt + "' && tron.tx.contract[0].data[0..8] == 'a9059cbb'", tron(trc20(usdt)), tron(trc20(tronTo))},
		{"TRX under 10 TRX", api.EffectAllow, "tron.tx.contract[0].amount < 10000000", tron(tronTransfer(tronFrom, tronTo, 9_999_999)), tron(tronTransfer(tronFrom, tronTo, 10_000_000))},
		{"every TRX transfer", api.EffectAllow, "tron.tx.contract[0].type == 'TransferContract'", tron(tronTransfer(tronFrom, tronTo, 1)), tron(trc20(usdt))},
	}
	ids := make([]string, len(examples))
	for i, ex := range examples {
		ids[i] = s.policy(ex.name, ex.effect, ex.condition, consensus)
	}
	outcome := func(p api.SignTransactionIntentV2, id string) string {
		t.Helper()
		res, err := agent.EvaluateActivity(bg, org, api.SignTransactionV2.Type, p)
		if err != nil {
			t.Fatalf("evaluate: %v", err)
		}
		for _, e := range res.PolicyEvaluations {
			if e.PolicyID == id {
				return e.Outcome
			}
		}
		t.Fatalf("policy %s not evaluated", id)
		return ""
	}
	for i, ex := range examples {
		want := "OUTCOME_ALLOW"
		if ex.effect == api.EffectDeny {
			want = "OUTCOME_DENY_EXPLICIT"
		}
		if got := outcome(ex.match, ids[i]); got != want {
			t.Errorf("%s: matching transaction: %s, want %s", ex.name, got, want)
		}
		if got := outcome(ex.miss, ids[i]); got == want {
			t.Errorf("%s: non-matching transaction: %s", ex.name, got)
		}
	}
}
