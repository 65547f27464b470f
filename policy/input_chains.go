package policy

// SolanaTx is a parsed Solana transaction (solana.tx). Addresses are base58; an account loaded from an address lookup
// table reads as the literal ADDRESS_TABLE_LOOKUP wherever an address is expected (transfers, SPL transfers), and is
// listed in its instruction's AddressTableLookups instead of its Accounts.
type SolanaTx struct {
	AccountKeys         []string // the static account keys
	ProgramKeys         []string // the static keys invoked as programs
	RecentBlockhash     string
	Instructions        []SolanaInstruction
	Transfers           []SolanaTransfer    // top-level System Program transfers
	SPLTransfers        []SolanaSPLTransfer // top-level Token and Token-2022 transfers
	AddressTableLookups []SolanaAddressTableLookup
}

// SolanaInstruction is one instruction; InstructionDataHex is lower-case hex without 0x.
type SolanaInstruction struct {
	ProgramKey          string
	Accounts            []SolanaAccount
	InstructionDataHex  string
	AddressTableLookups []SolanaInstructionLookup
}

// SolanaAccount is a static account an instruction names.
type SolanaAccount struct {
	AccountKey string
	Signer     bool
	Writable   bool
}

// SolanaInstructionLookup is an account an instruction loads from a lookup table.
type SolanaInstructionLookup struct {
	AddressTableKey string
	Index           uint32
	Writable        bool
}

// SolanaTransfer is a transfer of lamports.
type SolanaTransfer struct {
	From, To string
	Amount   uint64
}

// SolanaSPLTransfer is a token transfer: From and To are token accounts, Owner the source's owner, Signers its
// multisig signers, TokenMint empty for a plain Transfer.
type SolanaSPLTransfer struct {
	From, To, Owner, TokenMint string
	Amount                     uint64
	Signers                    []string
}

// SolanaAddressTableLookup is one of the message's address table lookups.
type SolanaAddressTableLookup struct {
	AddressTableKey string
	WritableIndexes []uint32
	ReadonlyIndexes []uint32
}
