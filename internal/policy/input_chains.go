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
	// Parsed is the instruction decoded with the IDL uploaded for its program; nil when there is none or the data
	// does not match it, and then parsed_instruction_data is absent.
	Parsed *SolanaParsedInstruction
}

// SolanaParsedInstruction is an instruction decoded with its program's IDL (parsed_instruction_data). Names are the
// IDL's as written, Discriminator lower-case hex.
type SolanaParsedInstruction struct {
	InstructionName string
	Discriminator   string
	// NamedAccounts maps the IDL's account names to addresses (map[string]any of strings, as policies index it).
	NamedAccounts map[string]any
	// ProgramCallArgs are the arguments by name as JSON-like values: integers as json.Number, public keys base58,
	// bytes as hex, vectors as []any, structs as maps, enum variants as their name or {name: fields}.
	ProgramCallArgs map[string]any
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

// BitcoinTx is the transaction of a PSBT being signed (bitcoin.tx).
type BitcoinTx struct {
	Version  string // in decimal, a string as the reference types it
	Inputs   []BitcoinInput
	Outputs  []BitcoinOutput
	Locktime BitcoinLocktime
	Fee      *uint64 // nil when the PSBT lacks an input's spent output: reading it is an evaluation error
}

// BitcoinInput is an input's outpoint (TxID as written, byte-reversed hex) and sequence.
type BitcoinInput struct {
	TxID     string
	Vout     uint32
	Sequence uint32
}

// BitcoinOutput is an output: value in satoshis, script as lower-case hex, address in the signer's network and its
// type (P2PKH, P2SH, P2WPKH, P2WSH, P2TR; NULL_DATA, WITNESS_UNKNOWN or NONSTANDARD with an empty address).
type BitcoinOutput struct {
	Value        uint64
	ScriptPubKey string
	Address      string
	AddressType  string
}

// BitcoinLocktime is the lock time and whether it counts Blocks or Seconds.
type BitcoinLocktime struct {
	Amount uint64
	Type   string
}

// TronTx is a Tron transaction being signed (tron.tx). Hex fields are lower case without 0x; addresses are base58
// (T...).
type TronTx struct {
	RefBlockBytes string
	RefBlockHash  string
	Expiration    uint64 // milliseconds
	Timestamp     uint64 // milliseconds
	Data          string // the memo, hex
	FeeLimit      uint64 // SUN
	Contract      []TronContract
}

// TronContract is a transaction's contract. A nil field is one its type does not have: reading it is an evaluation
// error, so that a policy on amount never matches a contract that has none.
type TronContract struct {
	Type         string // the ContractType name, e.g. TransferContract
	PermissionID uint64

	OwnerAddress, ToAddress, ContractAddress, ReceiverAddress *string
	Amount, CallValue, CallTokenValue, TokenID                *uint64
	Balance, LockPeriod, FrozenBalance, UnfreezeBalance       *uint64
	Data                                                      *string // call data, hex
	Resource                                                  *string // BANDWIDTH, ENERGY or TRON_POWER
	Lock                                                      *bool
	Owner, Witness                                            *TronPermission
	Actives                                                   []TronPermission // nil unless AccountPermissionUpdateContract
}

// TronPermission is a permission of AccountPermissionUpdateContract.
type TronPermission struct {
	Type           string // Owner, Witness or Active
	ID             uint64
	PermissionName string
	Threshold      uint64
	ParentID       uint64
	Operations     string // hex
	Keys           []TronKey
}

// TronKey is an address's weight in a permission.
type TronKey struct {
	Address string
	Weight  uint64
}
