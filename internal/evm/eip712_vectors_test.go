package evm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// geth is go-ethereum's own verdict on typed data, as its signer tested these files: decoded with encoding/json and
// hashed by apitypes.TypedDataAndHash. It returns the hash, or what refused the data.
func geth(raw []byte) (hash common.Hash, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorString("go-ethereum panicked")
		}
	}()
	var td apitypes.TypedData
	if err := json.Unmarshal(raw, &td); err != nil {
		return common.Hash{}, err
	}
	h, _, err := apitypes.TypedDataAndHash(td)
	return common.BytesToHash(h), err
}

type errorString string

func (e errorString) Error() string { return string(e) }

// go-ethereum's EIP-712 files (testdata/geth-eip712, README.md there): each valid file is accepted with go-ethereum's
// hash, each expfail_ file is refused, and the inputs its fuzzer once crashed on are refused without a panic, as
// go-ethereum refuses them. Sigil is never more lenient than go-ethereum.
func TestEIP712GoEthereumFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/geth-eip712/*.json")
	if err != nil {
		t.Fatal(err)
	}
	fuzzed, err := filepath.Glob("testdata/geth-eip712/fuzzing/*")
	if err != nil {
		t.Fatal(err)
	}
	valid, refused := 0, 0
	for _, path := range append(files, fuzzed...) {
		name := filepath.Base(path)
		if name == "typed-data.json" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, gethErr := geth(raw)
			td, err := ParseTypedData(raw)
			switch {
			case strings.HasPrefix(name, "expfail_") && (err == nil || gethErr == nil):
				t.Fatalf("an expected failure: Sigil %v, go-ethereum %v", err, gethErr)
			case gethErr != nil && err == nil:
				t.Fatalf("go-ethereum refuses it (%v), Sigil accepts it", gethErr)
			case gethErr == nil && err != nil:
				t.Fatalf("go-ethereum accepts it, Sigil refuses it: %v", err)
			case err == nil && td.Hash() != want:
				t.Fatalf("hash %s, go-ethereum's %s", td.Hash(), want)
			case err == nil:
				valid++
			default:
				refused++
			}
		})
	}
	if valid != 3 || refused != 15 {
		t.Errorf("%d files accepted and %d refused, want go-ethereum's 3 valid files and its 10 expfail_ and 5 fuzzed ones refused", valid, refused)
	}
}

// go-ethereum's typed-data.json (signer/core/apitypes/testdata): 123 generated typed data with the digest each must
// hash to.
func TestEIP712GoEthereumTypedDataDigests(t *testing.T) {
	raw, err := os.ReadFile("testdata/geth-eip712/typed-data.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name        string          `json:"name"`
		Domain      json.RawMessage `json:"domain"`
		PrimaryType string          `json:"primaryType"`
		Types       json.RawMessage `json:"types"`
		Data        json.RawMessage `json:"data"`
		Digest      string          `json:"digest"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 123 {
		t.Fatalf("%d cases, want 123", len(cases))
	}
	for _, c := range cases {
		doc, err := json.Marshal(map[string]any{"types": c.Types, "primaryType": c.PrimaryType, "domain": c.Domain, "message": c.Data})
		if err != nil {
			t.Fatal(err)
		}
		td, err := ParseTypedData(doc)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if got := td.Hash().Hex(); got != c.Digest {
			t.Errorf("%s: hash %s, want %s", c.Name, got, c.Digest)
		}
	}
}
