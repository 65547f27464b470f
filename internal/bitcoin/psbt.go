// Package bitcoin parses Partially Signed Bitcoin Transactions (BIP-174) for the signing activities, builds what the
// policy engine reads of them (bitcoin.tx), and signs the inputs that spend from one key. It is pure: no network, no
// database. Parsing and sighashes come from btcd (btcutil/psbt, txscript).
//
// What is signed, as the reference describes it: SIGN_TRANSACTION_V2 with TRANSACTION_TYPE_BITCOIN takes a PSBT as
// hex; the inputs whose spent output pays to the signing key are signed — P2PKH, P2WPKH, P2SH-P2WPKH (with its redeem
// script), P2WSH (with a witness script naming the key) with ECDSA and SIGHASH_ALL, each signature added to the
// input's partial signatures under the key; P2TR key-path inputs (BIP-86 output key) with a Schnorr signature of the
// tweaked key and SIGHASH_DEFAULT, added as the input's taproot key-spend signature — and the PSBT is returned as hex
// for the caller to finalize.
package bitcoin

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("invalid PSBT")

// MaxPSBTSize bounds what is parsed: far above any standard transaction's PSBT.
const MaxPSBTSize = 512 << 10

// PSBT is a parsed PSBT and the outputs its inputs spend, where the PSBT gives them.
type PSBT struct {
	Packet *psbt.Packet
	// Spent is the output each input spends (from its witness UTXO or its previous transaction), nil where the PSBT
	// gives neither. Proven is whether it comes from the previous transaction itself, which the outpoint's hash
	// commits to: a witness UTXO alone is the PSBT's word.
	Spent  []*wire.TxOut
	Proven []bool
}

// Parse parses a serialized PSBT and checks it: a version 0 PSBT whose unsigned transaction has inputs and outputs,
// whose previous transactions match the outpoints they are given for, whose witness UTXOs agree with them and state
// their scripts' lengths truly, and no bytes after it.
func Parse(b []byte) (p *PSBT, err error) {
	if len(b) > MaxPSBTSize {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrInvalid, len(b), MaxPSBTSize)
	}
	defer func() {
		if r := recover(); r != nil { // the PSBT decoder is third-party code: never let input crash the server
			p, err = nil, fmt.Errorf("%w: malformed PSBT", ErrInvalid)
		}
	}()
	r := bytes.NewReader(b)
	packet, err := psbt.NewFromRawBytes(r, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%w: %d bytes follow the PSBT", ErrInvalid, r.Len())
	}
	if err := checkWitnessUTXOs(b, len(packet.Inputs)); err != nil {
		return nil, err
	}
	tx := packet.UnsignedTx
	if len(tx.TxIn) == 0 || len(tx.TxOut) == 0 {
		return nil, fmt.Errorf("%w: the transaction has %d inputs and %d outputs; it needs at least one of each", ErrInvalid, len(tx.TxIn), len(tx.TxOut))
	}
	if len(packet.Inputs) != len(tx.TxIn) || len(packet.Outputs) != len(tx.TxOut) {
		return nil, fmt.Errorf("%w: the PSBT's input and output maps do not match its transaction", ErrInvalid)
	}
	p = &PSBT{Packet: packet, Spent: make([]*wire.TxOut, len(tx.TxIn)), Proven: make([]bool, len(tx.TxIn))}
	for i, in := range packet.Inputs {
		prev := tx.TxIn[i].PreviousOutPoint
		if in.NonWitnessUtxo != nil {
			if h := in.NonWitnessUtxo.TxHash(); h != prev.Hash {
				return nil, fmt.Errorf("%w: input %d's previous transaction is %s, not the %s it spends", ErrInvalid, i, h, prev.Hash)
			}
			if int(prev.Index) >= len(in.NonWitnessUtxo.TxOut) {
				return nil, fmt.Errorf("%w: input %d spends output %d of a transaction of %d outputs", ErrInvalid, i, prev.Index, len(in.NonWitnessUtxo.TxOut))
			}
			p.Spent[i], p.Proven[i] = in.NonWitnessUtxo.TxOut[prev.Index], true
		}
		if w := in.WitnessUtxo; w != nil {
			if s := p.Spent[i]; s != nil && (s.Value != w.Value || !bytes.Equal(s.PkScript, w.PkScript)) {
				return nil, fmt.Errorf("%w: input %d's witness UTXO differs from the output of its previous transaction", ErrInvalid, i)
			}
			p.Spent[i] = w
		}
		if s := p.Spent[i]; s != nil && (s.Value < 0 || s.Value > maxSatoshis) {
			return nil, fmt.Errorf("%w: input %d spends %d satoshis", ErrInvalid, i, s.Value)
		}
	}
	var out int64
	for i, o := range tx.TxOut {
		if o.Value < 0 || o.Value > maxSatoshis {
			return nil, fmt.Errorf("%w: output %d pays %d satoshis", ErrInvalid, i, o.Value)
		}
		out += o.Value
	}
	if out > maxSatoshis {
		return nil, fmt.Errorf("%w: the outputs pay more than 21 million bitcoin", ErrInvalid)
	}
	if fee, ok := p.Fee(); ok && fee < 0 {
		return nil, fmt.Errorf("%w: the outputs pay %d satoshis more than the inputs spend", ErrInvalid, -fee)
	}
	return p, nil
}

const maxSatoshis = 21_000_000 * 100_000_000

// checkWitnessUTXOs checks what btcd's decoder does not: the length prefix of the script in each input's witness UTXO
// (an amount, then the script with its length). btcd takes the script to be whatever follows the amount and a one-byte
// prefix, whatever the prefix says. A prefix that disagrees with the bytes, or the three-byte prefix of a script of 253
// bytes or more, would have Sigil read, show and sign for another script than the one the PSBT states, and than other
// wallets read (and the PSBT it returns would differ from the one it was given). No output a witness UTXO describes
// has a script that long: a witness program's is at most 42 bytes. b is a PSBT btcd has parsed, with that many inputs.
func checkWitnessUTXOs(b []byte, inputs int) error {
	r := bytes.NewReader(b[len(psbtMagic):])
	for m := 0; m <= inputs; m++ { // the global map, then each input's
		for {
			key, value, err := readPair(r)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			if key == nil {
				break // the map's separator
			}
			if m == 0 || len(key) != 1 || key[0] != byte(psbt.WitnessUtxoType) {
				continue
			}
			if err := checkWitnessUTXO(value); err != nil {
				return fmt.Errorf("%w: input %d's witness UTXO: %v", ErrInvalid, m-1, err)
			}
		}
	}
	return nil
}

// checkWitnessUTXO checks a witness UTXO's value: an amount, then a script that its length prefix covers exactly.
func checkWitnessUTXO(value []byte) error {
	if len(value) < 8 {
		return errors.New("shorter than an amount")
	}
	script := bytes.NewReader(value[8:])
	n, err := wire.ReadVarInt(script, 0)
	if err != nil || n != uint64(script.Len()) {
		return errors.New("the script's length prefix does not match the script")
	}
	if n >= 0xfd {
		return fmt.Errorf("a script of %d bytes, longer than any output's a witness UTXO describes", n)
	}
	return nil
}

// psbtMagic begins every PSBT (BIP-174).
const psbtMagic = "psbt\xff"

// readPair reads a key and its value from a PSBT map; a nil key is the map's separator.
func readPair(r *bytes.Reader) (key, value []byte, err error) {
	if key, err = wire.ReadVarBytes(r, 0, uint32(r.Len()), "key"); err != nil || len(key) == 0 {
		return nil, nil, err
	}
	value, err = wire.ReadVarBytes(r, 0, uint32(r.Len()), "value")
	return key, value, err
}

// Fee is the inputs' value less the outputs', when the PSBT gives every input's spent output.
func (p *PSBT) Fee() (int64, bool) {
	var in, out int64
	for _, s := range p.Spent {
		if s == nil {
			return 0, false
		}
		in += s.Value
	}
	for _, o := range p.Packet.UnsignedTx.TxOut {
		out += o.Value
	}
	return in - out, true
}

// KnownFee is the fee, when the spent amounts it is reckoned from are bound to what the signer signs (its inputs,
// signs): every input's spent output is proven by its previous transaction, or the signer signs a taproot input,
// whose signature commits to every input's amount (a PSBT that misstates one voids it). A segwit v0 signature commits
// to its own input's amount only: two PSBTs of the same transaction, each stating another input's amount low, would
// each show a small fee, and their signatures together spend the true amounts. Without either, the fee is unknown.
func (p *PSBT) KnownFee(signs []Signing) (int64, bool) {
	bound := slices.ContainsFunc(signs, func(s Signing) bool { return s.Spend == SpendP2TR }) || !slices.Contains(p.Proven, false)
	if !bound {
		return 0, false
	}
	return p.Fee()
}

// Serialize writes the PSBT.
func (p *PSBT) Serialize() ([]byte, error) {
	var b bytes.Buffer
	if err := p.Packet.Serialize(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// prevOuts is the fetcher of the outputs the inputs spend, for sighashes.
func (p *PSBT) prevOuts() *txscript.MultiPrevOutFetcher {
	f := txscript.NewMultiPrevOutFetcher(nil)
	for i, in := range p.Packet.UnsignedTx.TxIn {
		if s := p.Spent[i]; s != nil {
			f.AddPrevOut(in.PreviousOutPoint, s)
		}
	}
	return f
}

// TxID is an outpoint's transaction id as written (byte-reversed hex).
func TxID(h chainhash.Hash) string { return h.String() }
