package solana

import (
	"encoding/binary"
	"fmt"

	"github.com/sigil/sigil/internal/keys"
)

// ParseKey reads a base58 address.
func ParseKey(s string) (Key, error) {
	var k Key
	b, err := keys.Base58Decode(s)
	if err != nil || len(b) != KeySize {
		return k, fmt.Errorf("%q is not a base58 Solana address of %d bytes", s, KeySize)
	}
	copy(k[:], b)
	return k, nil
}

// AccountMeta is an account an instruction uses, as a builder names it.
type AccountMeta struct {
	Key              Key
	Signer, Writable bool
}

// NewInstruction is an instruction before it is compiled into a message.
type NewInstruction struct {
	Program  Key
	Accounts []AccountMeta
	Data     []byte
}

// SystemTransfer is the System Program's Transfer of lamports from one account to another.
func SystemTransfer(from, to Key, lamports uint64) NewInstruction {
	data := binary.LittleEndian.AppendUint32(nil, 2)
	return NewInstruction{Program: SystemProgram, Data: binary.LittleEndian.AppendUint64(data, lamports),
		Accounts: []AccountMeta{{from, true, true}, {to, false, true}}}
}

// SystemCreateAccount is the System Program's CreateAccount: lamports from payer to a new account (which signs), space
// bytes of data, owned by owner.
func SystemCreateAccount(payer, account Key, lamports, space uint64, owner Key) NewInstruction {
	data := binary.LittleEndian.AppendUint32(nil, 0)
	data = binary.LittleEndian.AppendUint64(data, lamports)
	data = binary.LittleEndian.AppendUint64(data, space)
	return NewInstruction{Program: SystemProgram, Data: append(data, owner[:]...),
		Accounts: []AccountMeta{{payer, true, true}, {account, true, true}}}
}

// NewLegacyTransaction compiles instructions into a legacy message paid by payer, as @solana/web3.js's
// Transaction.compileMessage does (signers first, writable before read-only, the payer first of all), with empty
// signature slots.
func NewLegacyTransaction(payer, blockhash Key, ins ...NewInstruction) (*Transaction, error) {
	metas := []AccountMeta{{payer, true, true}}
	index := map[Key]int{payer: 0}
	add := func(a AccountMeta) {
		if i, ok := index[a.Key]; ok {
			metas[i].Signer = metas[i].Signer || a.Signer
			metas[i].Writable = metas[i].Writable || a.Writable
			return
		}
		index[a.Key] = len(metas)
		metas = append(metas, a)
	}
	for _, in := range ins {
		for _, a := range in.Accounts {
			add(a)
		}
		add(AccountMeta{Key: in.Program})
	}
	var ordered []AccountMeta
	var h Header
	for _, class := range []struct{ signer, writable bool }{{true, true}, {true, false}, {false, true}, {false, false}} {
		for _, m := range metas {
			if m.Signer == class.signer && m.Writable == class.writable {
				ordered = append(ordered, m)
				switch {
				case m.Signer:
					h.NumRequiredSignatures++
					if !m.Writable {
						h.NumReadonlySignedAccounts++
					}
				case !m.Writable:
					h.NumReadonlyUnsignedAccount++
				}
			}
		}
	}
	if len(ordered) > 255 {
		return nil, fmt.Errorf("%w: %d accounts", ErrInvalid, len(ordered))
	}
	pos := map[Key]uint8{}
	raw := []byte{h.NumRequiredSignatures, h.NumReadonlySignedAccounts, h.NumReadonlyUnsignedAccount}
	raw = appendShortVec(raw, len(ordered))
	for i, m := range ordered {
		pos[m.Key] = uint8(i)
		raw = append(raw, m.Key[:]...)
	}
	raw = append(raw, blockhash[:]...)
	raw = appendShortVec(raw, len(ins))
	for _, in := range ins {
		raw = append(raw, pos[in.Program])
		raw = appendShortVec(raw, len(in.Accounts))
		for _, a := range in.Accounts {
			raw = append(raw, pos[a.Key])
		}
		raw = appendShortVec(raw, len(in.Data))
		raw = append(raw, in.Data...)
	}
	unsigned := Transaction{Signatures: make([][SignatureSize]byte, h.NumRequiredSignatures), Message: Message{raw: raw}}
	return ParseTransaction(unsigned.Serialize())
}

func appendShortVec(b []byte, n int) []byte {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// MarshalText writes the key in base58 (JSON strings and map keys).
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a base58 key.
func (k *Key) UnmarshalText(b []byte) error {
	v, err := ParseKey(string(b))
	*k = v
	return err
}

// WithFeePayer is the transaction with payer added as its first account, a writable signer that pays its fee, every
// account index shifted by one and every signature slot emptied (the message changed). No instruction of the
// transaction can name the payer: each index it names is one of the accounts it had. A payer that is one of those
// accounts already is refused (a message names each account once).
func (t *Transaction) WithFeePayer(payer Key) (*Transaction, error) {
	m := &t.Message
	if len(m.AccountKeys)+m.NumLoaded() >= 256 {
		return nil, fmt.Errorf("%w: %d accounts leave no room for a fee payer", ErrInvalid, len(m.AccountKeys)+m.NumLoaded())
	}
	var raw []byte
	if m.Version >= 0 {
		raw = append(raw, 0x80|byte(m.Version))
	}
	raw = append(raw, m.Header.NumRequiredSignatures+1, m.Header.NumReadonlySignedAccounts, m.Header.NumReadonlyUnsignedAccount)
	raw = appendShortVec(raw, len(m.AccountKeys)+1)
	raw = append(raw, payer[:]...)
	for _, k := range m.AccountKeys {
		raw = append(raw, k[:]...)
	}
	raw = append(raw, m.RecentBlockhash[:]...)
	raw = appendShortVec(raw, len(m.Instructions))
	for _, in := range m.Instructions {
		raw = append(raw, in.ProgramIDIndex+1)
		raw = appendShortVec(raw, len(in.Accounts))
		for _, a := range in.Accounts {
			raw = append(raw, a+1)
		}
		raw = appendShortVec(raw, len(in.Data))
		raw = append(raw, in.Data...)
	}
	if m.Version >= 0 {
		raw = appendShortVec(raw, len(m.AddressTableLookups))
		for _, l := range m.AddressTableLookups {
			raw = append(raw, l.AccountKey[:]...)
			raw = appendShortVec(raw, len(l.WritableIndexes))
			raw = append(raw, l.WritableIndexes...)
			raw = appendShortVec(raw, len(l.ReadonlyIndexes))
			raw = append(raw, l.ReadonlyIndexes...)
		}
	}
	unsigned := Transaction{Signatures: make([][SignatureSize]byte, len(t.Signatures)+1), Message: Message{raw: raw}}
	return ParseTransaction(unsigned.Serialize())
}
