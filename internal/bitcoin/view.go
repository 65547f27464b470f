package bitcoin

import (
	"encoding/hex"
	"strconv"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"
)

// View is what the policy engine reads of a PSBT's transaction (bitcoin.tx).
type View struct {
	Version  string // the transaction's version, in decimal (a string, as the reference types it)
	Inputs   []Input
	Outputs  []Output
	Locktime Locktime
	Fee      *uint64 // nil when it is not known to the signer (PSBT.KnownFee)
}

// Input is an input's outpoint and sequence.
type Input struct {
	TxID     string // the spent transaction's id, as written (byte-reversed hex)
	Vout     uint32
	Sequence uint32
}

// Output is an output: its value in satoshis, its script (lower-case hex), and its address in the signer's network
// with its type (P2PKH, P2SH, P2WPKH, P2WSH, P2TR, or NULL_DATA, WITNESS_UNKNOWN, NONSTANDARD with an empty address).
type Output struct {
	Value        uint64
	ScriptPubKey string
	Address      string
	AddressType  string
}

// Locktime is the transaction's lock time: a block height below 500,000,000 ("Blocks"), a Unix time from it on
// ("Seconds").
type Locktime struct {
	Amount uint64
	Type   string
}

// View builds the policy view for the signer of the inputs signs, rendering output addresses in the given network.
func (p *PSBT) View(net *chaincfg.Params, signs []Signing) *View {
	tx := p.Packet.UnsignedTx
	v := &View{Version: strconv.FormatInt(int64(tx.Version), 10), Inputs: make([]Input, len(tx.TxIn)), Outputs: make([]Output, len(tx.TxOut))}
	for i, in := range tx.TxIn {
		v.Inputs[i] = Input{TxID: TxID(in.PreviousOutPoint.Hash), Vout: in.PreviousOutPoint.Index, Sequence: in.Sequence}
	}
	for i, o := range tx.TxOut {
		addr, kind := OutputAddress(o.PkScript, net)
		v.Outputs[i] = Output{Value: uint64(o.Value), ScriptPubKey: hex.EncodeToString(o.PkScript), Address: addr, AddressType: kind}
	}
	v.Locktime = Locktime{Amount: uint64(tx.LockTime), Type: "Blocks"}
	if tx.LockTime >= txscript.LockTimeThreshold {
		v.Locktime.Type = "Seconds"
	}
	if fee, ok := p.KnownFee(signs); ok {
		f := uint64(fee)
		v.Fee = &f
	}
	return v
}

// OutputAddress is the address an output script pays to in net, with its type; scripts without an address (data,
// unknown witness versions, anything non-standard) give an empty address.
func OutputAddress(script []byte, net *chaincfg.Params) (string, string) {
	class, addrs, _, err := txscript.ExtractPkScriptAddrs(script, net)
	kind := ""
	switch class {
	case txscript.PubKeyHashTy:
		kind = "P2PKH"
	case txscript.ScriptHashTy:
		kind = "P2SH"
	case txscript.WitnessV0PubKeyHashTy:
		kind = "P2WPKH"
	case txscript.WitnessV0ScriptHashTy:
		kind = "P2WSH"
	case txscript.WitnessV1TaprootTy:
		kind = "P2TR"
	case txscript.NullDataTy:
		return "", "NULL_DATA"
	case txscript.WitnessUnknownTy:
		return "", "WITNESS_UNKNOWN"
	default:
		return "", "NONSTANDARD"
	}
	if err != nil || len(addrs) != 1 {
		return "", "NONSTANDARD"
	}
	return addrs[0].EncodeAddress(), kind
}
