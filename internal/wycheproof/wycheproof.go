// Package wycheproof loads Project Wycheproof's signature test vectors (C2SP/wycheproof, testvectors_v1), which are
// committed in its testdata with their source and licence, for the tests that run Sigil's verifiers and signers over
// them. Nothing outside tests imports it.
package wycheproof

import (
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

//go:embed testdata/*.json
var files embed.FS

// The vector sets, by file name.
const (
	ECDSAP256             = "ecdsa_secp256r1_sha256_test.json"
	ECDSASecp256k1        = "ecdsa_secp256k1_sha256_test.json"
	ECDSASecp256k1Bitcoin = "ecdsa_secp256k1_sha256_bitcoin_test.json"
	Ed25519               = "ed25519_test.json"
)

// Set is one vector file.
type Set struct {
	Algorithm     string  `json:"algorithm"`
	NumberOfTests int     `json:"numberOfTests"`
	TestGroups    []Group `json:"testGroups"`
}

// Group is the cases of one public key.
type Group struct {
	PublicKey struct {
		Curve        string `json:"curve"`
		Uncompressed Hex    `json:"uncompressed"` // ECDSA: the SEC1 uncompressed point
		PK           Hex    `json:"pk"`           // EdDSA: the raw public key
	} `json:"publicKey"`
	SHA   string `json:"sha"`
	Tests []Test `json:"tests"`
}

// Test is one case: Result is "valid" or "invalid" ("acceptable" does not occur in these four sets).
type Test struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Msg     Hex      `json:"msg"`
	Sig     Hex      `json:"sig"`
	Result  string   `json:"result"`
}

// Valid reports whether the case's signature must verify.
func (t Test) Valid() bool { return t.Result == "valid" }

// Name names the case in a subtest: its id and comment.
func (t Test) Name() string { return fmt.Sprintf("%d %s", t.TcID, t.Comment) }

// Hex is bytes written in hex.
type Hex []byte

func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	raw, err := hex.DecodeString(s)
	*h = raw
	return err
}

// Load reads a vector set and checks that it holds as many cases as it says.
func Load(name string) (*Set, error) {
	raw, err := files.ReadFile("testdata/" + name)
	if err != nil {
		return nil, err
	}
	var s Set
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := 0
	for _, g := range s.TestGroups {
		n += len(g.Tests)
	}
	if n != s.NumberOfTests || n == 0 {
		return nil, fmt.Errorf("%s: %d cases, the file says %d", name, n, s.NumberOfTests)
	}
	return &s, nil
}
