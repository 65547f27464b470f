// Package solana parses Solana transactions (legacy and version 0 messages, with address lookup tables) for the
// signing activities, and builds what the policy engine reads of them (solana.tx). It is pure: no network, no
// database; a transaction is taken apart exactly as the runtime's sanitizer would, and one that the runtime would
// refuse is refused here.
//
// What the SDKs send (checked against @turnkey/solana 1.1.37 and @solana/web3.js 1.99): TurnkeySigner.signTransaction
// sends the whole serialized transaction — its signature slots (zeros, or other signers' signatures) and its message —
// as hex, with type TRANSACTION_TYPE_SOLANA, and reads back the same transaction with the signer's slot filled.
// signAllTransactions, addSignature and signMessage send the message bytes through sign_raw_payload(s) with
// HASH_FUNCTION_NOT_APPLICABLE instead.
package solana

import (
	"errors"
	"fmt"

	"github.com/sigil/sigil/internal/keys"
)

// Sizes of the wire format.
const (
	SignatureSize = 64
	KeySize       = 32
	// MaxTransactionSize is the largest transaction the network carries (a packet's payload, PACKET_DATA_SIZE).
	MaxTransactionSize = 1232
)

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("invalid Solana transaction")

// Key is an account address (an Ed25519 public key or a program-derived address).
type Key [KeySize]byte

// String is the key in base58.
func (k Key) String() string { return keys.Base58Encode(k[:]) }

// Header counts the message's signers and read-only accounts.
type Header struct {
	NumRequiredSignatures      uint8
	NumReadonlySignedAccounts  uint8
	NumReadonlyUnsignedAccount uint8
}

// Instruction is a compiled instruction: its program and accounts as indexes into the message's accounts (the static
// keys, then the lookups' writable addresses, then their read-only ones).
type Instruction struct {
	ProgramIDIndex uint8
	Accounts       []uint8
	Data           []byte
}

// AddressTableLookup loads accounts from an on-chain address lookup table by index.
type AddressTableLookup struct {
	AccountKey      Key
	WritableIndexes []uint8
	ReadonlyIndexes []uint8
}

// Message is the signed part of a transaction.
type Message struct {
	Version             int // -1 for a legacy message, 0 for a version 0 message
	Header              Header
	AccountKeys         []Key // the static keys
	RecentBlockhash     Key
	Instructions        []Instruction
	AddressTableLookups []AddressTableLookup // version 0 only
	raw                 []byte               // the serialized message: what signers sign
}

// Transaction is a parsed transaction: its signature slots and its message, and what the policy engine reads of it.
type Transaction struct {
	Signatures [][SignatureSize]byte
	Message    Message
	// Parsed is the policy engine's view (solana.tx), computed when the transaction is parsed.
	Parsed *Parsed
}

// reader walks the wire format; every read checks the bytes left.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(format string, args ...any) error {
	return fmt.Errorf("%w: %s (at byte %d)", ErrInvalid, fmt.Sprintf(format, args...), r.off)
}

func (r *reader) byte(what string) (uint8, error) {
	if r.off >= len(r.b) {
		return 0, r.fail("the transaction ends before its %s", what)
	}
	v := r.b[r.off]
	r.off++
	return v, nil
}

func (r *reader) bytes(n int, what string) ([]byte, error) {
	if n > len(r.b)-r.off {
		return nil, r.fail("the transaction ends inside its %s (%d bytes needed, %d left)", what, n, len(r.b)-r.off)
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v, nil
}

// shortVec reads a compact-u16 length (1 to 3 bytes, 7 bits each, little-endian), refusing the encodings the runtime
// refuses: a value that does not fit 16 bits, and a value not in its shortest form.
func (r *reader) shortVec(what string) (int, error) {
	var v uint32
	for i := 0; i < 3; i++ {
		c, err := r.byte("length of its " + what)
		if err != nil {
			return 0, err
		}
		if i == 2 && c > 3 {
			return 0, r.fail("the length of its %s does not fit 16 bits", what)
		}
		if i > 0 && c == 0 {
			return 0, r.fail("the length of its %s is not in its shortest encoding", what)
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int(v), nil
		}
	}
	return 0, r.fail("the length of its %s does not fit 16 bits", what)
}

func (r *reader) key(what string) (Key, error) {
	var k Key
	b, err := r.bytes(KeySize, what)
	copy(k[:], b)
	return k, err
}

func (r *reader) byteVec(what string) ([]byte, error) {
	n, err := r.shortVec(what)
	if err != nil {
		return nil, err
	}
	return r.bytes(n, what)
}

// ParseTransaction parses a serialized transaction: the signature slots, then a legacy or version 0 message. It
// refuses what the runtime's sanitizer refuses (bad header counts, indexes out of range, a program loaded from a
// lookup table, a lookup that loads nothing, duplicate accounts, a signature count that is not the header's), a
// transaction larger than a packet, and trailing bytes.
func ParseTransaction(b []byte) (*Transaction, error) {
	if len(b) > MaxTransactionSize {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a transaction may have", ErrInvalid, len(b), MaxTransactionSize)
	}
	r := &reader{b: b}
	n, err := r.shortVec("signatures")
	if err != nil {
		return nil, err
	}
	sigs, err := r.bytes(n*SignatureSize, "signatures")
	if err != nil {
		return nil, err
	}
	tx := &Transaction{Signatures: make([][SignatureSize]byte, n)}
	for i := range tx.Signatures {
		copy(tx.Signatures[i][:], sigs[i*SignatureSize:])
	}
	if err := parseMessage(r, &tx.Message); err != nil {
		return nil, err
	}
	if got, want := len(tx.Signatures), int(tx.Message.Header.NumRequiredSignatures); got != want {
		return nil, fmt.Errorf("%w: %d signature slots, but the message has %d signers", ErrInvalid, got, want)
	}
	if tx.Parsed, err = analyze(&tx.Message); err != nil {
		return nil, err
	}
	return tx, nil
}

// ParseMessage parses a serialized message alone (what signers sign).
func ParseMessage(b []byte) (*Message, error) {
	r := &reader{b: b}
	m := new(Message)
	if err := parseMessage(r, m); err != nil {
		return nil, err
	}
	return m, nil
}

func parseMessage(r *reader, m *Message) error {
	start := r.off
	first, err := r.byte("message")
	if err != nil {
		return err
	}
	m.Version = -1
	if first&0x80 != 0 {
		if v := first & 0x7f; v != 0 {
			return r.fail("message version %d is not supported: Sigil parses legacy and version 0 messages", v)
		}
		m.Version = 0
	} else {
		r.off-- // a legacy message starts with its header
	}
	h, err := r.bytes(3, "message header")
	if err != nil {
		return err
	}
	m.Header = Header{h[0], h[1], h[2]}
	nKeys, err := r.shortVec("account keys")
	if err != nil {
		return err
	}
	m.AccountKeys = make([]Key, nKeys)
	for i := range m.AccountKeys {
		if m.AccountKeys[i], err = r.key("account keys"); err != nil {
			return err
		}
	}
	if m.RecentBlockhash, err = r.key("recent blockhash"); err != nil {
		return err
	}
	nIns, err := r.shortVec("instructions")
	if err != nil {
		return err
	}
	m.Instructions = make([]Instruction, nIns)
	for i := range m.Instructions {
		in := &m.Instructions[i]
		if in.ProgramIDIndex, err = r.byte("instruction's program index"); err != nil {
			return err
		}
		if in.Accounts, err = r.byteVec("instruction's accounts"); err != nil {
			return err
		}
		if in.Data, err = r.byteVec("instruction's data"); err != nil {
			return err
		}
	}
	if m.Version == 0 {
		nLookups, err := r.shortVec("address table lookups")
		if err != nil {
			return err
		}
		m.AddressTableLookups = make([]AddressTableLookup, nLookups)
		for i := range m.AddressTableLookups {
			l := &m.AddressTableLookups[i]
			if l.AccountKey, err = r.key("address table lookup's table"); err != nil {
				return err
			}
			if l.WritableIndexes, err = r.byteVec("address table lookup's writable indexes"); err != nil {
				return err
			}
			if l.ReadonlyIndexes, err = r.byteVec("address table lookup's read-only indexes"); err != nil {
				return err
			}
		}
	}
	if r.off != len(r.b) {
		return r.fail("%d bytes follow the message", len(r.b)-r.off)
	}
	m.raw = r.b[start:]
	return m.sanitize()
}

// NumLoaded is the number of accounts the lookups load.
func (m *Message) NumLoaded() int {
	n := 0
	for _, l := range m.AddressTableLookups {
		n += len(l.WritableIndexes) + len(l.ReadonlyIndexes)
	}
	return n
}

// sanitize applies the runtime's message sanitizer and refuses an account loaded twice.
func (m *Message) sanitize() error {
	h, nKeys := m.Header, len(m.AccountKeys)
	switch {
	case nKeys == 0:
		return fmt.Errorf("%w: the message has no account keys (the fee payer is the first)", ErrInvalid)
	case int(h.NumRequiredSignatures) == 0:
		return fmt.Errorf("%w: the message has no signer (the fee payer signs)", ErrInvalid)
	case int(h.NumRequiredSignatures)+int(h.NumReadonlyUnsignedAccount) > nKeys:
		return fmt.Errorf("%w: the header counts %d signers and %d read-only unsigned accounts, but there are %d account keys",
			ErrInvalid, h.NumRequiredSignatures, h.NumReadonlyUnsignedAccount, nKeys)
	case h.NumReadonlySignedAccounts >= h.NumRequiredSignatures:
		return fmt.Errorf("%w: the header makes every signer read-only (the fee payer must be writable)", ErrInvalid)
	}
	loaded := m.NumLoaded()
	if nKeys+loaded > 256 {
		return fmt.Errorf("%w: %d accounts, more than 256", ErrInvalid, nKeys+loaded)
	}
	for i, l := range m.AddressTableLookups {
		if len(l.WritableIndexes)+len(l.ReadonlyIndexes) == 0 {
			return fmt.Errorf("%w: address table lookup %d loads no account", ErrInvalid, i)
		}
	}
	for i, in := range m.Instructions {
		switch p := int(in.ProgramIDIndex); {
		case p >= nKeys+loaded:
			return fmt.Errorf("%w: instruction %d's program index %d is out of range (%d accounts)", ErrInvalid, i, p, nKeys+loaded)
		case p >= nKeys:
			return fmt.Errorf("%w: instruction %d loads its program from an address lookup table; programs must be static account keys", ErrInvalid, i)
		case p == 0:
			return fmt.Errorf("%w: instruction %d's program is the fee payer", ErrInvalid, i)
		}
		for _, a := range in.Accounts {
			if int(a) >= nKeys+loaded {
				return fmt.Errorf("%w: instruction %d's account index %d is out of range (%d accounts)", ErrInvalid, i, a, nKeys+loaded)
			}
		}
	}
	seen := make(map[Key]struct{}, nKeys)
	for _, k := range m.AccountKeys {
		if _, dup := seen[k]; dup {
			return fmt.Errorf("%w: account %s appears twice among the account keys", ErrInvalid, k)
		}
		seen[k] = struct{}{}
	}
	return nil
}

// Bytes is the serialized message: what each signer signs.
func (m *Message) Bytes() []byte { return m.raw }

// IsSigner reports whether account i (a static key) signs.
func (m *Message) IsSigner(i int) bool { return i < int(m.Header.NumRequiredSignatures) }

// IsWritable reports whether account i (a static key) is writable, as the runtime decides it: by the header, except
// that a program invoked by an instruction is read-only unless the upgradeable loader is among the keys.
func (m *Message) IsWritable(i int) bool {
	h := m.Header
	var byHeader bool
	if i < int(h.NumRequiredSignatures) {
		byHeader = i < int(h.NumRequiredSignatures-h.NumReadonlySignedAccounts)
	} else {
		byHeader = i < len(m.AccountKeys)-int(h.NumReadonlyUnsignedAccount)
	}
	return byHeader && !(m.isInvoked(i) && !m.hasUpgradeableLoader())
}

func (m *Message) isInvoked(i int) bool {
	for _, in := range m.Instructions {
		if int(in.ProgramIDIndex) == i {
			return true
		}
	}
	return false
}

func (m *Message) hasUpgradeableLoader() bool {
	for _, k := range m.AccountKeys {
		if k == BPFLoaderUpgradeable {
			return true
		}
	}
	return false
}

// SignerIndex is the signature slot of key, if it is one of the message's signers.
func (m *Message) SignerIndex(key Key) (int, bool) {
	for i := 0; i < int(m.Header.NumRequiredSignatures); i++ {
		if m.AccountKeys[i] == key {
			return i, true
		}
	}
	return 0, false
}

// Serialize writes the transaction: the signature slots, then the message.
func (t *Transaction) Serialize() []byte {
	n := len(t.Signatures)
	out := make([]byte, 0, 3+n*SignatureSize+len(t.Message.raw))
	for v := n; ; { // compact-u16
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			out = append(out, c)
			break
		}
		out = append(out, c|0x80)
	}
	for _, s := range t.Signatures {
		out = append(out, s[:]...)
	}
	return append(out, t.Message.raw...)
}
