package bitcoin

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// testKey is the signing key of the tests; otherKey owns the input that is not the signer's.
func testKey(seed string) (priv []byte, pub []byte) {
	h := sha256.Sum256([]byte(seed))
	_, p := btcec.PrivKeyFromBytes(h[:])
	return h[:], p.SerializeCompressed()
}

func p2wpkhScript(pub []byte) []byte {
	return append([]byte{txscript.OP_0, 20}, btcutil.Hash160(pub)...)
}

// spends are the outputs of the previous transaction, in order: one of each kind the key signs, then another key's.
type fixtureTx struct {
	prev   *wire.MsgTx
	packet *psbt.Packet
	kinds  []Spend // the kind of each input; "" for the other key's
	ws     []byte  // the P2WSH witness script
}

func buildPSBT(t testing.TB, pub, other []byte, lockTime uint32) *fixtureTx {
	t.Helper()
	trKey, err := taprootKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	ws := append(append([]byte{33}, pub...), txscript.OP_CHECKSIG)
	wsHash := sha256.Sum256(ws)
	scripts := [][]byte{
		append(append([]byte{txscript.OP_DUP, txscript.OP_HASH160, 20}, btcutil.Hash160(pub)...), txscript.OP_EQUALVERIFY, txscript.OP_CHECKSIG),
		p2wpkhScript(pub),
		append(append([]byte{txscript.OP_HASH160, 20}, btcutil.Hash160(p2wpkhScript(pub))...), txscript.OP_EQUAL),
		append([]byte{txscript.OP_0, 32}, wsHash[:]...),
		append([]byte{txscript.OP_1, 32}, trKey...),
		p2wpkhScript(other),
	}
	kinds := []Spend{SpendP2PKH, SpendP2WPKH, SpendP2SHP2WPKH, SpendP2WSH, SpendP2TR, ""}
	prev := wire.NewMsgTx(2)
	prev.AddTxIn(wire.NewTxIn(&wire.OutPoint{Index: 7}, nil, nil))
	for i, s := range scripts {
		prev.AddTxOut(wire.NewTxOut(int64(100_000*(i+1)), s))
	}
	var outpoints []*wire.OutPoint
	var sequences []uint32
	for i := range scripts {
		h := prev.TxHash()
		outpoints = append(outpoints, wire.NewOutPoint(&h, uint32(i)))
		sequences = append(sequences, wire.MaxTxInSequenceNum-2)
	}
	dest, _ := btcutil.DecodeAddress("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", &chaincfg.MainNetParams)
	destScript, _ := txscript.PayToAddrScript(dest)
	outs := []*wire.TxOut{wire.NewTxOut(1_500_000, destScript), wire.NewTxOut(500_000, p2wpkhScript(pub))}
	packet, err := psbt.New(outpoints, outs, 2, lockTime, sequences)
	if err != nil {
		t.Fatal(err)
	}
	for i := range scripts {
		in := &packet.Inputs[i]
		if i == 0 {
			in.NonWitnessUtxo = prev
		} else {
			in.WitnessUtxo = prev.TxOut[i]
		}
	}
	packet.Inputs[2].RedeemScript = p2wpkhScript(pub)
	packet.Inputs[3].WitnessScript = ws
	return &fixtureTx{prev: prev, packet: packet, kinds: kinds, ws: ws}
}

func serialize(t testing.TB, p *psbt.Packet) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Serialize(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every kind of input the key spends is found and signed, and the signatures satisfy bitcoin's script interpreter
// once each input is finalized; the other key's input is left alone.
func TestSignEveryInputKind(t *testing.T) {
	priv, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	fx := buildPSBT(t, pub, other, 0)
	p, err := Parse(serialize(t, fx.packet))
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := p.Inputs(pub)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 5 {
		t.Fatalf("inputs %+v, want the key's five", inputs)
	}
	for _, s := range inputs {
		if s.Spend != fx.kinds[s.Index] {
			t.Errorf("input %d is %s, want %s", s.Index, s.Spend, fx.kinds[s.Index])
		}
	}
	if err := p.Sign(priv, inputs); err != nil {
		t.Fatal(err)
	}
	raw, err := p.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	signed, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Finalize the key's inputs by hand and run the interpreter on each.
	tx := signed.Packet.UnsignedTx.Copy()
	for _, s := range inputs {
		in := signed.Packet.Inputs[s.Index]
		var sig []byte
		if s.Spend != SpendP2TR {
			if len(in.PartialSigs) != 1 || !bytes.Equal(in.PartialSigs[0].PubKey, pub) {
				t.Fatalf("input %d: partial signatures %+v", s.Index, in.PartialSigs)
			}
			sig = in.PartialSigs[0].Signature
			if sig[len(sig)-1] != byte(txscript.SigHashAll) {
				t.Fatalf("input %d: signature does not end in SIGHASH_ALL", s.Index)
			}
		}
		switch s.Spend {
		case SpendP2PKH:
			tx.TxIn[s.Index].SignatureScript, _ = txscript.NewScriptBuilder().AddData(sig).AddData(pub).Script()
		case SpendP2WPKH:
			tx.TxIn[s.Index].Witness = wire.TxWitness{sig, pub}
		case SpendP2SHP2WPKH:
			tx.TxIn[s.Index].SignatureScript, _ = txscript.NewScriptBuilder().AddData(p2wpkhScript(pub)).Script()
			tx.TxIn[s.Index].Witness = wire.TxWitness{sig, pub}
		case SpendP2WSH:
			tx.TxIn[s.Index].Witness = wire.TxWitness{sig, fx.ws}
		case SpendP2TR:
			if len(in.TaprootKeySpendSig) != 64 {
				t.Fatalf("input %d: taproot signature of %d bytes, want 64 (SIGHASH_DEFAULT)", s.Index, len(in.TaprootKeySpendSig))
			}
			tx.TxIn[s.Index].Witness = wire.TxWitness{in.TaprootKeySpendSig}
		}
	}
	fetcher := signed.prevOuts()
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for _, s := range inputs {
		spent := signed.Spent[s.Index]
		vm, err := txscript.NewEngine(spent.PkScript, tx, s.Index, txscript.StandardVerifyFlags, nil, hashes, spent.Value, fetcher)
		if err != nil {
			t.Fatal(err)
		}
		if err := vm.Execute(); err != nil {
			t.Errorf("input %d (%s) does not verify: %v", s.Index, s.Spend, err)
		}
	}
	if len(signed.Packet.Inputs[5].PartialSigs) != 0 {
		t.Error("the other key's input was signed")
	}
}

func TestView(t *testing.T) {
	_, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	for _, c := range []struct {
		lockTime uint32
		kind     string
	}{{0, "Blocks"}, {840_000, "Blocks"}, {1_700_000_000, "Seconds"}} {
		fx := buildPSBT(t, pub, other, c.lockTime)
		p, err := Parse(serialize(t, fx.packet))
		if err != nil {
			t.Fatal(err)
		}
		signs, err := p.Inputs(pub)
		if err != nil {
			t.Fatal(err)
		}
		v := p.View(&chaincfg.MainNetParams, signs)
		if v.Version != "2" || v.Locktime.Amount != uint64(c.lockTime) || v.Locktime.Type != c.kind {
			t.Errorf("version %s locktime %+v", v.Version, v.Locktime)
		}
		if v.Fee == nil || *v.Fee != 2_100_000-2_000_000 {
			t.Errorf("fee %v, want 100000", v.Fee)
		}
		if len(v.Inputs) != 6 || v.Inputs[3].TxID != fx.prev.TxHash().String() || v.Inputs[3].Vout != 3 || v.Inputs[3].Sequence != wire.MaxTxInSequenceNum-2 {
			t.Errorf("inputs %+v", v.Inputs)
		}
		change, _ := btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(pub), &chaincfg.MainNetParams)
		want := []Output{
			{1_500_000, "0014751e76e8199196d454941c45d1b3a323f1433bd6", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "P2WPKH"},
			{500_000, hex.EncodeToString(p2wpkhScript(pub)), change.EncodeAddress(), "P2WPKH"},
		}
		for i := range want {
			if v.Outputs[i] != want[i] {
				t.Errorf("output %d: %+v, want %+v", i, v.Outputs[i], want[i])
			}
		}
		if testnet := p.View(&chaincfg.TestNet3Params, signs); !strings.HasPrefix(testnet.Outputs[0].Address, "tb1q") {
			t.Errorf("testnet address %s", testnet.Outputs[0].Address)
		}
	}
	for script, kind := range map[string]string{
		"6a0568656c6c6f":                         "NULL_DATA",
		"5120" + strings.Repeat("00", 32):        "P2TR",
		"51":                                     "NONSTANDARD",
		"a914" + strings.Repeat("11", 20) + "87": "P2SH",
		"76a914" + strings.Repeat("11", 20) + "88ac": "P2PKH",
		"0020" + strings.Repeat("22", 32):            "P2WSH",
	} {
		b, _ := hex.DecodeString(script)
		if _, got := OutputAddress(b, &chaincfg.MainNetParams); got != kind {
			t.Errorf("%s: %s, want %s", script, got, kind)
		}
	}
}

func TestParseAndSignErrors(t *testing.T) {
	_, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	good := func() *fixtureTx { return buildPSBT(t, pub, other, 0) }
	raw := serialize(t, good().packet)
	tests := []struct {
		name string
		psbt []byte
		want string
	}{
		{"empty", nil, "EOF"},
		{"bad magic", append([]byte("psbu\xff"), raw[5:]...), "magic"},
		{"trailing bytes", append(append([]byte{}, raw...), 0), "1 bytes follow the PSBT"},
		{"witness UTXO disagrees", func() []byte {
			fx := good()
			fx.packet.Inputs[0].WitnessUtxo = wire.NewTxOut(1, fx.prev.TxOut[0].PkScript)
			return serialize(t, fx.packet)
		}(), "witness UTXO differs"},
		{"witness UTXO script of 253 bytes", func() []byte {
			fx := good()
			fx.packet.Inputs[0].WitnessUtxo = wire.NewTxOut(1, bytes.Repeat([]byte{txscript.OP_NOP}, 253))
			return serialize(t, fx.packet)
		}(), "a script of 253 bytes"},
		{"witness UTXO script prefix disagrees", func() []byte {
			fx := good()
			script := bytes.Repeat([]byte{txscript.OP_NOP}, 10)
			fx.packet.Inputs[0].WitnessUtxo = wire.NewTxOut(1, script)
			b := serialize(t, fx.packet)
			utxo := append(binary.LittleEndian.AppendUint64(nil, 1), append([]byte{10}, script...)...)
			i := bytes.Index(b, utxo)
			if i < 0 {
				t.Fatal("the witness UTXO is not in the serialized PSBT")
			}
			b[i+8] = 9 // the script is said to be 9 bytes; btcd would read 10
			return b
		}(), "length prefix does not match"},
		{"previous transaction of another outpoint", func() []byte {
			fx := good()
			another := fx.prev.Copy()
			another.LockTime = 1
			fx.packet.Inputs[1].NonWitnessUtxo = another
			return serialize(t, fx.packet)
		}(), "previous transaction is"},
		{"outputs above inputs", func() []byte {
			fx := good()
			fx.packet.UnsignedTx.TxOut[0].Value = 5_000_000
			return serialize(t, fx.packet)
		}(), "satoshis more than the inputs spend"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.psbt)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an ErrInvalid containing %q", tt.name, err, tt.want)
		}
	}

	signErrors := []struct {
		name string
		edit func(fx *fixtureTx)
		want string
	}{
		{"sighash none", func(fx *fixtureTx) { fx.packet.Inputs[1].SighashType = txscript.SigHashNone }, "it is signed with SIGHASH_ALL"},
		{"taproot sighash all|anyonecanpay", func(fx *fixtureTx) {
			fx.packet.Inputs[4].SighashType = txscript.SigHashAll | txscript.SigHashAnyOneCanPay
		}, "SIGHASH_DEFAULT"},
		{"taproot without every spent output", func(fx *fixtureTx) { fx.packet.Inputs[5].WitnessUtxo = nil }, "commits to every input's spent output"},
		{"another key's inputs only", func(fx *fixtureTx) {
			for i := range 5 {
				fx.packet.Inputs[i].WitnessUtxo, fx.packet.Inputs[i].NonWitnessUtxo = nil, nil
			}
		}, "no input of the PSBT spends from the signing key"},
	}
	for _, tt := range signErrors {
		fx := good()
		tt.edit(fx)
		p, err := Parse(serialize(t, fx.packet))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := p.Inputs(pub); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// FuzzParse: any input is refused with ErrInvalid or parses into a PSBT that serializes into one that parses the
// same, whose view and signing inputs can be computed without a panic.
func FuzzParse(f *testing.F) {
	_, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	f.Add(serialize(f, buildPSBT(f, pub, other, 0).packet))
	f.Add(serialize(f, buildPSBT(f, other, pub, 1_700_000_000).packet))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		raw, err := p.Serialize()
		if err != nil {
			return // btcd refuses to write some values it read (oversized keys); nothing is signed then
		}
		again, err := Parse(raw)
		if err != nil {
			t.Fatalf("a serialized PSBT does not parse: %v", err)
		}
		if raw2, _ := again.Serialize(); !bytes.Equal(raw, raw2) {
			t.Fatal("serialization is not stable")
		}
		_ = p.View(&chaincfg.MainNetParams, nil)
		_, _ = p.Inputs(pub)
	})
}

// The fee of a PSBT is known to a signer only when the amounts it is reckoned from bind its signatures: with segwit
// v0 inputs given by their witness UTXOs alone (whose amounts a segwit v0 signature does not commit to, but for its
// own input), it is unknown, whatever the PSBT states; with their previous transactions, or when the signer signs a
// taproot input, it is known.
func TestFeeKnownOnlyWhenAmountsAreBound(t *testing.T) {
	_, pub := testKey("sigil bitcoin signer")
	_, other := testKey("someone else")
	fx := buildPSBT(t, pub, other, 0)
	p, err := Parse(serialize(t, fx.packet))
	if err != nil {
		t.Fatal(err)
	}
	segwitOnly := []Signing{{Index: 1, Spend: SpendP2WPKH}, {Index: 2, Spend: SpendP2SHP2WPKH}}
	if v := p.View(&chaincfg.MainNetParams, segwitOnly); v.Fee != nil {
		t.Errorf("a segwit v0 signer of a PSBT with witness UTXOs alone knows its fee: %d", *v.Fee)
	}
	if v := p.View(&chaincfg.MainNetParams, append(segwitOnly, Signing{Index: 4, Spend: SpendP2TR})); v.Fee == nil {
		t.Error("a signer of a taproot input does not know the fee")
	}
	for i := range fx.packet.Inputs {
		fx.packet.Inputs[i].NonWitnessUtxo = fx.prev
	}
	if p, err = Parse(serialize(t, fx.packet)); err != nil {
		t.Fatal(err)
	}
	if v := p.View(&chaincfg.MainNetParams, segwitOnly); v.Fee == nil || *v.Fee != 100_000 {
		t.Errorf("with every previous transaction, the fee is %v, want 100000", v.Fee)
	}
}
