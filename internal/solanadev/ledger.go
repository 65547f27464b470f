package solanadev

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/solana"
)

// The ledger's constants, Solana's own.
const (
	// LamportsPerSignature is the fee of each of a transaction's signatures.
	LamportsPerSignature = 5000
	// MaxProcessingAge is how many blocks a blockhash stays usable after its own.
	MaxProcessingAge = 150
	// ConfirmedDepth and FinalizedDepth are how many slots after its own a transaction is confirmed and finalized.
	ConfirmedDepth = 1
	FinalizedDepth = 32
	// rent: (128 bytes of account overhead + data) × 3,480 lamports per byte-year × 2 years.
	accountOverhead   = 128
	lamportsPerByteYr = 3480
	exemptionYears    = 2
	maxAccountData    = 10 << 20
)

// ComputeBudgetProgram is accepted and does nothing here (priority fees are not charged).
var ComputeBudgetProgram = mustKey("ComputeBudget111111111111111111111111111111")

func mustKey(s string) solana.Key {
	k, err := solana.ParseKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

// MinimumBalanceForRentExemption is the lamports an account of dataLen bytes must hold to exist.
func MinimumBalanceForRentExemption(dataLen uint64) uint64 {
	return (accountOverhead + dataLen) * lamportsPerByteYr * exemptionYears
}

// Account is an account of the ledger.
type Account struct {
	Lamports uint64     `json:"lamports"`
	Owner    solana.Key `json:"owner"`
	Data     []byte     `json:"data,omitempty"`
}

// TxRecord is a transaction the ledger processed: its slot, what it cost and why it failed (nil: it succeeded).
type TxRecord struct {
	Slot         uint64          `json:"slot"`
	BlockTime    int64           `json:"blockTime"`
	Raw          []byte          `json:"raw"`
	Fee          uint64          `json:"fee"`
	PreBalances  []uint64        `json:"preBalances"`
	PostBalances []uint64        `json:"postBalances"`
	Err          json.RawMessage `json:"err,omitempty"` // the runtime's TransactionError, as the RPC shows it
	Logs         []string        `json:"logs"`
}

// TxError is a transaction the runtime refused: its TransactionError as JSON (the RPC's err field), and logs.
type TxError struct {
	Err  json.RawMessage
	Logs []string
	// Message is what the RPC says of it ("Transaction simulation failed: " + Message).
	Message string
}

func (e *TxError) Error() string { return e.Message }

func txErr(message string, err any, logs ...string) *TxError {
	b, _ := json.Marshal(err)
	return &TxError{Err: b, Message: message, Logs: logs}
}

func instructionErr(i int, err any, logs ...string) *TxError {
	return txErr(fmt.Sprintf("Error processing Instruction %d: %v", i, instructionMessage(err)), map[string]any{"InstructionError": []any{i, err}}, logs...)
}

func instructionMessage(err any) string {
	switch e := err.(type) {
	case map[string]any:
		if c, ok := e["Custom"]; ok {
			return fmt.Sprintf("custom program error: 0x%x", c)
		}
	case string:
		switch e {
		case "UnsupportedProgramId":
			return "Unsupported program id"
		case "MissingRequiredSignature":
			return "missing required signature for instruction"
		case "InvalidInstructionData":
			return "invalid instruction data"
		case "NotEnoughAccountKeys":
			return "insufficient account keys for instruction"
		case "ReadonlyLamportChange":
			return "instruction changed the balance of a read-only account"
		case "InvalidArgument":
			return "invalid program argument"
		}
	}
	return fmt.Sprint(err)
}

// ErrSignature is a transaction whose signatures do not verify (the RPC's -32003).
type ErrSignature struct{ Index int }

func (e ErrSignature) Error() string { return "Transaction signature verification failure" }

// verify checks each signature slot against its signer's key and the message.
func verify(tx *solana.Transaction) error {
	msg := tx.Message.Bytes()
	for i, sig := range tx.Signatures {
		if !ed25519.Verify(tx.Message.AccountKeys[i][:], msg, sig[:]) {
			return ErrSignature{i}
		}
	}
	return nil
}

// blockhashOf is the blockhash of a slot: derived from the genesis hash, so the queue is known again after a restart.
func blockhashOf(genesis solana.Key, slot uint64) solana.Key {
	return sha256.Sum256(binary.LittleEndian.AppendUint64(append([]byte("sigil-solana-dev blockhash"), genesis[:]...), slot))
}

// accounts is a working copy of the accounts a transaction touches.
type accounts struct {
	base    map[solana.Key]*Account
	touched map[solana.Key]*Account
}

func (a *accounts) get(k solana.Key) *Account {
	if acc, ok := a.touched[k]; ok {
		return acc
	}
	acc := &Account{}
	if was, ok := a.base[k]; ok {
		acc.Lamports, acc.Owner, acc.Data = was.Lamports, was.Owner, append([]byte(nil), was.Data...)
	}
	a.touched[k] = acc
	return acc
}

// execute runs a message's instructions over a working copy of the accounts, the fee already taken from the payer.
// Only the System Program's Transfer and CreateAccount run (and Compute Budget instructions, which do nothing): any
// other program fails its instruction with UnsupportedProgramId.
func execute(tx *solana.Transaction, a *accounts) *TxError {
	m := &tx.Message
	if len(m.AddressTableLookups) > 0 {
		return txErr("Transaction loads an address table account that doesn't exist", "AddressLookupTableNotFound")
	}
	var logs []string
	for i, in := range m.Instructions {
		program := m.AccountKeys[in.ProgramIDIndex]
		logs = append(logs, fmt.Sprintf("Program %s invoke [1]", program))
		var err *TxError
		switch program {
		case solana.SystemProgram:
			err = system(i, m, in, a, &logs)
		case ComputeBudgetProgram:
		default:
			return instructionErr(i, "UnsupportedProgramId", append(logs, fmt.Sprintf("Program %s is not supported by the Sigil dev node (only the System Program's Transfer and CreateAccount run)", program))...)
		}
		if err != nil {
			err.Logs = append(logs, append(err.Logs, fmt.Sprintf("Program %s failed: %s", program, instructionMessage(errOf(err))))...)
			return err
		}
		logs = append(logs, fmt.Sprintf("Program %s success", program))
	}
	for i, k := range m.AccountKeys {
		acc := a.touched[k]
		if acc != nil && acc.Lamports > 0 && acc.Lamports < MinimumBalanceForRentExemption(uint64(len(acc.Data))) && m.IsWritable(i) {
			return txErr(fmt.Sprintf("Transaction results in an account (%d) with insufficient funds for rent", i),
				map[string]any{"InsufficientFundsForRent": map[string]int{"account_index": i}}, logs...)
		}
	}
	return &TxError{Logs: logs} // no Err: success
}

// errOf is the instruction error inside an InstructionError, for the log line.
func errOf(e *TxError) any {
	var v struct{ InstructionError []any }
	if json.Unmarshal(e.Err, &v) == nil && len(v.InstructionError) == 2 {
		return v.InstructionError[1]
	}
	return string(e.Err)
}

// system runs a System Program instruction: Transfer (2) and CreateAccount (0).
func system(i int, m *solana.Message, in solana.Instruction, a *accounts, logs *[]string) *TxError {
	if len(in.Data) < 4 {
		return instructionErr(i, "InvalidInstructionData")
	}
	key := func(j int) solana.Key { return m.AccountKeys[in.Accounts[j]] }
	signer := func(j int) bool { return m.IsSigner(int(in.Accounts[j])) }
	writable := func(j int) bool { return m.IsWritable(int(in.Accounts[j])) }
	switch binary.LittleEndian.Uint32(in.Data) {
	case 2: // Transfer { lamports: u64 }
		if len(in.Data) != 12 {
			return instructionErr(i, "InvalidInstructionData")
		}
		if len(in.Accounts) < 2 {
			return instructionErr(i, "NotEnoughAccountKeys")
		}
		return transfer(i, a, key(0), key(1), signer(0), writable(0) && writable(1), binary.LittleEndian.Uint64(in.Data[4:]))
	case 0: // CreateAccount { lamports: u64, space: u64, owner: Pubkey }
		if len(in.Data) != 52 {
			return instructionErr(i, "InvalidInstructionData")
		}
		if len(in.Accounts) < 2 {
			return instructionErr(i, "NotEnoughAccountKeys")
		}
		lamports, space := binary.LittleEndian.Uint64(in.Data[4:]), binary.LittleEndian.Uint64(in.Data[12:])
		var owner solana.Key
		copy(owner[:], in.Data[20:])
		to := a.get(key(1))
		if to.Lamports > 0 || len(to.Data) > 0 || to.Owner != solana.SystemProgram {
			*logs = append(*logs, fmt.Sprintf("Create Account: account Address { address: %s, base: None } already in use", key(1)))
			return instructionErr(i, map[string]any{"Custom": 0}) // SystemError::AccountAlreadyInUse
		}
		if !signer(1) {
			*logs = append(*logs, fmt.Sprintf("Allocate: 'to' account %s must sign", key(1)))
			return instructionErr(i, "MissingRequiredSignature")
		}
		if space > maxAccountData {
			return instructionErr(i, map[string]any{"Custom": 3}) // SystemError::InvalidAccountDataLength
		}
		if err := transfer(i, a, key(0), key(1), signer(0), writable(0) && writable(1), lamports); err != nil {
			return err
		}
		to.Data, to.Owner = make([]byte, space), owner
		return nil
	}
	*logs = append(*logs, "Program 11111111111111111111111111111111: only Transfer and CreateAccount run on the Sigil dev node")
	return instructionErr(i, "InvalidInstructionData")
}

func transfer(i int, a *accounts, fromKey, toKey solana.Key, signed, writable bool, lamports uint64) *TxError {
	if !signed {
		return instructionErr(i, "MissingRequiredSignature", fmt.Sprintf("Transfer: `from` account %s must sign", fromKey))
	}
	if !writable {
		return instructionErr(i, "ReadonlyLamportChange")
	}
	from := a.get(fromKey)
	if len(from.Data) > 0 || from.Owner != solana.SystemProgram {
		return instructionErr(i, "InvalidArgument", "Transfer: `from` must not carry data")
	}
	if from.Lamports < lamports {
		return instructionErr(i, map[string]any{"Custom": 1}, // SystemError::ResultWithNegativeLamports
			fmt.Sprintf("Transfer: insufficient lamports %d, need %d", from.Lamports, lamports))
	}
	to := a.get(toKey)
	from.Lamports -= lamports
	to.Lamports += lamports
	return nil
}

func base58(b []byte) string { return keys.Base58Encode(b) }
