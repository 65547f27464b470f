// Package bitcoin parses Partially Signed Bitcoin Transactions (BIP-174) for the signing activities, builds what the
// policy engine reads of them (bitcoin.tx), and signs the inputs that spend from one key. It is pure: no network, no
// database. Parsing and sighashes come from btcd (btcutil/psbt, txscript).
//
// What is signed, as the reference describes it: SIGN_TRANSACTION_V2 with TRANSACTION_TYPE_BITCOIN takes a PSBT as
// hex; the inputs whose spent output pays to the signing key are signed — P2PKH, P2WPKH, P2SH-P2WPKH (with its redeem
// script), P2WSH and P2SH-P2WSH (with a witness script naming the key), P2SH (a legacy redeem script naming the key)
// with ECDSA and SIGHASH_ALL, each signature added to the input's partial signatures under the key; P2TR key-path
// inputs (BIP-86 output key) with a Schnorr signature of the tweaked key and SIGHASH_DEFAULT, added as the input's
// taproot key-spend signature — and the PSBT is returned as hex for the caller to finalize. Parsing refuses what
// Bitcoin Core refuses (testdata holds its test data).
package bitcoin

import (
	"bytes"
	"encoding/binary"
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
	if b, err = unsignedTxFirst(b); err != nil {
		return nil, err
	}
	r := bytes.NewReader(b)
	packet, err := psbt.NewFromRawBytes(r, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%w: %d bytes follow the PSBT", ErrInvalid, r.Len())
	}
	if err := checkFields(b, len(packet.Inputs), len(packet.Outputs)); err != nil {
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

// checkFields checks the fields btcd's decoder keeps without checking them, as Bitcoin Core checks them (its
// test/functional/data/rpc_psbt.json has a PSBT for each rule): the length prefix of the script in each input's witness
// UTXO; the sizes of the MuSig2 fields of BIP-373, which btcd keeps as unknown fields; and an output's taproot tree.
// b is a PSBT btcd has parsed, with that many inputs and outputs.
func checkFields(b []byte, inputs, outputs int) error {
	r := bytes.NewReader(b[len(psbtMagic):])
	for m := 0; m <= inputs+outputs; m++ { // the global map, each input's, then each output's
		for {
			key, value, err := readPair(r)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			if key == nil {
				break // the map's separator
			}
			var check func(key, value []byte) error
			var where string
			switch {
			case m == 0:
				continue
			case m <= inputs:
				check, where = inputFieldChecks[key[0]], fmt.Sprintf("input %d", m-1)
			default:
				check, where = outputFieldChecks[key[0]], fmt.Sprintf("output %d", m-1-inputs)
			}
			if check == nil {
				continue
			}
			if err := check(key, value); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrInvalid, where, err)
			}
		}
	}
	return nil
}

// unsignedTxFirst returns b with its global map's unsigned transaction moved to the front, where btcd's decoder
// insists on finding it; BIP-174 puts no order on a map's pairs (Bitcoin Core writes PSBT_GLOBAL_VERSION first). It
// refuses a global map with a key twice, and a PSBT of another version than 0, the one that has an unsigned
// transaction.
func unsignedTxFirst(b []byte) ([]byte, error) {
	if len(b) < len(psbtMagic) || string(b[:len(psbtMagic)]) != psbtMagic {
		return b, nil // btcd names the fault
	}
	r := bytes.NewReader(b[len(psbtMagic):])
	var pairs [][]byte // each pair's bytes, as written
	tx := -1
	seen := map[string]bool{}
	for {
		start := len(b) - r.Len()
		key, value, err := readPair(r)
		if err != nil {
			return b, nil // btcd names the fault
		}
		if key == nil {
			break
		}
		if seen[string(key)] {
			return nil, fmt.Errorf("%w: the global map has the key %x twice", ErrInvalid, key)
		}
		seen[string(key)] = true
		switch {
		case len(key) == 1 && key[0] == byte(psbt.UnsignedTxType):
			tx = len(pairs)
		case len(key) == 1 && key[0] == globalVersion:
			if len(value) != 4 || binary.LittleEndian.Uint32(value) != 0 {
				return nil, fmt.Errorf("%w: PSBT version %x: only version 0 PSBTs are signed", ErrInvalid, value)
			}
		}
		pairs = append(pairs, b[start:len(b)-r.Len()])
	}
	if tx <= 0 {
		return b, nil // first already, or missing: btcd names the fault
	}
	out := make([]byte, 0, len(b))
	out = append(out, psbtMagic...)
	out = append(out, pairs[tx]...)
	for i, p := range pairs {
		if i != tx {
			out = append(out, p...)
		}
	}
	return append(out, b[len(b)-r.Len()-1:]...), nil // the separator and the rest
}

// globalVersion is PSBT_GLOBAL_VERSION.
const globalVersion = 0xfb

// The key types of BIP-373 (MuSig2) and of an output's taproot tree (BIP-371).
const (
	inMuSig2ParticipantPubkeys  = 0x1a
	inMuSig2PubNonce            = 0x1b
	inMuSig2PartialSig          = 0x1c
	outTaprootTree              = 0x06
	outMuSig2ParticipantPubkeys = 0x08
)

var inputFieldChecks = map[byte]func(key, value []byte) error{
	byte(psbt.WitnessUtxoType): func(key, value []byte) error {
		if len(key) != 1 {
			return nil // another field's key, which btcd has judged
		}
		if err := checkWitnessUTXO(value); err != nil {
			return fmt.Errorf("witness UTXO: %v", err)
		}
		return nil
	},
	inMuSig2ParticipantPubkeys: checkParticipantPubkeys,
	inMuSig2PubNonce: func(key, value []byte) error {
		return checkMuSig2Signer("pubnonce", key, value, 66)
	},
	inMuSig2PartialSig: func(key, value []byte) error {
		return checkMuSig2Signer("partial signature", key, value, 32)
	},
}

var outputFieldChecks = map[byte]func(key, value []byte) error{
	outTaprootTree:              checkTaprootTree,
	outMuSig2ParticipantPubkeys: checkParticipantPubkeys,
}

// checkParticipantPubkeys checks a MuSig2 participants field: keyed by the aggregate key (33 bytes), a list of
// compressed keys.
func checkParticipantPubkeys(key, value []byte) error {
	if len(key) != 1+33 {
		return fmt.Errorf("MuSig2 participants: the key is %d bytes, not a type and a 33-byte aggregate key", len(key))
	}
	if len(value) == 0 || len(value)%33 != 0 {
		return fmt.Errorf("MuSig2 participants: %d bytes, not a list of 33-byte keys", len(value))
	}
	return nil
}

// checkMuSig2Signer checks a MuSig2 pubnonce or partial signature: keyed by the participant's and the aggregate key
// (33 bytes each) and, for a script path, the leaf hash (32 bytes); the value of its fixed size.
func checkMuSig2Signer(field string, key, value []byte, size int) error {
	if len(key) != 1+33+33 && len(key) != 1+33+33+32 {
		return fmt.Errorf("MuSig2 %s: the key is %d bytes, not a type, two 33-byte keys and perhaps a 32-byte leaf hash", field, len(key))
	}
	if len(value) != size {
		return fmt.Errorf("MuSig2 %s: %d bytes, not %d", field, len(value), size)
	}
	return nil
}

// checkTaprootTree checks an output's taproot tree (BIP-371): leaves of a depth, a leaf version and a script, in the
// order of a depth-first walk, that make a whole binary tree of at most 128 levels.
func checkTaprootTree(key, value []byte) error {
	if len(key) != 1 {
		return fmt.Errorf("taproot tree: the key has %d bytes of data; it has none", len(key)-1)
	}
	if len(value) == 0 {
		return errors.New("taproot tree: empty")
	}
	r := bytes.NewReader(value)
	var open []bool // open[d]: a subtree at depth d waits for its sibling
	for r.Len() > 0 {
		depth, err := r.ReadByte()
		if err != nil {
			return errors.New("taproot tree: a leaf is cut short")
		}
		version, err := r.ReadByte()
		if err != nil {
			return errors.New("taproot tree: a leaf is cut short")
		}
		if _, err := wire.ReadVarBytes(r, 0, uint32(r.Len()), "script"); err != nil {
			return errors.New("taproot tree: a leaf's script is cut short")
		}
		if depth > 128 {
			return fmt.Errorf("taproot tree: a leaf at depth %d, deeper than 128", depth)
		}
		if version&1 != 0 {
			return fmt.Errorf("taproot tree: leaf version %#x is odd", version)
		}
		// Bitcoin Core's TaprootBuilder: a leaf above an unfinished deeper subtree is out of a depth-first order; a leaf
		// whose sibling waits at its depth completes their parent, and so on up.
		d := int(depth)
		if len(open) > d+1 {
			return errors.New("taproot tree: the leaves are not in a depth-first order")
		}
		for d < len(open) && open[d] {
			open = open[:d]
			if d == 0 {
				return errors.New("taproot tree: the leaves do not make a binary tree")
			}
			d--
		}
		for len(open) <= d {
			open = append(open, false)
		}
		open[d] = true
	}
	if len(open) != 1 || !open[0] {
		return errors.New("taproot tree: the leaves do not make a whole binary tree")
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
