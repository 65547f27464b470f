package coordinator_test

import (
	"bytes"
	"encoding/hex"
	"strings"
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

// A fee cap on a Bitcoin signer cannot be evaded by misstating amounts: a PSBT of two P2WPKH inputs of the signer,
// given by their witness UTXOs alone, one of them stated at a fifth of its amount, shows a fee of 10,000 — but a
// segwit v0 signature commits to its own input's amount only, so a second PSBT understating the other input would
// get the other signature, and the two spend 400,000 more in fees. Such a fee is unknown, and a policy reading it
// does not allow the signing; with the inputs' previous transaction, the fee is known and the policy decides.
func TestBitcoinFeeCapNeedsBoundAmounts(t *testing.T) {
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
		segwit := w.Addresses[0]
		list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		pub, _ := hex.DecodeString(list.Accounts[0].PublicKey)
		to := "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"
		s.policy("small fees", api.EffectAllow, "bitcoin.tx.fee <= 20000 && bitcoin.tx.outputs.all(o, o.address in ['"+to+"', '"+segwit+"'])",
			"approvers.any(u, u.id == '"+agentID+"')")

		addr, _ := keys.BitcoinAddress(keys.BitcoinFormat{Network: &chaincfg.TestNet3Params, Script: keys.ScriptP2WPKH}, pub)
		mine, _ := txscript.PayToAddrScript(addr)
		dest, _ := btcutil.DecodeAddress(to, &chaincfg.TestNet3Params)
		scriptTo, _ := txscript.PayToAddrScript(dest)
		funding := wire.NewMsgTx(2)
		funding.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.DoubleHashH([]byte("coinbase"))}, nil, nil))
		funding.AddTxOut(wire.NewTxOut(100_000, mine))
		funding.AddTxOut(wire.NewTxOut(500_000, mine))
		build := func(withPrevious bool) string {
			id := funding.TxHash()
			p, err := psbt.New([]*wire.OutPoint{{Hash: id, Index: 0}, {Hash: id, Index: 1}},
				[]*wire.TxOut{wire.NewTxOut(150_000, scriptTo), wire.NewTxOut(40_000, mine)}, 2, 0, []uint32{wire.MaxTxInSequenceNum, wire.MaxTxInSequenceNum})
			if err != nil {
				t.Fatal(err)
			}
			p.Inputs[0].WitnessUtxo = funding.TxOut[0]
			p.Inputs[1].WitnessUtxo = wire.NewTxOut(100_000, mine) // 500,000 in truth
			if withPrevious {
				p.Inputs[0].NonWitnessUtxo, p.Inputs[1].NonWitnessUtxo, p.Inputs[1].WitnessUtxo = funding, funding, funding.TxOut[1]
			}
			var buf bytes.Buffer
			if err := p.Serialize(&buf); err != nil {
				t.Fatal(err)
			}
			return hex.EncodeToString(buf.Bytes())
		}
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: build(false), Type: api.TransactionTypeBitcoin})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("a PSBT whose segwit amounts are the PSBT's word: %v, want a denial", err)
		}
		ev, err := agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: build(false),
			Type: api.TransactionTypeBitcoin})
		if err != nil || len(ev.PolicyEvaluations) != 1 || !strings.Contains(ev.PolicyEvaluations[0].Error, "the fee is unknown") {
			t.Errorf("evaluate_activity: %+v %v", ev, err)
		}
		// With the previous transaction, the true fee (410,000) is seen, and the cap denies it.
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: build(true), Type: api.TransactionTypeBitcoin})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("the true fee of 410,000 under a cap of 20,000: %v, want a denial", err)
		}
		ev, err = agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: build(true),
			Type: api.TransactionTypeBitcoin})
		if err != nil || len(ev.PolicyEvaluations) != 1 || ev.PolicyEvaluations[0].Error != "" {
			t.Errorf("evaluate_activity with the previous transaction: %+v %v", ev, err)
		}
	})
}
