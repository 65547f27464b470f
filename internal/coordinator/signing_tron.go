package coordinator

import (
	"encoding/hex"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/tron"
)

// tronTx is a parsed Tron transaction (its raw data).
type tronTx struct{ tx *tron.Transaction }

func parseTronTx(unsigned string) (parsedTx, error) {
	b, err := decodeTxHex(unsigned)
	if err != nil {
		return nil, err
	}
	tx, err := tron.Parse(b)
	if err != nil {
		return nil, err
	}
	return tronTx{tx}, nil
}

// prepare gives tron.tx; the signing step signs the transaction id (SHA-256 of the raw data) and returns the
// serialized signed transaction.
func (t tronTx) prepare(s *signer) (*policy.Input, signTx, error) {
	if s.curve != keys.CurveSecp256k1 {
		return nil, nil, apierr.Invalid("parameters.signWith: a Tron transaction needs a CURVE_SECP256K1 key, this one is %s", s.curve)
	}
	sign := func(key []byte) (string, error) {
		id := t.tx.ID()
		sig, err := keys.SignSecp256k1(key, id[:])
		if err != nil {
			return "", err
		}
		rsv := append(sig.Ethereum()[:64], 27+sig.V) // r || s || v, v = 27 + recovery id as TronWeb writes it
		return hex.EncodeToString(tron.Signed(t.tx.Raw, rsv)), nil
	}
	return &policy.Input{TronTx: tronFacts(t.tx)}, sign, nil
}

// tronFacts is the policy engine's tron.tx of a parsed transaction.
func tronFacts(t *tron.Transaction) *policy.TronTx {
	out := &policy.TronTx{RefBlockBytes: t.RefBlockBytes, RefBlockHash: t.RefBlockHash, Expiration: uint64(t.Expiration),
		Timestamp: uint64(t.Timestamp), Data: t.Data, FeeLimit: uint64(t.FeeLimit), Contract: make([]policy.TronContract, len(t.Contracts))}
	u := func(p *int64) *uint64 {
		if p == nil {
			return nil
		}
		v := uint64(*p)
		return &v
	}
	for i, c := range t.Contracts {
		pc := policy.TronContract{Type: c.Type, PermissionID: uint64(c.PermissionID), OwnerAddress: c.OwnerAddress,
			ToAddress: c.ToAddress, ContractAddress: c.ContractAddress, ReceiverAddress: c.ReceiverAddress,
			Amount: u(c.Amount), CallValue: u(c.CallValue), CallTokenValue: u(c.CallTokenValue), TokenID: u(c.TokenID),
			Balance: u(c.Balance), LockPeriod: u(c.LockPeriod), FrozenBalance: u(c.FrozenBalance), UnfreezeBalance: u(c.UnfreezeBalance),
			Data: c.Data, Resource: c.Resource, Lock: c.Lock, Owner: tronPermission(c.Owner), Witness: tronPermission(c.Witness)}
		if c.Actives != nil {
			pc.Actives = make([]policy.TronPermission, len(c.Actives))
			for j := range c.Actives {
				pc.Actives[j] = *tronPermission(&c.Actives[j])
			}
		}
		out.Contract[i] = pc
	}
	return out
}

func tronPermission(p *tron.Permission) *policy.TronPermission {
	if p == nil {
		return nil
	}
	out := &policy.TronPermission{Type: p.Type, ID: uint64(p.ID), PermissionName: p.PermissionName, Threshold: uint64(p.Threshold),
		ParentID: uint64(p.ParentID), Operations: p.Operations, Keys: make([]policy.TronKey, len(p.Keys))}
	for i, k := range p.Keys {
		out.Keys[i] = policy.TronKey{Address: k.Address, Weight: uint64(k.Weight)}
	}
	return out
}
