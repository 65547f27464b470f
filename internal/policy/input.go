package policy

import (
	"math/big"
	"time"
)

// Input is everything an expression can read about one request. The coordinator fills
// it once per decision; expressions only read it, so one Input may be shared by
// concurrent evaluations.
//
// A nil pointer (or a nil Wallets slice) means the keyword does not apply to this
// request: reading it is an evaluation error, never a zero value.
type Input struct {
	Activity Activity

	// Now is the request's trusted server time, which the time field reads as time.now.
	Now time.Time

	// Controls says, by identifier, whether each velocity control that measures this activity passes with it.
	Controls map[string]bool
	// ControlErrors says, by identifier, why a velocity control that measures this activity cannot say whether it
	// passes (the activity may move a measured asset by an amount that cannot be read): reading it is an evaluation
	// error, so that the control fails closed.
	ControlErrors map[string]string

	// Approvers are the users whose approval votes count, the submitter first.
	// Credentials are the credentials those votes were made with. Both feed the
	// consensus keywords; nil means none.
	Approvers   []User
	Credentials []Credential

	EthTx                *EthTx                // an Ethereum transaction being signed
	EIP712               *EIP712               // an EIP-712 typed-data payload being signed
	EIP7702Authorization *EIP7702Authorization // an EIP-7702 authorization being signed
	SolanaTx             *SolanaTx             // a Solana transaction being signed
	BitcoinTx            *BitcoinTx            // the transaction of a PSBT being signed
	TronTx               *TronTx               // a Tron transaction being signed
	Wallet               *Wallet               // the wallet the request acts on or signs with
	Wallets              []Wallet              // the wallets an activity acts on; nil when it acts on none
	WalletAccount        *WalletAccount        // the wallet account that signs or is exported
	PrivateKey           *PrivateKey           // the private key the request acts on or signs with
	Secret               *Secret               // the secret (Secrets API) the request imports, exports or deletes
}

// Activity holds the facts about the activity itself, as its type's definition gives
// them. Kind is the type without the ACTIVITY_TYPE_ prefix and the _Vn suffix, empty for
// root-only types. Params holds the parameters the type exposes (from Params), with Go values of type string, []string, bool, int, int64, uint64 or *big.Int.
type Activity struct {
	Type     string
	Kind     string
	Resource string
	Action   string
	Params   map[string]any
}

// User is one approver.
type User struct {
	ID    string
	Email string
	Alias string
	Tags  []string // user-tag IDs
}

// Credential is the credential an approval vote was made with.
type Credential struct {
	ID           string
	UserID       string
	PublicKey    string
	CredentialID string // WebAuthn credential ID, passkeys only
	Type         string // CREDENTIAL_TYPE_...
}

// EthTx is a decoded unsigned Ethereum transaction. Addresses and Data are hex with
// the 0x prefix. A nil integer means the transaction type has no such field (for
// example MaxFeePerBlobGas on a legacy transaction); reading it is an evaluation error.
type EthTx struct {
	From string
	To   string
	Data string
	Type string // LEGACY, TYPE_1, TYPE_2, TYPE_3 or TYPE_4

	Value                *big.Int
	Gas                  *big.Int
	GasPrice             *big.Int // equals MaxFeePerGas on EIP-1559 transactions
	ChainID              *big.Int
	Nonce                *big.Int
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	MaxFeePerBlobGas     *big.Int

	// Call is the calldata decoded with the contract interface uploaded for To; nil when there is none or the
	// calldata does not match it, and then function_name, function_signature and contract_call_args are absent.
	Call *ContractCall
}

// ContractCall is a call decoded with a contract's ABI.
type ContractCall struct {
	FunctionName      string // transfer
	FunctionSignature string // transfer(address,uint256); policies read its selector (0xa9059cbb)
	// Args are the arguments by name, as JSON-decoded values: addresses and bytes as 0x-hex strings, integers as
	// json.Number, bools, strings, and arrays and tuples as []any (tuple fields by position).
	Args map[string]any
}

// EIP712 is a typed-data payload. Message is the message as decoded JSON
// (map[string]any, []any, string, bool, nil, json.Number or float64); decode it with
// json.Decoder.UseNumber so large integers keep every digit.
type EIP712 struct {
	PrimaryType string
	Domain      EIP712Domain
	Message     map[string]any
}

// EIP712Domain is the EIP-712 domain separator's fields. ChainID is nil when absent.
type EIP712Domain struct {
	Name              string
	Version           string
	ChainID           *big.Int
	VerifyingContract string
}

// EIP7702Authorization is an EIP-7702 authorization tuple being signed.
type EIP7702Authorization struct {
	Address string
	ChainID *big.Int
	Nonce   *big.Int
}

// Wallet is an HD wallet.
type Wallet struct {
	ID       string
	Label    string
	Imported bool
	Exported bool
}

// WalletAccount is one derived account. PathIndexes are the derivation indexes without
// the hardened bit; PathHardened says which of them are hardened.
type WalletAccount struct {
	Address      string
	PathIndexes  []uint32
	PathHardened []bool
}

// PrivateKey is a standalone private key.
type PrivateKey struct {
	ID       string
	Label    string
	Tags     []string
	Imported bool
	Exported bool
}

// Secret is a secret of the Secrets API as policies see it: what it was imported with, never its value. StaticProperties
// are read as secret.static_properties['key']; a key it does not have is an evaluation error (MissingField). ID is ""
// while it is being imported.
type Secret struct {
	ID               string
	Name             string
	StaticProperties map[string]string
}

// properties is StaticProperties as the evaluator reads a dynamic map.
func (s *Secret) properties() map[string]any {
	m := make(map[string]any, len(s.StaticProperties))
	for k, v := range s.StaticProperties {
		m[k] = v
	}
	return m
}
