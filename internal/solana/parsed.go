package solana

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/sigil/sigil/internal/keys"
)

// Programs whose instructions the view understands.
var (
	SystemProgram        = Key{}
	TokenProgram         = mustKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
	Token2022Program     = mustKey("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
	BPFLoaderUpgradeable = mustKey("BPFLoaderUpgradeab1e11111111111111111111111")
)

// LookupPlaceholder stands for an account loaded from an address lookup table in the view's addresses: the table's
// contents are on chain, so the address itself is unknown here.
const LookupPlaceholder = "ADDRESS_TABLE_LOOKUP"

// Parsed is what the policy engine reads of a transaction (solana.tx). Addresses are base58; an account loaded from a
// lookup table is LookupPlaceholder.
type Parsed struct {
	AccountKeys         []string // the static account keys, in order
	ProgramKeys         []string // the static keys invoked as programs, in account order
	RecentBlockhash     string
	Instructions        []ParsedInstruction
	Transfers           []Transfer    // the lamports top-level System Program instructions move
	SPLTransfers        []SPLTransfer // top-level Token and Token-2022 Transfer, TransferChecked, TransferCheckedWithFee
	AddressTableLookups []ParsedLookup
	authorities         []string // of each transfer (Authority)
}

// ParsedInstruction is one instruction. Accounts lists its static accounts; the accounts it loads from lookup tables
// are in AddressTableLookups, in the order the instruction names them.
type ParsedInstruction struct {
	ProgramKey          string
	Accounts            []Account
	InstructionDataHex  string
	AddressTableLookups []InstructionLookup
	// Addresses is every account of the instruction in its order, static or looked up (LookupPlaceholder): what an
	// IDL's account names refer to.
	Addresses []string
}

// Account is a static account of an instruction.
type Account struct {
	AccountKey string
	Signer     bool
	Writable   bool
}

// InstructionLookup is an account an instruction loads from a lookup table: the table and the index in it.
type InstructionLookup struct {
	AddressTableKey string
	Index           uint8
	Writable        bool
}

// Transfer is lamports a System Program instruction moves: a Transfer, a TransferWithSeed, the funding of a
// CreateAccount or CreateAccountWithSeed, or a WithdrawNonceAccount. From is the account they leave (Parsed.Authority
// says which signer lets them leave it).
type Transfer struct {
	From, To string
	Amount   uint64
}

// Authority is the signer that lets transfer i's lamports leave their account: From itself, the base of the derived
// account of a TransferWithSeed, or a nonce account's authority.
func (p *Parsed) Authority(i int) string { return p.authorities[i] }

// SPLTransfer is a token transfer. From and To are token accounts; Owner is the source account's owner (or
// delegate), Signers the multisig signers that follow it; TokenMint is empty for a plain Transfer, which names no
// mint.
type SPLTransfer struct {
	From, To, Owner, TokenMint string
	Amount                     uint64
	Decimals                   *uint8  // TransferChecked and TransferCheckedWithFee
	Fee                        *uint64 // TransferCheckedWithFee
	Signers                    []string
}

// ParsedLookup is a message's address table lookup.
type ParsedLookup struct {
	AddressTableKey string
	WritableIndexes []uint8
	ReadonlyIndexes []uint8
}

func mustKey(s string) Key {
	var k Key
	b, err := keys.Base58Decode(s)
	if err != nil || len(b) != KeySize {
		panic("solana: bad key " + s)
	}
	copy(k[:], b)
	return k
}

// accountAt resolves index i of an instruction's accounts: a static key, or a lookup table entry (the lookups'
// writable indexes, table by table, then their read-only ones).
func (m *Message) accountAt(i int) (static bool, lookup InstructionLookup) {
	if i < len(m.AccountKeys) {
		return true, InstructionLookup{}
	}
	i -= len(m.AccountKeys)
	for _, l := range m.AddressTableLookups {
		if i < len(l.WritableIndexes) {
			return false, InstructionLookup{AddressTableKey: l.AccountKey.String(), Index: l.WritableIndexes[i], Writable: true}
		}
		i -= len(l.WritableIndexes)
	}
	for _, l := range m.AddressTableLookups {
		if i < len(l.ReadonlyIndexes) {
			return false, InstructionLookup{AddressTableKey: l.AccountKey.String(), Index: l.ReadonlyIndexes[i]}
		}
		i -= len(l.ReadonlyIndexes)
	}
	panic("solana: account index out of range after sanitize")
}

// analyze builds the policy view of a sanitized message. It fails, as the reference's parser does, on a System
// Program transfer or a token transfer whose data or accounts are too short for it: the runtime would fail them too.
func analyze(m *Message) (*Parsed, error) {
	keys := make([]string, len(m.AccountKeys))
	for i, k := range m.AccountKeys {
		keys[i] = k.String()
	}
	p := &Parsed{AccountKeys: keys, RecentBlockhash: m.RecentBlockhash.String(), ProgramKeys: []string{},
		Instructions: make([]ParsedInstruction, len(m.Instructions)), Transfers: []Transfer{}, SPLTransfers: []SPLTransfer{},
		AddressTableLookups: make([]ParsedLookup, len(m.AddressTableLookups))}
	for i := range m.AccountKeys {
		if m.isInvoked(i) {
			p.ProgramKeys = append(p.ProgramKeys, keys[i])
		}
	}
	for i, l := range m.AddressTableLookups {
		p.AddressTableLookups[i] = ParsedLookup{AddressTableKey: l.AccountKey.String(), WritableIndexes: l.WritableIndexes, ReadonlyIndexes: l.ReadonlyIndexes}
	}
	for n, in := range m.Instructions {
		pi := &p.Instructions[n]
		pi.ProgramKey = keys[in.ProgramIDIndex]
		pi.InstructionDataHex = hex.EncodeToString(in.Data)
		pi.Accounts = []Account{}
		pi.AddressTableLookups = []InstructionLookup{}
		addrs := make([]string, len(in.Accounts)) // every account in order, lookups as the placeholder
		for j, a := range in.Accounts {
			if static, l := m.accountAt(int(a)); static {
				pi.Accounts = append(pi.Accounts, Account{AccountKey: keys[a], Signer: m.IsSigner(int(a)), Writable: m.IsWritable(int(a))})
				addrs[j] = keys[a]
			} else {
				pi.AddressTableLookups = append(pi.AddressTableLookups, l)
				addrs[j] = LookupPlaceholder
			}
		}
		pi.Addresses = addrs
		var err error
		switch m.AccountKeys[in.ProgramIDIndex] {
		case SystemProgram:
			err = p.systemInstruction(n, in.Data, addrs)
		case TokenProgram, Token2022Program:
			err = p.tokenInstruction(n, in.Data, addrs)
		}
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// The System Program instructions that move lamports (u32 tags), and where their amount and accounts are.
const (
	systemCreateAccount         = 0  // u64 lamports, u64 space, owner: funder, new account
	systemTransfer              = 2  // u64 lamports: from, to
	systemCreateAccountWithSeed = 3  // base, seed (u64 length, bytes), u64 lamports, u64 space, owner: funder, new account, [base]
	systemWithdrawNonceAccount  = 5  // u64 lamports: nonce account, to, recent blockhashes, rent, authority
	systemTransferWithSeed      = 11 // u64 lamports, seed, owner: from (derived), base, to
)

// systemInstruction records the lamports a System Program instruction moves. Data or accounts too short for it fail
// the parse: the runtime would fail the instruction too.
func (p *Parsed) systemInstruction(n int, data []byte, addrs []string) error {
	if len(data) < 4 {
		return nil
	}
	need := func(name string, dataLen, accounts int) error {
		if len(data) < dataLen {
			return fmt.Errorf("%w: instruction %d is a System Program %s with %d bytes of data; it needs %d", ErrInvalid, n, name, len(data), dataLen)
		}
		if len(addrs) < accounts {
			return fmt.Errorf("%w: instruction %d is a System Program %s with %d accounts; it needs %d", ErrInvalid, n, name, len(addrs), accounts)
		}
		return nil
	}
	var t Transfer
	var authority string
	switch binary.LittleEndian.Uint32(data) {
	case systemTransfer:
		if err := need("transfer", 12, 2); err != nil {
			return err
		}
		t = Transfer{From: addrs[0], To: addrs[1], Amount: binary.LittleEndian.Uint64(data[4:])}
		authority = addrs[0]
	case systemCreateAccount:
		if err := need("CreateAccount", 52, 2); err != nil {
			return err
		}
		t = Transfer{From: addrs[0], To: addrs[1], Amount: binary.LittleEndian.Uint64(data[4:])}
		authority = addrs[0]
	case systemCreateAccountWithSeed:
		if err := need("CreateAccountWithSeed", 4+32+8, 2); err != nil {
			return err
		}
		seedLen := binary.LittleEndian.Uint64(data[36:])
		if seedLen > uint64(len(data)) || len(data) < 44+int(seedLen)+8+8+32 {
			return fmt.Errorf("%w: instruction %d is a System Program CreateAccountWithSeed whose data is cut short", ErrInvalid, n)
		}
		t = Transfer{From: addrs[0], To: addrs[1], Amount: binary.LittleEndian.Uint64(data[44+seedLen:])}
		authority = addrs[0]
	case systemWithdrawNonceAccount:
		if err := need("WithdrawNonceAccount", 12, 5); err != nil {
			return err
		}
		t = Transfer{From: addrs[0], To: addrs[1], Amount: binary.LittleEndian.Uint64(data[4:])}
		authority = addrs[4]
	case systemTransferWithSeed:
		if err := need("TransferWithSeed", 12, 3); err != nil {
			return err
		}
		t = Transfer{From: addrs[0], To: addrs[2], Amount: binary.LittleEndian.Uint64(data[4:])}
		authority = addrs[1]
	default:
		return nil
	}
	p.Transfers, p.authorities = append(p.Transfers, t), append(p.authorities, authority)
	return nil
}

// tokenInstruction records a token transfer of the Token or Token-2022 program:
//
//	Transfer (3, u64 amount): source, destination, owner, multisig signers...
//	TransferChecked (12, u64 amount, u8 decimals): source, mint, destination, owner, signers...
//	TransferCheckedWithFee (26 then 1, u64 amount, u8 decimals, u64 fee): source, mint, destination, owner, signers...
func (p *Parsed) tokenInstruction(n int, data []byte, addrs []string) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: instruction %d calls a token program without data", ErrInvalid, n)
	}
	short := func(name string, need int) error {
		return fmt.Errorf("%w: instruction %d is a token %s with %d bytes of data; it needs %d", ErrInvalid, n, name, len(data), need)
	}
	accounts := func(name string, need int) error {
		if len(addrs) < need {
			return fmt.Errorf("%w: instruction %d is a token %s with %d accounts; it needs %d", ErrInvalid, n, name, len(addrs), need)
		}
		return nil
	}
	var t SPLTransfer
	switch data[0] {
	case 3:
		if len(data) < 9 {
			return short("Transfer", 9)
		}
		if err := accounts("Transfer", 3); err != nil {
			return err
		}
		t = SPLTransfer{From: addrs[0], To: addrs[1], Owner: addrs[2], Amount: binary.LittleEndian.Uint64(data[1:]), Signers: addrs[3:]}
	case 12:
		if len(data) < 10 {
			return short("TransferChecked", 10)
		}
		if err := accounts("TransferChecked", 4); err != nil {
			return err
		}
		d := data[9]
		t = SPLTransfer{From: addrs[0], TokenMint: addrs[1], To: addrs[2], Owner: addrs[3],
			Amount: binary.LittleEndian.Uint64(data[1:]), Decimals: &d, Signers: addrs[4:]}
	case 26:
		if len(data) < 2 || data[1] != 1 {
			return nil // another transfer-fee extension instruction
		}
		if len(data) < 19 {
			return short("TransferCheckedWithFee", 19)
		}
		if err := accounts("TransferCheckedWithFee", 4); err != nil {
			return err
		}
		d, fee := data[10], binary.LittleEndian.Uint64(data[11:])
		t = SPLTransfer{From: addrs[0], TokenMint: addrs[1], To: addrs[2], Owner: addrs[3],
			Amount: binary.LittleEndian.Uint64(data[2:]), Decimals: &d, Fee: &fee, Signers: addrs[4:]}
	default:
		return nil
	}
	t.Signers = append([]string{}, t.Signers...)
	p.SPLTransfers = append(p.SPLTransfers, t)
	return nil
}
