package evm

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// mailExample is the Mail example of the EIP-712 specification, in the
// eth_signTypedData_v4 JSON form.
const mailExample = `{
  "types": {
    "EIP712Domain": [
      {"name": "name", "type": "string"},
      {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"},
      {"name": "verifyingContract", "type": "address"}
    ],
    "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
    "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}]
  },
  "primaryType": "Mail",
  "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
  "message": {
    "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
    "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
    "contents": "Hello, Bob!"
  }
}`

// mailHash is the signing hash the EIP-712 specification gives for it.
const mailHash = "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"

func TestEIP712MailExample(t *testing.T) {
	td, err := ParseTypedData([]byte(mailExample))
	if err != nil {
		t.Fatal(err)
	}
	if got := td.Hash().Hex(); got != mailHash {
		t.Errorf("hash = %s, want %s", got, mailHash)
	}
	v := td.View()
	if v.PrimaryType != "Mail" || v.Domain.Name != "Ether Mail" || v.Domain.Version != "1" ||
		v.Domain.ChainID.Cmp(big.NewInt(1)) != 0 || v.Domain.VerifyingContract != "0xcccccccccccccccccccccccccccccccccccccccc" {
		t.Errorf("view = %+v", v)
	}
	from := v.Message["from"].(map[string]any)
	if from["wallet"] != "0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826" || from["name"] != "Cow" {
		t.Errorf("message.from = %v: hex must be lower-cased, other strings kept", from)
	}
}

func TestEIP712ViemSerialization(t *testing.T) {
	f := loadViem(t)
	td, err := ParseTypedData([]byte(f.EIP712.Serialized))
	if err != nil {
		t.Fatal(err)
	}
	if td.Hash().Hex() != "0x"+f.EIP712.Hash || td.Hash().Hex() != mailHash {
		t.Fatalf("hash = %s, viem %s", td.Hash().Hex(), f.EIP712.Hash)
	}
	p, err := ParseRawPayload(f.EIP712.Serialized, EncodingEIP712, HashNoOp)
	if err != nil {
		t.Fatal(err)
	}
	sig := signPayload(t, p, mustHex(t, f.PrivateKey))
	if sig != f.EIP712.Signature {
		t.Errorf("signature = %s, viem signTypedData = %s", sig, f.EIP712.Signature)
	}
}

func TestEIP712DomainTypeDerivedWhenAbsent(t *testing.T) {
	without := strings.Replace(mailExample, `"EIP712Domain": [
      {"name": "name", "type": "string"},
      {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"},
      {"name": "verifyingContract", "type": "address"}
    ],`, "", 1)
	if without == mailExample {
		t.Fatal("test did not remove EIP712Domain")
	}
	td, err := ParseTypedData([]byte(without))
	if err != nil {
		t.Fatal(err)
	}
	if td.Hash().Hex() != mailHash {
		t.Errorf("hash = %s, want %s", td.Hash().Hex(), mailHash)
	}
}

// TestEIP712LargeIntegers checks that integers beyond float64 precision are
// hashed exactly whether given as JSON numbers or strings.
func TestEIP712LargeIntegers(t *testing.T) {
	const amount = "115792089237316195423570985008687907853269984665640564039457584007913129639935" // 2^256-1
	doc := func(value string) string {
		return `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"Permit":[{"name":"value","type":"uint256"},{"name":"deadline","type":"uint64"}]},
"primaryType":"Permit","domain":{"chainId":"0x1"},"message":{"value":` + value + `,"deadline":9007199254740993}}`
	}
	asNumber, err := ParseTypedData([]byte(doc(amount)))
	if err != nil {
		t.Fatal(err)
	}
	asString, err := ParseTypedData([]byte(doc(`"` + amount + `"`)))
	if err != nil {
		t.Fatal(err)
	}
	if asNumber.Hash() != asString.Hash() {
		t.Error("number and string spellings hash differently")
	}
	// Independent computation with go-ethereum from exact big integers.
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "chainId", Type: "uint256"}},
			"Permit":       {{Name: "value", Type: "uint256"}, {Name: "deadline", Type: "uint64"}},
		},
		PrimaryType: "Permit",
		Domain:      apitypes.TypedDataDomain{ChainId: math.NewHexOrDecimal256(1)},
		Message:     apitypes.TypedDataMessage{"value": big10(amount), "deadline": big10("9007199254740993")},
	}
	want, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	if asNumber.Hash() != common.BytesToHash(want) {
		t.Errorf("hash = %s, want %x", asNumber.Hash().Hex(), want)
	}
	if got := asNumber.View().Message["deadline"].(*big.Int); got.String() != "9007199254740993" {
		t.Errorf("view deadline = %s", got)
	}
	if got := asString.View().Message["value"]; got != amount {
		t.Errorf("string values stay strings in the view, got %v", got)
	}
}

func TestEIP712Errors(t *testing.T) {
	tests := []struct{ name, doc, wantErr string }{
		{"not json", `typed data`, "invalid character"},
		{"trailing", mailExample + `{}`, "trailing data"},
		{"no primary type", strings.Replace(mailExample, `"primaryType": "Mail",`, "", 1), "primaryType is missing"},
		{"undeclared primary type", strings.Replace(mailExample, `"primaryType": "Mail"`, `"primaryType": "Letter"`, 1), `"Letter" is not declared`},
		{"unknown domain field", strings.Replace(mailExample, `"version": "1",`, `"version": "1", "chain": 5,`, 1), "unknown field"},
		{"fractional number", strings.Replace(mailExample, `"contents": "Hello, Bob!"`, `"contents": "x", "extra": 1.5`, 1), "not an integer"},
		{"bad address", strings.Replace(mailExample, "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB", "0x1234", 1), "doesn't match type 'address'"},
		{"extra field", strings.Replace(mailExample, `"contents": "Hello, Bob!"`, `"contents": "x", "cc": "y"`, 1), "extra data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTypedData([]byte(tt.doc))
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrInvalidTypedData) {
				t.Errorf("error %v does not wrap ErrInvalidTypedData", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func FuzzParseTypedData(f *testing.F) {
	f.Add([]byte(mailExample))
	f.Add([]byte(`{"types":{"A":[{"name":"a","type":"A[]"}]},"primaryType":"A","domain":{"name":"x"},"message":{"a":[]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		td, err := ParseTypedData(doc)
		if err != nil {
			return
		}
		if again, err := ParseTypedData(doc); err != nil || again.Hash() != td.Hash() {
			t.Fatalf("hash is not deterministic: %v", err)
		}
	})
}

func BenchmarkEIP712Hash(b *testing.B) {
	for b.Loop() {
		if _, err := ParseTypedData([]byte(mailExample)); err != nil {
			b.Fatal(err)
		}
	}
}
