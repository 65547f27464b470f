package bitcoin

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/txscript"
)

// Spend is how an input spends from the signing key.
type Spend string

// The kinds of inputs the signer signs.
const (
	SpendP2PKH      Spend = "P2PKH"
	SpendP2WPKH     Spend = "P2WPKH"
	SpendP2SHP2WPKH Spend = "P2SH-P2WPKH"
	SpendP2WSH      Spend = "P2WSH"
	SpendP2SHP2WSH  Spend = "P2SH-P2WSH"
	SpendP2SH       Spend = "P2SH" // a legacy redeem script naming the key (a multisig, say)
	SpendP2TR       Spend = "P2TR"
)

// Signing is one input the key signs.
type Signing struct {
	Index int
	Spend Spend
}

// ErrNothingToSign is returned when no input spends from the key.
var ErrNothingToSign = errors.New("no input of the PSBT spends from the signing key")

// Inputs finds the inputs that spend from the key (a compressed secp256k1 public key): those whose spent output pays
// to its P2PKH, P2WPKH or BIP-86 P2TR script, or to a P2SH or P2WSH script whose redeem or witness script the PSBT
// gives and that is the key's P2WPKH script or names the key (P2SH-P2WSH: a redeem script that is the P2WSH program of
// such a witness script). Finalized inputs are left alone, and so, as Bitcoin Core leaves them, are inputs that hold a
// partial signature by the key already. An input of the key that cannot be signed as the reference signs it (another
// sighash type, a taproot input when another input's spent output is missing, a legacy input whose previous
// transaction the PSBT does not give, a redeem or witness script that does not hash to what the input spends) is an
// error, so that nothing is signed halfway.
func (p *PSBT) Inputs(pub []byte) ([]Signing, error) {
	if len(pub) != 33 {
		return nil, fmt.Errorf("the signing key must be a compressed secp256k1 key")
	}
	hash := btcutil.Hash160(pub)
	p2pkh := append(append([]byte{txscript.OP_DUP, txscript.OP_HASH160, 20}, hash...), txscript.OP_EQUALVERIFY, txscript.OP_CHECKSIG)
	p2wpkh := append([]byte{txscript.OP_0, 20}, hash...)
	trKey, err := taprootKey(pub)
	if err != nil {
		return nil, err
	}
	p2tr := append([]byte{txscript.OP_1, 32}, trKey...)
	var out []Signing
	allSpent := true
	for _, s := range p.Spent {
		allSpent = allSpent && s != nil
	}
	for i, in := range p.Packet.Inputs {
		if len(in.FinalScriptSig) > 0 || len(in.FinalScriptWitness) > 0 {
			continue
		}
		spent := p.Spent[i]
		if spent == nil || hasPartialSig(&in, pub) {
			continue // nothing says what it spends (not the key's), or the key has signed it
		}
		kind, err := spendOf(i, spent.PkScript, &in, pub, p2pkh, p2wpkh, p2tr)
		if err != nil {
			return nil, err
		}
		switch {
		case kind == "":
			continue
		case (kind == SpendP2PKH || kind == SpendP2SH) && in.NonWitnessUtxo == nil:
			return nil, fmt.Errorf("input %d spends a %s output, which is signed only with its previous transaction (the PSBT gives just its witness UTXO, whose amount a legacy signature does not commit to)", i, kind)
		case kind == SpendP2TR && in.SighashType != 0 && in.SighashType != txscript.SigHashDefault:
			return nil, fmt.Errorf("input %d asks for sighash type %#x; taproot inputs are signed with SIGHASH_DEFAULT", i, uint32(in.SighashType))
		case kind != SpendP2TR && in.SighashType != 0 && in.SighashType != txscript.SigHashAll:
			return nil, fmt.Errorf("input %d asks for sighash type %#x; it is signed with SIGHASH_ALL", i, uint32(in.SighashType))
		case kind == SpendP2TR && !allSpent:
			return nil, fmt.Errorf("input %d is a taproot input: its signature commits to every input's spent output, and the PSBT lacks some (give each input's witness UTXO)", i)
		}
		out = append(out, Signing{Index: i, Spend: kind})
	}
	if len(out) == 0 {
		return nil, ErrNothingToSign
	}
	return out, nil
}

// spendOf is how input i, spending script, spends from the key: "" when it does not.
func spendOf(i int, script []byte, in *psbt.PInput, pub, p2pkh, p2wpkh, p2tr []byte) (Spend, error) {
	switch {
	case bytes.Equal(script, p2pkh):
		return SpendP2PKH, nil
	case bytes.Equal(script, p2wpkh):
		return SpendP2WPKH, nil
	case bytes.Equal(script, p2tr):
		return SpendP2TR, nil
	case txscript.IsPayToWitnessScriptHash(script):
		if len(in.WitnessScript) == 0 || !namesKey(in.WitnessScript, pub) {
			return "", nil
		}
		if !witnessScriptIs(in.WitnessScript, script[2:]) {
			return "", fmt.Errorf("input %d's witness script does not hash to the script it spends", i)
		}
		return SpendP2WSH, nil
	case !txscript.IsPayToScriptHash(script) || len(in.RedeemScript) == 0:
		return "", nil
	}
	redeem := in.RedeemScript
	var kind Spend
	switch {
	case bytes.Equal(redeem, p2wpkh):
		kind = SpendP2SHP2WPKH
	case txscript.IsPayToWitnessScriptHash(redeem) && len(in.WitnessScript) > 0 && namesKey(in.WitnessScript, pub):
		if !witnessScriptIs(in.WitnessScript, redeem[2:]) {
			return "", fmt.Errorf("input %d's witness script does not hash to its redeem script's program", i)
		}
		kind = SpendP2SHP2WSH
	case !txscript.IsWitnessProgram(redeem) && namesKey(redeem, pub):
		kind = SpendP2SH
	default:
		return "", nil
	}
	if !bytes.Equal(btcutil.Hash160(redeem), script[2:22]) {
		return "", fmt.Errorf("input %d's redeem script does not hash to the script it spends", i)
	}
	return kind, nil
}

func witnessScriptIs(witnessScript, program []byte) bool {
	h := sha256.Sum256(witnessScript)
	return bytes.Equal(h[:], program)
}

// hasPartialSig reports whether the input holds a partial signature by the key.
func hasPartialSig(in *psbt.PInput, pub []byte) bool {
	for _, ps := range in.PartialSigs {
		if bytes.Equal(ps.PubKey, pub) {
			return true
		}
	}
	return false
}

// namesKey reports whether script pushes the key.
func namesKey(script, pub []byte) bool {
	t := txscript.MakeScriptTokenizer(0, script)
	for t.Next() {
		if bytes.Equal(t.Data(), pub) {
			return true
		}
	}
	return false
}

func taprootKey(pub []byte) ([]byte, error) {
	k, err := btcec.ParsePubKey(pub)
	if err != nil {
		return nil, fmt.Errorf("invalid secp256k1 public key: %w", err)
	}
	return schnorr.SerializePubKey(txscript.ComputeTaprootKeyNoScript(k)), nil
}

// Sign signs the given inputs with a 32-byte secp256k1 private key and adds the signatures to the PSBT: an ECDSA
// signature (DER, low S, SIGHASH_ALL) to the input's partial signatures, or the tweaked key's Schnorr signature
// (SIGHASH_DEFAULT) as its taproot key-spend signature.
func (p *PSBT) Sign(privateKey []byte, inputs []Signing) error {
	priv, pub := btcec.PrivKeyFromBytes(privateKey)
	defer priv.Zero()
	compressed := pub.SerializeCompressed()
	tx := p.Packet.UnsignedTx
	fetcher := p.prevOuts()
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for _, s := range inputs {
		in := &p.Packet.Inputs[s.Index]
		spent := p.Spent[s.Index]
		switch s.Spend {
		case SpendP2TR:
			sig, err := txscript.RawTxInTaprootSignature(tx, hashes, s.Index, spent.Value, spent.PkScript, nil, txscript.SigHashDefault, priv)
			if err != nil {
				return fmt.Errorf("input %d: %w", s.Index, err)
			}
			in.TaprootKeySpendSig = sig
			continue
		case SpendP2PKH, SpendP2SH:
			script := spent.PkScript
			if s.Spend == SpendP2SH {
				script = in.RedeemScript
			}
			h, err := txscript.CalcSignatureHash(script, txscript.SigHashAll, tx, s.Index)
			if err != nil {
				return fmt.Errorf("input %d: %w", s.Index, err)
			}
			addPartialSig(in, compressed, ecdsa.Sign(priv, h))
			continue
		}
		script := in.WitnessScript // P2WSH, bare or nested
		if s.Spend != SpendP2WSH && s.Spend != SpendP2SHP2WSH {
			script = append([]byte{txscript.OP_0, 20}, btcutil.Hash160(compressed)...) // P2WPKH, bare or nested
		}
		h, err := txscript.CalcWitnessSigHash(script, hashes, txscript.SigHashAll, tx, s.Index, spent.Value)
		if err != nil {
			return fmt.Errorf("input %d: %w", s.Index, err)
		}
		addPartialSig(in, compressed, ecdsa.Sign(priv, h))
	}
	return nil
}

// addPartialSig sets the key's partial signature (DER and the SIGHASH_ALL byte), replacing one already there.
func addPartialSig(in *psbt.PInput, pub []byte, sig *ecdsa.Signature) {
	ps := &psbt.PartialSig{PubKey: pub, Signature: append(sig.Serialize(), byte(txscript.SigHashAll))}
	for i, old := range in.PartialSigs {
		if bytes.Equal(old.PubKey, pub) {
			in.PartialSigs[i] = ps
			return
		}
	}
	in.PartialSigs = append(in.PartialSigs, ps)
}
