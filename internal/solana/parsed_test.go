package solana

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// systemMessage is a legacy message of one System Program instruction with data, over the keys (the first `signers`
// of them sign) in the order ix gives by index.
func systemMessage(t *testing.T, signers int, keys [][]byte, ix []byte, data []byte) *Parsed {
	t.Helper()
	msg := []byte{byte(signers), 0, 1, byte(len(keys) + 1)}
	for _, a := range keys {
		msg = append(msg, a...)
	}
	msg = append(msg, make([]byte, 32)...) // the System Program
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...)
	msg = append(msg, 1, byte(len(keys)), byte(len(ix)))
	msg = append(msg, ix...)
	msg = append(append(msg, byte(len(data))), data...)
	tx := append(append([]byte{byte(signers)}, make([]byte, 64*signers)...), msg...)
	parsed, err := ParseTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	return parsed.Parsed
}

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

// The System Program instructions that move lamports are transfers, with the signer that lets them go: the funding
// of CreateAccount and CreateAccountWithSeed (the funder), TransferWithSeed (from the derived account, on the base's
// authority) and WithdrawNonceAccount (on the nonce authority's); data too short for them fails the parse.
func TestSystemInstructionsThatMoveLamports(t *testing.T) {
	u64 := func(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
	funder, created, base, derived, to, authority := key(1), key(2), key(3), key(4), key(5), key(6)
	seed := append(u64(nil, 4), "seed"...)
	for _, c := range []struct {
		name     string
		signers  int
		keys     [][]byte
		ix       []byte
		data     []byte
		from, by []byte
		amount   uint64
	}{
		{"CreateAccount", 2, [][]byte{funder, created}, []byte{0, 1}, append(u64(u64([]byte{0, 0, 0, 0}, 7_000), 0), key(9)...), funder, funder, 7_000},
		{"CreateAccountWithSeed", 1, [][]byte{funder, created}, []byte{0, 1},
			append(u64(u64(append(append([]byte{3, 0, 0, 0}, base...), seed...), 8_000), 0), key(9)...), funder, funder, 8_000},
		{"TransferWithSeed", 1, [][]byte{base, derived, to}, []byte{1, 0, 2}, append(append(u64([]byte{11, 0, 0, 0}, 9_000), seed...), key(9)...), derived, base, 9_000},
		{"WithdrawNonceAccount", 1, [][]byte{authority, derived, to, key(10), key(11)}, []byte{1, 2, 3, 4, 0}, u64([]byte{5, 0, 0, 0}, 10_000), derived, authority, 10_000},
	} {
		p := systemMessage(t, c.signers, c.keys, c.ix, c.data)
		if len(p.Transfers) != 1 {
			t.Fatalf("%s: transfers %+v", c.name, p.Transfers)
		}
		if tr := p.Transfers[0]; tr.Amount != c.amount || tr.From != Key(c.from).String() || p.Authority(0) != Key(c.by).String() {
			t.Errorf("%s: %+v by %s", c.name, tr, p.Authority(0))
		}
	}
	short := u64([]byte{0, 0, 0, 0}, 7_000) // a CreateAccount without its space and owner
	msg := []byte{2, 0, 1, 3}
	msg = append(append(append(append(msg, funder...), created...), make([]byte, 32)...), bytes.Repeat([]byte{7}, 32)...)
	msg = append(append(msg, 1, 2, 2, 0, 1, byte(len(short))), short...)
	if _, err := ParseTransaction(append(append([]byte{2}, make([]byte, 128)...), msg...)); err == nil {
		t.Error("a CreateAccount too short parses")
	}
}
