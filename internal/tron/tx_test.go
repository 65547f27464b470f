package tron

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type fixture struct {
	Name    string `json:"name"`
	RawHex  string `json:"raw_data_hex"`
	TxID    string `json:"txID"`
	RawData struct {
		RefBlockBytes string `json:"ref_block_bytes"`
		RefBlockHash  string `json:"ref_block_hash"`
		Expiration    int64  `json:"expiration"`
		Timestamp     int64  `json:"timestamp"`
		FeeLimit      int64  `json:"fee_limit"`
		Data          string `json:"data"`
		Contract      []struct {
			Type         string `json:"type"`
			PermissionID int64  `json:"Permission_id"`
			Parameter    struct {
				Value map[string]any `json:"value"`
			} `json:"parameter"`
		} `json:"contract"`
	} `json:"raw_data"`
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

// base58Of renders tronweb's hex address (41...) the way the view does.
func base58Of(t *testing.T, h any) string {
	t.Helper()
	a, err := Address(mustHex(t, h.(string)))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func num(v any) int64 {
	if v == nil {
		return 0
	}
	return int64(v.(float64))
}

// The transactions of testdata/transactions.json were built with tronweb (testdata/generate.mjs), which also gave
// their JSON: the parser reads the same.
func TestParseMatchesTronWeb(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			tx, err := Parse(mustHex(t, f.RawHex))
			if err != nil {
				t.Fatal(err)
			}
			id := tx.ID()
			r := f.RawData
			if hex.EncodeToString(id[:]) != f.TxID || tx.RefBlockBytes != r.RefBlockBytes || tx.RefBlockHash != r.RefBlockHash ||
				tx.Expiration != r.Expiration || tx.Timestamp != r.Timestamp || tx.FeeLimit != r.FeeLimit || tx.Data != r.Data {
				t.Errorf("transaction %+v, tronweb %+v", tx, r)
			}
			c, want := tx.Contracts[0], r.Contract[0]
			v := want.Parameter.Value
			if c.Type != want.Type || c.PermissionID != want.PermissionID || *c.OwnerAddress != base58Of(t, v["owner_address"]) {
				t.Errorf("contract %+v, tronweb %+v", c, want)
			}
			check := func(name string, got *int64) {
				if got == nil || *got != num(v[name]) {
					t.Errorf("%s = %v, tronweb %v", name, got, v[name])
				}
			}
			resource := "BANDWIDTH"
			if v["resource"] != nil {
				resource = v["resource"].(string)
			}
			switch c.Type {
			case "TransferContract":
				check("amount", c.Amount)
				if *c.ToAddress != base58Of(t, v["to_address"]) {
					t.Errorf("to %s", *c.ToAddress)
				}
			case "TriggerSmartContract":
				check("call_value", c.CallValue)
				check("call_token_value", c.CallTokenValue)
				check("token_id", c.TokenID)
				if *c.ContractAddress != base58Of(t, v["contract_address"]) || *c.Data != v["data"] || !strings.HasPrefix(*c.Data, "a9059cbb") {
					t.Errorf("contract %s data %s", *c.ContractAddress, *c.Data)
				}
			case "FreezeBalanceV2Contract":
				check("frozen_balance", c.FrozenBalance)
			case "UnfreezeBalanceV2Contract":
				check("unfreeze_balance", c.UnfreezeBalance)
			case "DelegateResourceContract", "UnDelegateResourceContract":
				check("balance", c.Balance)
				if *c.ReceiverAddress != base58Of(t, v["receiver_address"]) {
					t.Errorf("receiver %s", *c.ReceiverAddress)
				}
				if c.Type == "DelegateResourceContract" {
					check("lock_period", c.LockPeriod)
					if *c.Lock != (v["lock"] == true) {
						t.Errorf("lock %v", *c.Lock)
					}
				}
			case "AccountPermissionUpdateContract":
				owner := v["owner"].(map[string]any)
				if c.Owner == nil || c.Owner.Type != "Owner" || c.Owner.Threshold != num(owner["threshold"]) || len(c.Owner.Keys) != 2 ||
					c.Owner.Keys[1].Address != base58Of(t, owner["keys"].([]any)[1].(map[string]any)["address"]) || c.Witness != nil {
					t.Errorf("owner %+v witness %+v", c.Owner, c.Witness)
				}
				active := v["actives"].([]any)[0].(map[string]any)
				if len(c.Actives) != 1 || c.Actives[0].Type != "Active" || c.Actives[0].PermissionName != "active0" || c.Actives[0].Operations != active["operations"] {
					t.Errorf("actives %+v", c.Actives)
				}
			}
			if c.Resource != nil && *c.Resource != resource {
				t.Errorf("resource %s, want %s", *c.Resource, resource)
			}
			if c.Type != "TransferContract" && c.Amount != nil || c.Type != "TriggerSmartContract" && c.ContractAddress != nil {
				t.Error("a field of another contract type is set")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	send := mustHex(t, fixtures(t)[0].RawHex)
	i := bytes.Index(send, []byte("type.googleapis.com/protocol.TransferContract"))
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "0 contracts"},
		{"two contracts", func() []byte {
			j := bytes.IndexByte(send, 0x5a) // field 11, length-delimited
			n := int(send[j+1])
			return append(append([]byte{}, send...), send[j:j+2+n]...)
		}(), "2 contracts"},
		{"expiration twice", append(append([]byte{}, send...), 0x40, 0x01), "field 8 appears twice"},
		{"truncated", send[:len(send)-3], "field 14: malformed varint"},
		{"truncated inside the contract", send[:40], "truncated"},
		{"a group", append([]byte{0x0b}, send...), "wire type 3"},
		{"wrong type url", func() []byte {
			b := append([]byte{}, send...)
			copy(b[i:], "type.googleapis.com/protocol.TransferContracX")
			return b
		}(), "not a \"type.googleapis.com/protocol.TransferContract\""},
		{"negative amount", transfer(t, -1), "amount is negative"},
		{"not a Tron address", func() []byte {
			owner := append([]byte{0x42}, make([]byte, 20)...)
			return rawTransfer(owner, 1)
		}(), "is not a Tron address"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.raw)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an ErrInvalid containing %q", tt.name, err, tt.want)
		}
	}
}

// rawTransfer encodes a TransferContract transaction by hand.
func rawTransfer(owner []byte, amount int64) []byte {
	to := append([]byte{0x41}, bytes.Repeat([]byte{7}, 20)...)
	value := appendLen(appendLen(nil, 1, owner), 2, to)
	value = appendUvarint(append(value, 3<<3), uint64(amount))
	any := appendLen(appendLen(nil, 1, []byte("type.googleapis.com/protocol.TransferContract")), 2, value)
	contract := appendLen([]byte{1 << 3, 1}, 2, any)
	return appendLen(nil, 11, contract)
}

func transfer(t *testing.T, amount int64) []byte {
	t.Helper()
	return rawTransfer(append([]byte{0x41}, bytes.Repeat([]byte{1}, 20)...), amount)
}

func TestSigned(t *testing.T) {
	raw := mustHex(t, fixtures(t)[0].RawHex)
	sig := bytes.Repeat([]byte{0xab}, 65)
	signed := Signed(raw, sig)
	want := append(append([]byte{0x0a, byte(len(raw)), 0x01}, raw...), append([]byte{0x12, 0x41}, sig...)...)
	if len(raw) < 128 || len(raw) >= 256 {
		t.Fatalf("the fixture is %d bytes; the expected encoding assumes a two-byte length", len(raw))
	}
	want[1] = byte(len(raw)) | 0x80
	if !bytes.Equal(signed, want) {
		t.Errorf("Signed = %x, want %x", signed, want)
	}
}

// FuzzParse: any input is refused with ErrInvalid or parses into a transaction of one contract of a known type.
func FuzzParse(f *testing.F) {
	for _, fx := range fixtures(f) {
		f.Add(mustHex(f, fx.RawHex))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if len(tx.Contracts) != 1 || tx.Contracts[0].Type == "" || !bytes.Equal(tx.Raw, b) {
			t.Fatalf("parsed %+v", tx)
		}
		if _, known := params[tx.Contracts[0].Type]; known && tx.Contracts[0].OwnerAddress == nil {
			t.Fatal("a known contract without an owner")
		}
	})
}

// rawContract encodes a transaction of one contract of type typ whose parameter is an Any {typeURL, value}; extra
// bytes are appended to the contract message.
func rawContract(typ uint64, typeURL string, value []byte, extra ...byte) []byte {
	any := appendLen(appendLen(nil, 1, []byte(typeURL)), 2, value)
	contract := append(appendLen(appendUvarint([]byte{1 << 3}, typ), 2, any), extra...)
	return appendLen(nil, 11, contract)
}

// A transaction the chain would read otherwise than the policy sees it is refused, each as an attacker would build it
// to get past a policy reading tron.tx: java-tron's protobuf reads enums and int32 fields as their low 32 bits, keeps
// the last of a repeated scalar, merges an embedded message given twice, and unpacks an Any by the name after the
// type URL's last '/'.
func TestParseRefusesWhatTheChainReadsOtherwise(t *testing.T) {
	owner := append([]byte{0x41}, bytes.Repeat([]byte{1}, 20)...)
	to := append([]byte{0x41}, bytes.Repeat([]byte{7}, 20)...)
	const transferURL = "type.googleapis.com/protocol.TransferContract"
	transferValue := func(amounts ...uint64) []byte {
		v := appendLen(appendLen(nil, 1, owner), 2, to)
		for _, a := range amounts {
			v = appendUvarint(append(v, 3<<3), a)
		}
		return v
	}
	freeze := appendUvarint(append(appendUvarint(append(appendLen(nil, 1, owner), 2<<3), 1_000_000), 3<<3), 1<<32|1)
	secondParameter := appendLen(nil, 2, appendLen(appendLen(nil, 1, []byte(transferURL)), 2, transferValue(1_000_000_000_000)))
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"a contract type beyond 32 bits (TransferContract to java-tron)", rawContract(1<<32|1, transferURL, transferValue(1)), "contract type 4294967297 is not a Tron contract type"},
		{"a TransferContract URL of another host", rawContract(1, "evil.example/protocol.TransferContract", transferValue(1)), "is a \"evil.example/protocol.TransferContract\""},
		{"an amount given twice, the chain reading the second", rawContract(1, transferURL, transferValue(1, 1_000_000_000_000)), "field 3 appears twice"},
		{"a parameter given twice, the chain merging the second in", rawContract(1, transferURL, transferValue(1), secondParameter...), "field 2 appears twice"},
		{"a contract type given twice", rawContract(1, transferURL, transferValue(1), 1<<3, 2), "field 1 appears twice"},
		{"a permission id beyond 32 bits", rawContract(1, transferURL, transferValue(1), appendUvarint([]byte{5 << 3}, 1<<32|2)...), "Permission_id 4294967298 is out of range"},
		{"a resource beyond 32 bits (ENERGY to java-tron)", rawContract(54, "type.googleapis.com/protocol.FreezeBalanceV2Contract", freeze), "resource 4294967297 is not"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.raw)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an ErrInvalid containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := Parse(rawContract(1, transferURL, transferValue(1))); err != nil {
		t.Fatalf("the honest transfer: %v", err)
	}
}
