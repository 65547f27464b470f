package coordinator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/testdb"
)

// The reference's Bitcoin policy — two outputs, each to the recipient or the change address, and a fee cap — cannot be
// evaded by an extra output, or by a change output whose script is not the change address's though it carries the
// same key hash: a P2PKH or P2SH script of it (another address), a witness program of another version (which anyone
// can spend today), a script that only looks like a P2WPKH one, or an OP_RETURN that burns the change. Each renders
// another address, or none, and is denied; the honest PSBT is signed.
func TestBitcoinPolicyEvasion(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "btc", Accounts: []api.WalletAccountParams{
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"}}})
		if err != nil {
			t.Fatal(err)
		}
		change := w.Addresses[0]
		to := "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"
		s.policy("to the recipient, change back", api.EffectAllow, "bitcoin.tx.outputs.count() == 2 && bitcoin.tx.outputs.all(o, o.address in ['"+to+
			"', '"+change+"']) && bitcoin.tx.fee <= 20000", "approvers.any(u, u.id == '"+agentID+"')")

		list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		pub, _ := hex.DecodeString(list.Accounts[0].PublicKey)
		addr, _ := keys.BitcoinAddress(keys.BitcoinFormat{Network: &chaincfg.TestNet3Params, Script: keys.ScriptP2WPKH}, pub)
		mine, _ := txscript.PayToAddrScript(addr)
		hash := btcutil.Hash160(pub)
		dest, _ := btcutil.DecodeAddress(to, &chaincfg.TestNet3Params)
		scriptTo, _ := txscript.PayToAddrScript(dest)
		attacker, _ := btcutil.DecodeAddress("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", &chaincfg.TestNet3Params)
		scriptAttacker, _ := txscript.PayToAddrScript(attacker)
		script := func(b *txscript.ScriptBuilder) []byte { s, _ := b.Script(); return s }
		p2pkh := script(txscript.NewScriptBuilder().AddOp(txscript.OP_DUP).AddOp(txscript.OP_HASH160).AddData(hash).AddOp(txscript.OP_EQUALVERIFY).AddOp(txscript.OP_CHECKSIG))
		p2sh := script(txscript.NewScriptBuilder().AddOp(txscript.OP_HASH160).AddData(hash).AddOp(txscript.OP_EQUAL))
		witnessV1 := script(txscript.NewScriptBuilder().AddOp(txscript.OP_1).AddData(hash))
		lookalike := append([]byte{txscript.OP_0, txscript.OP_PUSHDATA1, 20}, hash...)
		burn := script(txscript.NewScriptBuilder().AddOp(txscript.OP_RETURN).AddData(hash))

		funding := wire.NewMsgTx(2)
		funding.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.DoubleHashH([]byte("coinbase"))}, nil, nil))
		funding.AddTxOut(wire.NewTxOut(200_000, mine))
		build := func(outs ...*wire.TxOut) string {
			id := funding.TxHash()
			p, err := psbt.New([]*wire.OutPoint{{Hash: id}}, outs, 2, 0, []uint32{wire.MaxTxInSequenceNum})
			if err != nil {
				t.Fatal(err)
			}
			p.Inputs[0].NonWitnessUtxo, p.Inputs[0].WitnessUtxo = funding, funding.TxOut[0]
			var buf bytes.Buffer
			if err := p.Serialize(&buf); err != nil {
				t.Fatal(err)
			}
			return hex.EncodeToString(buf.Bytes())
		}
		sign := func(psbtHex string) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: change, UnsignedTransaction: psbtHex, Type: api.TransactionTypeBitcoin})
			return err
		}
		pay := wire.NewTxOut(150_000, scriptTo)
		if err := sign(build(pay, wire.NewTxOut(40_000, mine))); err != nil {
			t.Fatalf("the honest PSBT: %v", err)
		}
		for name, outs := range map[string][]*wire.TxOut{
			"an extra output to the attacker":           {pay, wire.NewTxOut(20_000, mine), wire.NewTxOut(20_000, scriptAttacker)},
			"the change to the attacker":                {pay, wire.NewTxOut(40_000, scriptAttacker)},
			"the change to P2PKH of the same key hash":  {pay, wire.NewTxOut(40_000, p2pkh)},
			"the change to P2SH of the same hash":       {pay, wire.NewTxOut(40_000, p2sh)},
			"the change to a witness v1 program of it":  {pay, wire.NewTxOut(40_000, witnessV1)},
			"the change to a P2WPKH look-alike script":  {pay, wire.NewTxOut(40_000, lookalike)},
			"the change burnt in an OP_RETURN with it":  {pay, wire.NewTxOut(40_000, burn)},
			"the recipient's output split in two":       {wire.NewTxOut(75_000, scriptTo), wire.NewTxOut(75_000, scriptTo), wire.NewTxOut(40_000, mine)},
			"the recipient paid, the rest to the miner": {pay},
		} {
			if err := sign(build(outs...)); !client.IsCode(err, apierr.PermissionDenied) {
				t.Errorf("%s: %v, want a denial", name, err)
			}
		}
	})
}

// The reference's Tron policy of TRX transfers below 10 TRX cannot be evaded by moving value in a contract type whose
// amount is another field or means another asset: a contract call carrying 1,000 TRX as its call value, or a TRC-10
// transfer of a trillion units. Their tron.tx.contract[0].amount is an evaluation error, never 0, and the policy does
// not allow them.
func TestTronPolicyEvasion(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "tron", Accounts: []api.WalletAccountParams{
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/195'/0'", AddressFormat: "ADDRESS_FORMAT_TRON"}}})
		if err != nil {
			t.Fatal(err)
		}
		from, to := w.Addresses[0], "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL"
		s.policy("small TRX", api.EffectAllow, "tron.tx.contract[0].owner_address == '"+from+"' && tron.tx.contract[0].amount < 10000000",
			"approvers.any(u, u.id == '"+agentID+"')")
		sign := func(raw []byte) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: hex.EncodeToString(raw), Type: api.TransactionTypeTron})
			return err
		}
		if err := sign(tronTransfer(from, to, 1_000_000)); err != nil {
			t.Fatalf("1 TRX: %v", err)
		}
		call := append(append(protoLen(1, tronAddr(from)), protoLen(2, tronAddr(to))...), binary.AppendUvarint([]byte{3 << 3}, 1_000_000_000)...)
		call = append(call, protoLen(4, []byte{0xd0, 0xe3, 0x0d, 0xb0})...) // deposit()
		trc10 := append(append(append(protoLen(1, []byte("1002000")), protoLen(2, tronAddr(from))...), protoLen(3, tronAddr(to))...),
			binary.AppendUvarint([]byte{4 << 3}, 1_000_000_000_000)...)
		for name, raw := range map[string][]byte{
			"1,000 TRX as a contract call's value": tronRaw(31, "TriggerSmartContract", call),
			"a TRC-10 transfer of 10^12 units":     tronRaw(2, "TransferAssetContract", trc10),
		} {
			if err := sign(raw); !client.IsCode(err, apierr.PermissionDenied) {
				t.Errorf("%s: %v, want a denial", name, err)
			}
		}
	})
}
