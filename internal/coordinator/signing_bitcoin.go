package coordinator

import (
	"encoding/hex"
	"errors"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bitcoin"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
)

// bitcoinTx is a parsed PSBT, with its bytes: signing works on a fresh parse, so the parsed value stays as checked.
type bitcoinTx struct {
	raw  []byte
	psbt *bitcoin.PSBT
}

func parseBitcoinTx(unsigned string) (parsedTx, error) {
	b, err := decodeTxHex(unsigned)
	if err != nil {
		return nil, err
	}
	p, err := bitcoin.Parse(b)
	if err != nil {
		return nil, err
	}
	return bitcoinTx{raw: b, psbt: p}, nil
}

// prepare finds the inputs that spend from the signer (a secp256k1 key known by a Bitcoin address format, whose
// network renders bitcoin.tx's addresses) and gives bitcoin.tx; the signing step signs those inputs and returns the
// PSBT with their signatures.
func (t bitcoinTx) prepare(s *signer) (*policy.Input, signTx, error) {
	if s.curve != keys.CurveSecp256k1 {
		return nil, nil, apierr.Invalid("parameters.signWith: a Bitcoin transaction needs a CURVE_SECP256K1 key, this one is %s", s.curve)
	}
	if !s.bitcoinOK {
		return nil, nil, apierr.Invalid("parameters.signWith: a Bitcoin transaction is signed by a wallet account or private key with a Bitcoin address format (ADDRESS_FORMAT_BITCOIN_*), which says its network")
	}
	pub, err := hexBytes(s.publicKey)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := t.psbt.Inputs(pub)
	if err != nil {
		code := "INVALID_TRANSACTION"
		if errors.Is(err, bitcoin.ErrNothingToSign) {
			return nil, nil, apierr.New(apierr.InvalidArgument, code, "parameters.unsignedTransaction: no input spends from %s (give each input's witness UTXO or previous transaction)", s.describe())
		}
		return nil, nil, apierr.New(apierr.InvalidArgument, code, "parameters.unsignedTransaction: %s", err.Error())
	}
	sign := func(key []byte) (string, error) {
		p, err := bitcoin.Parse(t.raw)
		if err != nil {
			return "", err
		}
		if err := p.Sign(key, inputs); err != nil {
			return "", err
		}
		out, err := p.Serialize()
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(out), nil
	}
	return &policy.Input{BitcoinTx: bitcoinFacts(t.psbt.View(s.bitcoin.Network, inputs))}, sign, nil
}

// describe names the signer in messages: its address, or its private key's id.
func (s *signer) describe() string {
	if s.account != nil {
		return s.account.Address
	}
	return "private key " + s.privateKey.ID
}

// bitcoinFacts is the policy engine's bitcoin.tx of a PSBT's view.
func bitcoinFacts(v *bitcoin.View) *policy.BitcoinTx {
	out := &policy.BitcoinTx{Version: v.Version, Inputs: make([]policy.BitcoinInput, len(v.Inputs)),
		Outputs: make([]policy.BitcoinOutput, len(v.Outputs)), Locktime: policy.BitcoinLocktime(v.Locktime), Fee: v.Fee}
	for i, in := range v.Inputs {
		out.Inputs[i] = policy.BitcoinInput(in)
	}
	for i, o := range v.Outputs {
		out.Outputs[i] = policy.BitcoinOutput(o)
	}
	return out
}
