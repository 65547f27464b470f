package solana

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/base58"

	"github.com/sigil/sigil/internal/keys"
)

type fixture struct {
	Name       string `json:"name"`
	Hex        string `json:"hex"`
	MessageHex string `json:"message_hex"`
	Expect     struct {
		Version      int      `json:"version"`
		Header       []uint8  `json:"header"`
		AccountKeys  []string `json:"account_keys"`
		ProgramKeys  []string `json:"program_keys"`
		Blockhash    string   `json:"recent_blockhash"`
		Signers      []string `json:"signers"`
		Writable     []string `json:"writable"`
		Instructions []struct {
			ProgramKey string   `json:"program_key"`
			Accounts   []string `json:"accounts"`
			Lookups    int      `json:"lookups"`
			Data       string   `json:"instruction_data_hex"`
		} `json:"instructions"`
		Transfers []struct {
			From, To, Amount string
		} `json:"transfers"`
		SPLTransfers []struct {
			From      string   `json:"from"`
			To        string   `json:"to"`
			Owner     string   `json:"owner"`
			TokenMint string   `json:"token_mint"`
			Amount    string   `json:"amount"`
			Decimals  *uint8   `json:"decimals"`
			Fee       *string  `json:"fee"`
			Signers   []string `json:"signers"`
		} `json:"spl_transfers"`
		Lookups []struct {
			Key      string  `json:"address_table_key"`
			Writable []uint8 `json:"writable_indexes"`
			Readonly []uint8 `json:"readonly_indexes"`
		} `json:"address_table_lookups"`
	} `json:"expect"`
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/transactions.json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fixture
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The transactions of testdata/transactions.json were built with @solana/web3.js and @solana/spl-token
// (testdata/generate.mjs), which also decoded what each holds: the parser must read the same.
func TestParseMatchesWeb3(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			raw := mustHex(t, f.Hex)
			tx, err := ParseTransaction(raw)
			if err != nil {
				t.Fatal(err)
			}
			e, m, p := f.Expect, &tx.Message, tx.Parsed
			if m.Version != e.Version || !slices.Equal([]uint8{m.Header.NumRequiredSignatures, m.Header.NumReadonlySignedAccounts, m.Header.NumReadonlyUnsignedAccount}, e.Header) {
				t.Errorf("version %d header %+v, want %d %v", m.Version, m.Header, e.Version, e.Header)
			}
			if !bytes.Equal(m.Bytes(), mustHex(t, f.MessageHex)) {
				t.Error("message bytes differ from web3.js's message.serialize()")
			}
			if !bytes.Equal(tx.Serialize(), raw) {
				t.Error("Serialize does not give the transaction back")
			}
			if !slices.Equal(p.AccountKeys, e.AccountKeys) || !slices.Equal(p.ProgramKeys, e.ProgramKeys) || p.RecentBlockhash != e.Blockhash {
				t.Errorf("keys %v programs %v blockhash %s", p.AccountKeys, p.ProgramKeys, p.RecentBlockhash)
			}
			var signers, writable []string
			for i, k := range p.AccountKeys {
				if m.IsSigner(i) {
					signers = append(signers, k)
				}
				if m.IsWritable(i) {
					writable = append(writable, k)
				}
			}
			if !slices.Equal(signers, e.Signers) || !slices.Equal(writable, e.Writable) {
				t.Errorf("signers %v writable %v, want %v %v", signers, writable, e.Signers, e.Writable)
			}
			if len(p.Instructions) != len(e.Instructions) {
				t.Fatalf("%d instructions, want %d", len(p.Instructions), len(e.Instructions))
			}
			for i, in := range p.Instructions {
				want := e.Instructions[i]
				var accounts []string
				for _, a := range in.Accounts {
					accounts = append(accounts, a.AccountKey)
					if a.Signer != slices.Contains(e.Signers, a.AccountKey) || a.Writable != slices.Contains(e.Writable, a.AccountKey) {
						t.Errorf("instruction %d account %s signer %v writable %v", i, a.AccountKey, a.Signer, a.Writable)
					}
				}
				if in.ProgramKey != want.ProgramKey || !slices.Equal(accounts, want.Accounts) || len(in.AddressTableLookups) != want.Lookups || in.InstructionDataHex != want.Data {
					t.Errorf("instruction %d: %+v, want %+v", i, in, want)
				}
			}
			if len(p.Transfers) != len(e.Transfers) {
				t.Fatalf("transfers %+v, want %+v", p.Transfers, e.Transfers)
			}
			for i, tr := range p.Transfers {
				if w := e.Transfers[i]; tr.From != w.From || tr.To != w.To || strconv.FormatUint(tr.Amount, 10) != w.Amount {
					t.Errorf("transfer %d: %+v, want %+v", i, tr, w)
				}
			}
			if len(p.SPLTransfers) != len(e.SPLTransfers) {
				t.Fatalf("SPL transfers %+v, want %+v", p.SPLTransfers, e.SPLTransfers)
			}
			for i, tr := range p.SPLTransfers {
				w := e.SPLTransfers[i]
				if tr.From != w.From || tr.To != w.To || tr.Owner != w.Owner || tr.TokenMint != w.TokenMint ||
					strconv.FormatUint(tr.Amount, 10) != w.Amount || !slices.Equal(tr.Signers, append([]string{}, w.Signers...)) {
					t.Errorf("SPL transfer %d: %+v, want %+v", i, tr, w)
				}
				if (tr.Decimals == nil) != (w.Decimals == nil) || tr.Decimals != nil && *tr.Decimals != *w.Decimals {
					t.Errorf("SPL transfer %d: decimals %v, want %v", i, tr.Decimals, w.Decimals)
				}
				if (tr.Fee == nil) != (w.Fee == nil) || tr.Fee != nil && strconv.FormatUint(*tr.Fee, 10) != *w.Fee {
					t.Errorf("SPL transfer %d: fee %v, want %v", i, tr.Fee, w.Fee)
				}
			}
			if len(p.AddressTableLookups) != len(e.Lookups) {
				t.Fatalf("lookups %+v, want %+v", p.AddressTableLookups, e.Lookups)
			}
			for i, l := range p.AddressTableLookups {
				w := e.Lookups[i]
				if l.AddressTableKey != w.Key || !slices.Equal(l.WritableIndexes, w.Writable) || !slices.Equal(l.ReadonlyIndexes, w.Readonly) {
					t.Errorf("lookup %d: %+v, want %+v", i, l, w)
				}
			}
		})
	}
}

// The v0 fixture's lookups resolve in the runtime's order: every table's writable indexes, then the read-only ones.
func TestLookupResolution(t *testing.T) {
	var v0 fixture
	for _, f := range fixtures(t) {
		if strings.HasPrefix(f.Name, "v0") {
			v0 = f
		}
	}
	tx, err := ParseTransaction(mustHex(t, v0.Hex))
	if err != nil {
		t.Fatal(err)
	}
	got := [][]InstructionLookup{}
	for _, in := range tx.Parsed.Instructions {
		got = append(got, in.AddressTableLookups)
	}
	table := tx.Parsed.AddressTableLookups[0].AddressTableKey
	want := [][]InstructionLookup{{}, {}, {{table, 0, true}}, {{table, 1, true}}, {{table, 2, false}}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("instruction %d: lookups %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseErrors(t *testing.T) {
	legacy := mustHex(t, fixtures(t)[0].Hex) // one signature slot, 3 keys: payer, recipient, system program
	msg := 1 + 64                            // where the message starts
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, legacy...)) }
	tests := []struct {
		name string
		tx   []byte
		want string
	}{
		{"empty", nil, "ends before its length of its signatures"},
		{"no message", legacy[:msg], "ends before its message"},
		{"truncated", legacy[:len(legacy)-1], "ends inside its instruction's data"},
		{"trailing byte", append(append([]byte{}, legacy...), 0), "1 bytes follow the message"},
		{"two signature slots for one signer", mut(func(b []byte) []byte {
			b[0] = 2
			return append(b[:1], append(make([]byte, 64), b[1:]...)...)
		}), "2 signature slots, but the message has 1 signers"},
		{"non-canonical length", mut(func(b []byte) []byte { return append([]byte{0x81, 0x00}, b[1:]...) }), "not in its shortest encoding"},
		{"length over 16 bits", append([]byte{0xff, 0xff, 0x04}, legacy[1:]...), "does not fit 16 bits"},
		{"version 1", mut(func(b []byte) []byte { return append(b[:msg:msg], append([]byte{0x81}, b[msg:]...)...) }), "message version 1 is not supported"},
		{"no signer", mut(func(b []byte) []byte { b[msg] = 0; return append([]byte{0}, b[msg:]...) }), "the message has no signer"},
		{"header overflows the keys", mut(func(b []byte) []byte { b[msg+2] = 3; return b }), "1 signers and 3 read-only unsigned accounts, but there are 3 account keys"},
		{"read-only fee payer", mut(func(b []byte) []byte { b[msg+1] = 1; return b }), "every signer read-only"},
		{"duplicate key", mut(func(b []byte) []byte { copy(b[msg+4+32:], b[msg+4:msg+4+32]); return b }), "appears twice"},
		{"program index out of range", mut(func(b []byte) []byte { b[msg+4+3*32+32+1] = 9; return b }), "program index 9 is out of range"},
		{"program is the payer", mut(func(b []byte) []byte { b[msg+4+3*32+32+1] = 0; return b }), "program is the fee payer"},
		{"account index out of range", mut(func(b []byte) []byte { b[msg+4+3*32+32+3] = 7; return b }), "account index 7 is out of range"},
		{"short transfer data", mut(func(b []byte) []byte {
			i := msg + 4 + 3*32 + 32 + 1 + 1 + 1 + 2 // the data's length byte
			b[i] = 8
			return b[:i+1+8]
		}), "System Program transfer with 8 bytes of data"},
		{"too big", make([]byte, MaxTransactionSize+1), "more than the 1232"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTransaction(tt.tx)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseTransaction = %v, want an ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

// A program loaded from a lookup table is refused: the v0 fixture's table holds the token program at index 3.
func TestProgramFromLookupRefused(t *testing.T) {
	var v0 fixture
	for _, f := range fixtures(t) {
		if strings.HasPrefix(f.Name, "v0") {
			v0 = f
		}
	}
	raw := mustHex(t, v0.Hex)
	tx, _ := ParseTransaction(raw)
	// Point the memo instruction's program at the first loaded account.
	m := tx.Message
	idx := bytes.Index(raw, append([]byte{byte(slices.Index(m.AccountKeys, mustKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"))), 1}, m.Instructions[4].Accounts...))
	if idx < 0 {
		t.Fatal("memo instruction not found")
	}
	raw[idx] = byte(len(m.AccountKeys))
	if _, err := ParseTransaction(raw); err == nil || !strings.Contains(err.Error(), "loads its program from an address lookup table") {
		t.Errorf("ParseTransaction = %v", err)
	}
}

func TestBase58(t *testing.T) {
	for _, h := range []string{"", "00", "0000", "61", "626262", "00eb15231dfceb60925886b67d065299925915aeb172c06647",
		"0000000000000000000000000000000000000000000000000000000000000000", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		"0000000001", "0100000000", "06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9"} {
		b := mustHex(t, h)
		if got, want := keys.Base58Encode(b), base58.Encode(b); got != want {
			t.Errorf("keys.Base58Encode(%s) = %s, want %s", h, got, want)
		}
	}
	if SystemProgram.String() != "11111111111111111111111111111111" || TokenProgram.String() != "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" {
		t.Error("program keys do not round-trip")
	}
}

func FuzzBase58(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3})
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := keys.Base58Encode(b), base58.Encode(b); got != want {
			t.Fatalf("keys.Base58Encode(%x) = %s, want %s", b, got, want)
		}
	})
}

// FuzzParseTransaction: any input either fails with ErrInvalid or parses into a transaction that serializes back to
// the same bytes, whose message parses alone, and whose view has an entry per instruction.
func FuzzParseTransaction(f *testing.F) {
	for _, fx := range fixtures(f) {
		f.Add(mustHex(f, fx.Hex))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := ParseTransaction(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if !bytes.Equal(tx.Serialize(), b) {
			t.Fatal("Serialize does not give the input back")
		}
		if _, err := ParseMessage(tx.Message.Bytes()); err != nil {
			t.Fatalf("the message does not parse alone: %v", err)
		}
		if len(tx.Parsed.Instructions) != len(tx.Message.Instructions) || len(tx.Parsed.AccountKeys) != len(tx.Message.AccountKeys) {
			t.Fatal("the view does not match the message")
		}
	})
}
