package solana

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// idlFixture is testdata/idl.json: an Anchor 0.30 IDL and instruction data Anchor's own coder encoded.
type idlFixture struct {
	IDL   json.RawMessage `json:"idl"`
	Cases []struct {
		Instruction string         `json:"instruction"`
		DataHex     string         `json:"data_hex"`
		Args        map[string]any `json:"args"`
	} `json:"cases"`
}

func loadIDLFixture(t testing.TB) idlFixture {
	b, err := os.ReadFile("testdata/idl.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx idlFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

// legacyIDL is the fixture's IDL as Anchor before 0.30 wrote it: camelCase names, isMut and isSigner, "publicKey",
// "defined" by bare name, no discriminators (derived from the names). It has no type aliases, so amount is a u64.
const legacyIDL = `{
  "version": "0.1.0", "name": "vault_router",
  "instructions": [
    {"name": "route", "accounts": [
        {"name": "tokenProgram", "isMut": false, "isSigner": false},
        {"name": "userTransferAuthority", "isMut": false, "isSigner": true},
        {"name": "userSourceTokenAccount", "isMut": true, "isSigner": false},
        {"name": "destinationMint", "isMut": false, "isSigner": false}],
      "args": [
        {"name": "routePlan", "type": {"vec": {"defined": "RoutePlanStep"}}},
        {"name": "inAmount", "type": "u64"}, {"name": "quotedOutAmount", "type": "u64"},
        {"name": "slippageBps", "type": "u16"}, {"name": "platformFeeBps", "type": "u8"}]},
    {"name": "depositWithMemo", "accounts": [
        {"name": "vault", "isMut": true, "isSigner": false},
        {"name": "user", "accounts": [
          {"name": "owner", "isMut": false, "isSigner": true},
          {"name": "ownerTokenAccount", "isMut": true, "isSigner": false}]},
        {"name": "systemProgram", "isMut": false, "isSigner": false}],
      "args": [
        {"name": "amount", "type": "u64"}, {"name": "memo", "type": {"option": "string"}},
        {"name": "beneficiary", "type": "publicKey"}, {"name": "payload", "type": "bytes"},
        {"name": "scores", "type": {"array": ["i16", 3]}}, {"name": "big", "type": "u128"},
        {"name": "debt", "type": "i64"}, {"name": "delta", "type": "i128"}, {"name": "ok", "type": "bool"},
        {"name": "ratio", "type": "f64"}, {"name": "fee", "type": {"option": {"defined": "Fee"}}},
        {"name": "point", "type": {"defined": "Point"}}]}
  ],
  "accounts": [{"name": "Vault", "type": {"kind": "struct", "fields": [{"name": "shares", "type": "u64"}]}}],
  "types": [
    {"name": "RoutePlanStep", "type": {"kind": "struct", "fields": [
      {"name": "swap", "type": {"defined": "Swap"}}, {"name": "percent", "type": "u8"},
      {"name": "inputIndex", "type": "u8"}, {"name": "outputIndex", "type": "u8"}]}},
    {"name": "Swap", "type": {"kind": "enum", "variants": [
      {"name": "Saber"}, {"name": "Whirlpool", "fields": [{"name": "aToB", "type": "bool"}]},
      {"name": "Custom", "fields": ["u64", "publicKey"]}]}},
    {"name": "Fee", "type": {"kind": "struct", "fields": [{"name": "bps", "type": "u16"}, {"name": "recipient", "type": "publicKey"}]}},
    {"name": "Point", "type": {"kind": "struct", "fields": ["i32", "i32"]}}
  ]
}`

// strings replaces every json.Number of a decoded value by its digits, the fixture's form of a number.
func numbersAsStrings(v any) any {
	switch v := v.(type) {
	case json.Number:
		return string(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = numbersAsStrings(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = numbersAsStrings(e)
		}
		return out
	}
	return v
}

// Both dialects of the same program decode what Anchor's coder encoded into the same arguments, each under the names
// its IDL writes (the legacy one's camelCase, as the reference's parser keeps them), and the legacy dialect's derived
// discriminators are the ones Anchor 0.30 wrote down.
func TestIDLDecodesAnchorEncodedInstructions(t *testing.T) {
	fx := loadIDLFixture(t)
	current, err := ParseIDL(fx.IDL)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := ParseIDL([]byte(legacyIDL))
	if err != nil {
		t.Fatal(err)
	}
	accounts := []string{"A", "B", "C", LookupPlaceholder, "E", "extra"}
	for name, idl := range map[string]*IDL{"anchor 0.30": current, "legacy anchor": legacy} {
		// The fixture's expectations are in the current dialect's snake_case: a legacy name compares by its Rust name.
		rust := func(s string) string { return s }
		if idl == legacy {
			rust = snakeCase
		}
		for i, c := range fx.Cases {
			data, _ := hex.DecodeString(c.DataHex)
			got, err := idl.Decode(data, accounts)
			if err != nil {
				t.Fatalf("%s, case %d: %v", name, i, err)
			}
			if rust(got.InstructionName) != c.Instruction {
				t.Errorf("%s, case %d: instruction %q, want %q", name, i, got.InstructionName, c.Instruction)
			}
			if !bytes.Equal(got.Discriminator, data[:8]) {
				t.Errorf("%s, case %d: discriminator %x, want %x", name, i, got.Discriminator, data[:8])
			}
			if args := renameValue(numbersAsStrings(got.Args), rust); !reflect.DeepEqual(args, c.Args) {
				t.Errorf("%s, case %d: args\n got %v\nwant %v", name, i, args, c.Args)
			}
		}
		data, _ := hex.DecodeString(fx.Cases[1].DataHex)
		got, _ := idl.Decode(data, accounts)
		want := map[string]any{"vault": "A", "owner": "B", "owner_token_account": "C", "system_program": LookupPlaceholder}
		if renamed := renameKeys(got.NamedAccounts, rust); !reflect.DeepEqual(renamed, want) {
			t.Errorf("%s: named accounts %v, want %v", name, got.NamedAccounts, want)
		}
	}
	data, _ := hex.DecodeString(fx.Cases[0].DataHex)
	if got, err := legacy.Decode(data, accounts); err != nil || got.Args["inAmount"] == nil || got.Args["in_amount"] != nil {
		t.Errorf("legacy names: %+v, %v; want the IDL's inAmount", got, err)
	}
}

// renameKeys renames every map key of a decoded value, at any depth, but an enum variant's (a map's only key that
// starts with an upper-case letter).
func renameKeys[V any](v map[string]V, rename func(string) string) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		if len(v) != 1 || k == "" || k[0] < 'A' || k[0] > 'Z' {
			k = rename(k)
		}
		out[k] = renameValue(any(x), rename)
	}
	return out
}

func renameValue(v any, rename func(string) string) any {
	switch x := v.(type) {
	case map[string]any:
		return renameKeys(x, rename)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = renameValue(e, rename)
		}
		return out
	}
	return v
}

// A Shank IDL names each instruction by a one-byte discriminant.
func TestIDLShankDiscriminant(t *testing.T) {
	idl, err := ParseIDL([]byte(`{"name": "token_metadata", "metadata": {"origin": "shank"}, "instructions": [
		{"name": "CreateMetadataAccount", "accounts": [{"name": "metadata", "isMut": true, "isSigner": false}],
		 "args": [{"name": "maxSupply", "type": {"option": "u64"}}], "discriminant": {"type": "u8", "value": 0}},
		{"name": "UpdateMetadataAccount", "accounts": [], "args": [{"name": "primarySaleHappened", "type": "bool"}],
		 "discriminant": {"type": "u8", "value": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := idl.Decode([]byte{0, 1, 0x10, 0x27, 0, 0, 0, 0, 0, 0}, []string{"M"})
	if err != nil {
		t.Fatal(err)
	}
	if got.InstructionName != "CreateMetadataAccount" || got.Args["maxSupply"] != json.Number("10000") || got.NamedAccounts["metadata"] != "M" {
		t.Errorf("decoded %+v", got)
	}
	if got, err := idl.Decode([]byte{1, 1}, nil); err != nil || got.Args["primarySaleHappened"] != true {
		t.Errorf("decoded %+v, %v", got, err)
	}
}

func TestIDLRefusesWhatItCannotDecode(t *testing.T) {
	for _, tc := range []struct{ idl, want string }{
		{`[]`, "JSON object"},
		{`{"instructions": []}`, "no instructions"},
		{`{"instructions": [{"name": "a", "accounts": [], "args": [{"name": "x", "type": {"defined": "Nope"}}]}]}`, `"Nope" is not defined`},
		{`{"instructions": [{"name": "a", "accounts": [], "args": [{"name": "x", "type": "u512"}]}]}`, `"u512"`},
		{`{"metadata": {"spec": "0.1.0"}, "instructions": [{"name": "a", "accounts": [], "args": []}]}`, "no discriminator"},
		{`{"metadata": {"spec": "0.1.0"}, "instructions": [{"name": "a", "discriminator": [1], "args": []},
			{"name": "b", "discriminator": [1], "args": []}]}`, "another instruction"},
		{`{"metadata": {"spec": "0.1.0"}, "instructions": [{"name": "a", "discriminator": [1], "args": [
			{"name": "x", "type": {"defined": {"name": "G", "generics": [{"kind": "type", "type": "u8"}]}}}]}]}`, "generic"},
		{`{"metadata": {"spec": "0.1.0"}, "instructions": [{"name": "a", "discriminator": [1], "args": [
			{"name": "x", "type": {"defined": {"name": "G"}}}]}],
		  "types": [{"name": "G", "generics": [{"kind": "type", "name": "T"}], "type": {"kind": "struct", "fields": []}}]}`, "generic"},
	} {
		_, err := ParseIDL([]byte(tc.idl))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseIDL(%s) = %v, want an error with %q", tc.idl, err, tc.want)
		}
	}
	// A type no instruction reaches may be one this decoder cannot read.
	if _, err := ParseIDL([]byte(`{"instructions": [{"name": "a", "accounts": [], "args": []}],
		"types": [{"name": "Zc", "type": {"kind": "struct", "fields": [{"name": "x", "type": {"array": ["u8", {"generic": "N"}]}}]}}]}`)); err != nil {
		t.Errorf("an unused unsupported type refused the IDL: %v", err)
	}
}

func TestIDLDecodeErrors(t *testing.T) {
	fx := loadIDLFixture(t)
	idl, err := ParseIDL(fx.IDL)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := hex.DecodeString(fx.Cases[1].DataHex)
	route, _ := hex.DecodeString(fx.Cases[0].DataHex)
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"unknown discriminator": {[]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, "discriminator"},
		"truncated":             {data[:len(data)-3], "ends before"},
		"option tag":            {append(append([]byte{}, data[:16]...), 2), "option tag"},
		"huge vector":           {append(append([]byte{}, route[:8]...), 0xff, 0xff, 0xff, 0xff), "longer than"},
		"invalid UTF-8":         {append(append(append([]byte{}, data[:16]...), 1, 2, 0, 0, 0), 0xff, 0xfe), "UTF-8"},
	} {
		if _, err := idl.Decode(tc.data, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
	// Bytes after the arguments are refused, as the reference's parser refuses them.
	if _, err := idl.Decode(append(data, 0xaa), nil); err == nil || !strings.Contains(err.Error(), "1 bytes after its arguments") {
		t.Errorf("trailing byte: %v", err)
	}
}

// A self-referencing type cannot make the decoder recurse without end.
func TestIDLRecursionIsBounded(t *testing.T) {
	idl, err := ParseIDL([]byte(`{"instructions": [{"name": "a", "accounts": [], "args": [{"name": "n", "type": {"defined": "Node"}}]}],
		"types": [{"name": "Node", "type": {"kind": "struct", "fields": [{"name": "next", "type": {"option": {"defined": "Node"}}}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	data := append(anchorDiscriminator("a"), bytes.Repeat([]byte{1}, 200)...)
	if _, err := idl.Decode(data, nil); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep recursion: %v", err)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"routePlan": "route_plan", "sharedAccountsRoute": "shared_accounts_route",
		"HTTPServer": "http_server", "initializeV2": "initialize_v2", "already_snake": "already_snake", "aToB": "a_to_b",
		"CreateMetadataAccountV3": "create_metadata_account_v3", "x": "x"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecodeIDL: any data either decodes or fails with an error; it never panics or loops.
func FuzzDecodeIDL(f *testing.F) {
	fx := loadIDLFixture(f)
	idl, err := ParseIDL(fx.IDL)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range fx.Cases {
		data, _ := hex.DecodeString(c.DataHex)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, err := idl.Decode(data, []string{"A"}); err == nil && got.InstructionName == "" {
			t.Fatal("decoded an instruction without a name")
		}
	})
}

func BenchmarkDecodeIDL(b *testing.B) {
	fx := loadIDLFixture(b)
	idl, err := ParseIDL(fx.IDL)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := hex.DecodeString(fx.Cases[0].DataHex)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := idl.Decode(data, []string{"A", "B", "C", "D"}); err != nil {
			b.Fatal(err)
		}
	}
}
