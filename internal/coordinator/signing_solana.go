package coordinator

import (
	"encoding/hex"
	"fmt"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/solana"
)

// solanaTx is a parsed Solana transaction: its signature slots and message.
type solanaTx struct{ tx *solana.Transaction }

func parseSolanaTx(unsigned string) (parsedTx, error) {
	b, err := decodeTxHex(unsigned)
	if err != nil {
		return nil, err
	}
	tx, err := solana.ParseTransaction(b)
	if err != nil {
		return nil, err
	}
	return solanaTx{tx}, nil
}

// prepare finds the signer's signature slot (it must be one of the message's signers) and gives solana.tx. The
// signing step signs the message and returns the transaction with that slot filled, the other slots as sent.
func (t solanaTx) prepare(s *signer) (*policy.Input, signTx, error) {
	if s.curve != keys.CurveEd25519 {
		return nil, nil, apierr.Invalid("parameters.signWith: a Solana transaction needs a CURVE_ED25519 key, this one is %s", s.curve)
	}
	pub, err := hexBytes(s.publicKey)
	if err != nil || len(pub) != solana.KeySize {
		return nil, nil, fmt.Errorf("stored Ed25519 public key is not 32 bytes of hex")
	}
	m := &t.tx.Message
	slot, ok := m.SignerIndex(solana.Key(pub))
	if !ok {
		return nil, nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION",
			"parameters.signWith: %s is not one of the transaction's %d signers", keys.Base58Encode(pub), m.Header.NumRequiredSignatures)
	}
	sign := func(key []byte) (string, error) {
		sig, err := keys.Sign(keys.CurveEd25519, key, m.Bytes())
		if err != nil {
			return "", err
		}
		signed := *t.tx
		signed.Signatures = append([][solana.SignatureSize]byte{}, t.tx.Signatures...)
		copy(signed.Signatures[slot][:32], sig.R[:])
		copy(signed.Signatures[slot][32:], sig.S[:])
		return hex.EncodeToString(signed.Serialize()), nil
	}
	return &policy.Input{SolanaTx: solanaFacts(t.tx.Parsed)}, sign, nil
}

// solanaFacts is the policy engine's solana.tx of a parsed transaction.
func solanaFacts(p *solana.Parsed) *policy.SolanaTx {
	out := &policy.SolanaTx{AccountKeys: p.AccountKeys, ProgramKeys: p.ProgramKeys, RecentBlockhash: p.RecentBlockhash,
		Instructions:        make([]policy.SolanaInstruction, len(p.Instructions)),
		Transfers:           make([]policy.SolanaTransfer, len(p.Transfers)),
		SPLTransfers:        make([]policy.SolanaSPLTransfer, len(p.SPLTransfers)),
		AddressTableLookups: make([]policy.SolanaAddressTableLookup, len(p.AddressTableLookups))}
	for i, in := range p.Instructions {
		accounts := make([]policy.SolanaAccount, len(in.Accounts))
		for j, a := range in.Accounts {
			accounts[j] = policy.SolanaAccount{AccountKey: a.AccountKey, Signer: a.Signer, Writable: a.Writable}
		}
		lookups := make([]policy.SolanaInstructionLookup, len(in.AddressTableLookups))
		for j, l := range in.AddressTableLookups {
			lookups[j] = policy.SolanaInstructionLookup{AddressTableKey: l.AddressTableKey, Index: uint32(l.Index), Writable: l.Writable}
		}
		out.Instructions[i] = policy.SolanaInstruction{ProgramKey: in.ProgramKey, Accounts: accounts,
			InstructionDataHex: in.InstructionDataHex, AddressTableLookups: lookups}
	}
	for i, tr := range p.Transfers {
		out.Transfers[i] = policy.SolanaTransfer{From: tr.From, To: tr.To, Amount: tr.Amount}
	}
	for i, tr := range p.SPLTransfers {
		out.SPLTransfers[i] = policy.SolanaSPLTransfer{From: tr.From, To: tr.To, Owner: tr.Owner, TokenMint: tr.TokenMint,
			Amount: tr.Amount, Signers: tr.Signers}
	}
	for i, l := range p.AddressTableLookups {
		out.AddressTableLookups[i] = policy.SolanaAddressTableLookup{AddressTableKey: l.AddressTableKey,
			WritableIndexes: widen(l.WritableIndexes), ReadonlyIndexes: widen(l.ReadonlyIndexes)}
	}
	return out
}

func widen(b []uint8) []uint32 {
	out := make([]uint32, len(b))
	for i, v := range b {
		out[i] = uint32(v)
	}
	return out
}
