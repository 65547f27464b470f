package coordinator_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/testdb"
)

// Every address format of the public API derives a wallet account at the official SDKs' default path, and its
// address is the keys package's of the account's public key; a private key gets every format of its curve.
func TestEveryAddressFormat(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		var accounts []api.WalletAccountParams
		byCurve := map[keys.Curve][]string{}
		for _, f := range keys.AddressFormats() {
			for _, c := range f.Curves {
				byCurve[c] = append(byCurve[c], string(f.Format))
			}
			if f.DefaultPath == "" {
				continue
			}
			accounts = append(accounts, api.WalletAccountParams{Curve: string(f.Curves[0]), PathFormat: "PATH_FORMAT_BIP32",
				Path: f.DefaultPath, AddressFormat: string(f.Format)})
		}
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "every format", Accounts: accounts})
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
			PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Accounts) != len(accounts) || len(w.Addresses) != len(accounts) {
			t.Fatalf("%d accounts listed, %d addresses, want %d", len(list.Accounts), len(w.Addresses), len(accounts))
		}
		for _, a := range list.Accounts {
			pub, _ := hex.DecodeString(a.PublicKey)
			want, err := keys.Address(keys.Curve(a.Curve), keys.AddressFormat(a.AddressFormat), pub)
			if err != nil || a.Address != want {
				t.Errorf("%s: address %s, want %s (%v)", a.AddressFormat, a.Address, want, err)
			}
			if a.Path != keys.DefaultPath(keys.AddressFormat(a.AddressFormat)) {
				t.Errorf("%s: path %s", a.AddressFormat, a.Path)
			}
		}
		for _, c := range []keys.Curve{keys.CurveSecp256k1, keys.CurveEd25519, keys.CurveP256} {
			res, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
				PrivateKeyName: "every format " + string(c), Curve: string(c), PrivateKeyTags: []string{}, AddressFormats: byCurve[c]}}})
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if got := len(res.PrivateKeys[0].Addresses); got != len(byCurve[c]) {
				t.Errorf("%s: %d addresses, want %d", c, got, len(byCurve[c]))
			}
		}

		// A format on a curve it does not fit is refused by name, before anything is derived.
		for _, bad := range []api.WalletAccountParams{
			{Curve: "CURVE_P256", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"},
			{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/195'/0'", AddressFormat: "ADDRESS_FORMAT_TRON"},
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/0'/0'", AddressFormat: "ADDRESS_FORMAT_LITECOIN"},
		} {
			_, _, err := s.root.CreateWalletAccounts(bg, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: []api.WalletAccountParams{bad}})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, bad.AddressFormat) {
				t.Errorf("%s on %s: %v", bad.AddressFormat, bad.Curve, err)
			}
		}
	})
}

// solanaTransfer builds a legacy transaction of one System Program transfer (unsigned: a zero signature slot).
func solanaTransfer(from, to []byte, lamports uint64) []byte {
	msg := []byte{1, 0, 1, 3}
	msg = append(append(append(msg, from...), to...), make([]byte, 32)...) // the System Program is 32 zero bytes
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...)                      // recent blockhash
	data := binary.LittleEndian.AppendUint64([]byte{2, 0, 0, 0}, lamports)
	msg = append(msg, 1, 2, 2, 0, 1, byte(len(data)))
	msg = append(msg, data...)
	return append(append([]byte{1}, make([]byte, 64)...), msg...)
}

func (s *stack) solanaWallet(name string) (address string, pub []byte) {
	s.t.Helper()
	w, _, err := s.root.CreateWallet(bg, s.boot.OrganizationID, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{
		{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/501'/0'/0'", AddressFormat: "ADDRESS_FORMAT_SOLANA"}}})
	if err != nil {
		s.t.Fatal(err)
	}
	return w.Addresses[0], base58.Decode(w.Addresses[0])
}

// A non-root user signs a Solana transfer that a solana.tx policy allows; the signature fills the signer's slot and
// verifies; a transfer to another recipient is denied, with the policy's outcome; what does not parse, or names
// another signer, is refused with nothing signed.
func TestSolanaSigning(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		address, pub := s.solanaWallet("sol")
		bob, eve := bytes.Repeat([]byte{0xb0}, 32), bytes.Repeat([]byte{0xee}, 32)
		s.policy("to bob", api.EffectAllow, "solana.tx.transfers.count() == 1 && solana.tx.transfers.all(t, t.to == '"+base58.Encode(bob)+"' && t.amount <= 1000000000) && solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')",
			"approvers.any(u, u.id == '"+agentID+"')")

		unsigned := solanaTransfer(pub, bob, 1_000_000_000)
		res, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, UnsignedTransaction: hex.EncodeToString(unsigned), Type: api.TransactionTypeSolana})
		if err != nil {
			t.Fatal(err)
		}
		signed, err := hex.DecodeString(res.SignedTransaction)
		if err != nil || len(signed) != len(unsigned) || !bytes.Equal(signed[65:], unsigned[65:]) {
			t.Fatalf("signed transaction %s (%v)", res.SignedTransaction, err)
		}
		if !ed25519.Verify(pub, unsigned[65:], signed[1:65]) {
			t.Fatal("the signature does not verify over the message")
		}

		var e *apierr.Error
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, UnsignedTransaction: hex.EncodeToString(solanaTransfer(pub, eve, 1)), Type: api.TransactionTypeSolana})
		if !errors.As(err, &e) || e.Status() != 403 || !strings.Contains(e.Message, "No policies evaluated to outcome: Allow") {
			t.Fatalf("transfer to eve: %v", err)
		}
		dry, err := agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", api.SignTransactionIntentV2{SignWith: address,
			UnsignedTransaction: hex.EncodeToString(solanaTransfer(pub, eve, 1)), Type: api.TransactionTypeSolana})
		if err != nil || dry.Decision != "DENY" || len(dry.PolicyEvaluations) != 1 || dry.PolicyEvaluations[0].Outcome != "OUTCOME_DENY_IMPLICIT" {
			t.Fatalf("dry run: %+v %v", dry, err)
		}
		dry, err = agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", api.SignTransactionIntentV2{SignWith: address,
			UnsignedTransaction: hex.EncodeToString(solanaTransfer(pub, bob, 2_000_000_000)), Type: api.TransactionTypeSolana})
		if err != nil || dry.Decision != "DENY" {
			t.Fatalf("dry run over the amount: %+v %v", dry, err)
		}

		ethAddress := s.ethWallet("eth")
		before := s.activityCount(org)
		for _, c := range []struct {
			name, signWith, tx, want string
			recorded                 bool // refused when prepared, after validation: recorded as FAILED
		}{
			{"not hex", address, "zz", "not hex", false},
			{"truncated", address, hex.EncodeToString(unsigned[:100]), "the transaction ends", false},
			{"another fee payer", address, hex.EncodeToString(solanaTransfer(eve, bob, 1)), "is not one of the transaction's 1 signers", true},
			{"a secp256k1 signer", ethAddress, hex.EncodeToString(unsigned), "needs a CURVE_ED25519 key", true},
		} {
			_, _, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: c.signWith, UnsignedTransaction: c.tx, Type: api.TransactionTypeSolana})
			if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, c.want) {
				t.Errorf("%s: %v", c.name, err)
			}
			if c.recorded {
				before++
			}
			if got := s.activityCount(org); got != before {
				t.Errorf("%s: %d activities recorded, want %d", c.name, got, before)
			}
		}
		_, _, err = s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, UnsignedTransaction: "00", Type: "TRANSACTION_TYPE_TEMPO"})
		if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, `"TRANSACTION_TYPE_TEMPO" is not supported`) {
			t.Errorf("tempo: %v", err)
		}
	})
}

// bitcoinPSBT builds a PSBT spending one P2WPKH output of pubA and one P2TR output of pubB (with their witness UTXOs
// and the transaction that made them), paying 150,000 satoshis to `to` and 40,000 back to pubA: a fee of 10,000.
func bitcoinPSBT(t *testing.T, pubA, pubB []byte, to string) []byte {
	return bitcoinPSBTWith(t, pubA, pubB, to, 150_000, 0)
}

// fundingTx is the transaction the test PSBTs spend from: six outputs of 100,000 satoshis, paying pubA's P2WPKH
// script at the even ones and pubB's P2TR script at the odd ones.
func fundingTx(pubA, pubB []byte) *wire.MsgTx {
	net := &chaincfg.TestNet3Params
	a, _ := keys.BitcoinAddress(keys.BitcoinFormat{Network: net, Script: keys.ScriptP2WPKH}, pubA)
	b, _ := keys.BitcoinAddress(keys.BitcoinFormat{Network: net, Script: keys.ScriptP2TR}, pubB)
	scriptA, _ := txscript.PayToAddrScript(a)
	scriptB, _ := txscript.PayToAddrScript(b)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.DoubleHashH([]byte("coinbase"))}, nil, nil))
	for i := range 6 {
		script := scriptA
		if i%2 == 1 {
			script = scriptB
		}
		tx.AddTxOut(wire.NewTxOut(100_000, script))
	}
	return tx
}

// bitcoinPSBTWith is bitcoinPSBT paying value to `to` and spending outputs vout (even) and vout+1 of the funding
// transaction.
func bitcoinPSBTWith(t *testing.T, pubA, pubB []byte, to string, value int64, vout uint32) []byte {
	t.Helper()
	funding := fundingTx(pubA, pubB)
	dest, err := btcutil.DecodeAddress(to, &chaincfg.TestNet3Params)
	if err != nil {
		t.Fatal(err)
	}
	scriptTo, _ := txscript.PayToAddrScript(dest)
	id := funding.TxHash()
	p, err := psbt.New([]*wire.OutPoint{{Hash: id, Index: vout}, {Hash: id, Index: vout + 1}},
		[]*wire.TxOut{wire.NewTxOut(value, scriptTo), wire.NewTxOut(40_000, funding.TxOut[0].PkScript)}, 2, 0, []uint32{wire.MaxTxInSequenceNum, wire.MaxTxInSequenceNum})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Inputs {
		p.Inputs[i].WitnessUtxo = funding.TxOut[int(vout)+i]
		p.Inputs[i].NonWitnessUtxo = funding // what binds the P2WPKH input's amount, which its signature does not commit to
	}
	var buf bytes.Buffer
	if err := p.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A non-root user signs a PSBT's P2WPKH input with one account and its P2TR input with another, as a bitcoin.tx
// policy allows; the signed transaction satisfies bitcoin's script interpreter. An output elsewhere is denied.
func TestBitcoinSigning(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "btc", Accounts: []api.WalletAccountParams{
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"},
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/86'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR"}}})
		if err != nil {
			t.Fatal(err)
		}
		list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		pubs := map[string][]byte{}
		for _, a := range list.Accounts {
			pubs[a.Address], _ = hex.DecodeString(a.PublicKey)
		}
		segwit, taproot := w.Addresses[0], w.Addresses[1]
		to := "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"
		s.policy("pay to", api.EffectAllow, "bitcoin.tx.outputs.all(o, o.address in ['"+to+"', '"+segwit+"']) && bitcoin.tx.fee <= 50000 && bitcoin.tx.inputs.count() == 2",
			"approvers.any(u, u.id == '"+agentID+"')")

		unsigned := bitcoinPSBT(t, pubs[segwit], pubs[taproot], to)
		res, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: segwit, UnsignedTransaction: hex.EncodeToString(unsigned), Type: api.TransactionTypeBitcoin})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: taproot, UnsignedTransaction: res.SignedTransaction, Type: api.TransactionTypeBitcoin})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := hex.DecodeString(res.SignedTransaction)
		p, err := psbt.NewFromRawBytes(bytes.NewReader(raw), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := psbt.MaybeFinalizeAll(p); err != nil {
			t.Fatalf("the signed PSBT does not finalize: %v", err)
		}
		tx, err := psbt.Extract(p)
		if err != nil {
			t.Fatal(err)
		}
		fetcher := txscript.NewMultiPrevOutFetcher(nil)
		for i, in := range tx.TxIn {
			fetcher.AddPrevOut(in.PreviousOutPoint, p.Inputs[i].WitnessUtxo)
		}
		for i := range tx.TxIn {
			spent := p.Inputs[i].WitnessUtxo
			vm, err := txscript.NewEngine(spent.PkScript, tx, i, txscript.StandardVerifyFlags, nil, txscript.NewTxSigHashes(tx, fetcher), spent.Value, fetcher)
			if err == nil {
				err = vm.Execute()
			}
			if err != nil {
				t.Errorf("input %d does not verify: %v", i, err)
			}
		}

		var e *apierr.Error
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: segwit,
			UnsignedTransaction: hex.EncodeToString(bitcoinPSBT(t, pubs[segwit], pubs[taproot], "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7")), Type: api.TransactionTypeBitcoin})
		if !errors.As(err, &e) || e.Status() != 403 {
			t.Fatalf("an output elsewhere: %v", err)
		}
		// A key none of whose inputs are in the PSBT, and a PSBT that does not parse, are refused.
		other, _, err := s.root.CreateWalletAccounts(bg, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: []api.WalletAccountParams{
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/1'/0'/0/1", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ signWith, tx, want string }{
			{other.Addresses[0], hex.EncodeToString(unsigned), "no input spends from " + other.Addresses[0]},
			{segwit, hex.EncodeToString(unsigned[:40]), "invalid PSBT"},
		} {
			_, _, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: c.signWith, UnsignedTransaction: c.tx, Type: api.TransactionTypeBitcoin})
			if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		}
	})
}

// tronTransfer encodes a Transaction.raw of one TransferContract (protobuf, by hand).
func tronTransfer(owner, to string, amount uint64) []byte {
	value := append(append(protoLen(1, tronAddr(owner)), protoLen(2, tronAddr(to))...), binary.AppendUvarint([]byte{3 << 3}, amount)...)
	return tronRaw(1, "TransferContract", value)
}

// tronRaw encodes a Transaction.raw of one contract of the given type number and name, with its parameter's value.
func tronRaw(typ uint64, name string, value []byte) []byte {
	any := append(protoLen(1, []byte("type.googleapis.com/protocol."+name)), protoLen(2, value)...)
	raw := append(protoLen(1, []byte{0xc3, 0xe8}), protoLen(4, []byte{1, 2, 3, 4, 5, 6, 7, 8})...)
	raw = append(raw, binary.AppendUvarint([]byte{8 << 3}, 1767229200000)...)
	raw = append(raw, protoLen(11, append(binary.AppendUvarint([]byte{1 << 3}, typ), protoLen(2, any)...))...)
	return append(raw, binary.AppendUvarint([]byte{14 << 3}, 1767225600000)...)
}

// protoLen encodes a length-delimited protobuf field.
func protoLen(num int, data []byte) []byte {
	return append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num)<<3|2), uint64(len(data))), data...)
}

// tronAddr is a base58 Tron address's 21 bytes.
func tronAddr(a string) []byte { b, _, _ := base58.CheckDecode(a); return append([]byte{0x41}, b...) }

// A non-root user signs a TRX transfer a tron.tx policy allows; the signature recovers to the account's key. A larger
// amount is denied; a transaction that does not parse is refused.
func TestTronSigning(t *testing.T) {
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
		s.policy("small TRX", api.EffectAllow, "tron.tx.contract[0].type == 'TransferContract' && tron.tx.contract[0].owner_address == '"+from+
			"' && tron.tx.contract[0].to_address == '"+to+"' && tron.tx.contract[0].amount < 10000000", "approvers.any(u, u.id == '"+agentID+"')")
		raw := tronTransfer(from, to, 1_000_000)
		res, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: hex.EncodeToString(raw), Type: api.TransactionTypeTron})
		if err != nil {
			t.Fatal(err)
		}
		signed, _ := hex.DecodeString(res.SignedTransaction)
		// Transaction {raw_data = 1, signature = 2}: 0x0a, the length, the raw data, 0x12, 65, the signature.
		n, k := binary.Uvarint(signed[1:])
		rest := signed[1+k:]
		if signed[0] != 0x0a || int(n) != len(raw) || !bytes.Equal(rest[:n], raw) || !bytes.Equal(rest[n:n+2], []byte{0x12, 65}) || len(rest) != int(n)+2+65 {
			t.Fatalf("signed transaction %x", signed)
		}
		sig := append([]byte{}, rest[n+2:]...)
		if sig[64] != 27 && sig[64] != 28 {
			t.Fatalf("v = %d, want 27 or 28", sig[64])
		}
		sig[64] -= 27
		id := sha256.Sum256(raw)
		pub, err := crypto.SigToPub(id[:], sig)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := keys.Address(keys.CurveSecp256k1, keys.AddressFormatTron, crypto.FromECDSAPub(pub)); got != from {
			t.Fatalf("the signature recovers to %s, not %s", got, from)
		}

		var e *apierr.Error
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: hex.EncodeToString(tronTransfer(from, to, 10_000_000)), Type: api.TransactionTypeTron})
		if !errors.As(err, &e) || e.Status() != 403 {
			t.Fatalf("10 TRX: %v", err)
		}
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, UnsignedTransaction: hex.EncodeToString(raw[:len(raw)-4]), Type: api.TransactionTypeTron})
		if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, "invalid Tron transaction") {
			t.Fatalf("truncated: %v", err)
		}
	})
}

// A raw payload signed with a P2TR account is a BIP-340 signature of its tweaked key (verifying against the address's
// output key), with a Spark account a plain BIP-340 signature, with any other secp256k1 account ECDSA; Ed25519 signs
// the message itself.
func TestRawPayloadSchemes(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "schemes", Accounts: []api.WalletAccountParams{
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/86'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR"},
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/86'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_SPARK_MAINNET"},
		{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/86'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"},
		{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/148'/0'", AddressFormat: "ADDRESS_FORMAT_XLM"}}})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
	pubs := map[string][]byte{}
	for _, a := range list.Accounts {
		pubs[a.Address], _ = hex.DecodeString(a.PublicKey)
	}
	message := []byte("sigil signs this")
	digest := sha256.Sum256(message)
	sign := func(signWith, hash string) []byte {
		r, _, err := s.root.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: signWith, Payload: hex.EncodeToString(message),
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: hash})
		if err != nil {
			t.Fatal(err)
		}
		sig, _ := hex.DecodeString(r.R + r.S + r.V)
		return sig
	}
	taproot, spark, segwit, stellar := w.Addresses[0], w.Addresses[1], w.Addresses[2], w.Addresses[3]
	output, _ := keys.TaprootOutputKey(pubs[taproot])
	for _, c := range []struct {
		signWith string
		key      []byte
	}{{taproot, output}, {spark, pubs[spark][1:]}} {
		sig := sign(c.signWith, "HASH_FUNCTION_SHA256")
		parsed, err := schnorr.ParseSignature(sig[:64])
		key, _ := schnorr.ParsePubKey(c.key)
		if err != nil || sig[64] != 0 || !parsed.Verify(digest[:], key) {
			t.Errorf("%s: not a BIP-340 signature of its key (%v)", c.signWith, err)
		}
	}
	sig := sign(segwit, "HASH_FUNCTION_SHA256")
	if pub, err := crypto.SigToPub(digest[:], sig); err != nil || !bytes.Equal(crypto.CompressPubkey(pub), pubs[segwit]) {
		t.Errorf("P2WPKH: not a recoverable ECDSA signature of its key (%v)", err)
	}
	if sig := sign(stellar, "HASH_FUNCTION_NOT_APPLICABLE"); !ed25519.Verify(pubs[stellar], message, sig[:64]) {
		t.Error("XLM: not an Ed25519 signature of the message")
	}
}
