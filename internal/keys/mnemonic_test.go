package keys

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type bip39File struct {
	Passphrase string     `json:"passphrase"`
	English    [][]string `json:"english"`
	Invalid    []string   `json:"invalid"`
}

func loadBIP39(t *testing.T) bip39File {
	t.Helper()
	raw, err := os.ReadFile("testdata/bip39_trezor.json")
	if err != nil {
		t.Fatal(err)
	}
	var f bip39File
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.English) == 0 || len(f.Invalid) == 0 {
		t.Fatal("no vectors in testdata/bip39_trezor.json")
	}
	return f
}

func TestBIP39TrezorVectors(t *testing.T) {
	f := loadBIP39(t)
	for _, v := range f.English {
		entropyHex, mnemonic, seedHex := v[0], v[1], v[2]
		t.Run(mnemonic[:min(len(mnemonic), 30)], func(t *testing.T) {
			entropy, _ := hex.DecodeString(entropyHex)
			got, err := MnemonicFromEntropy(entropy)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != mnemonic {
				t.Errorf("mnemonic = %q, want %q", got, mnemonic)
			}
			back, err := EntropyFromMnemonic([]byte(mnemonic))
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(back) != entropyHex {
				t.Errorf("entropy = %x, want %s", back, entropyHex)
			}
			seed, err := SeedFromMnemonic([]byte(mnemonic), f.Passphrase)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(seed) != seedHex {
				t.Errorf("seed = %x, want %s", seed, seedHex)
			}
		})
	}
}

func TestBIP39InvalidMnemonics(t *testing.T) {
	for _, m := range loadBIP39(t).Invalid {
		if err := ValidateMnemonic([]byte(m)); err == nil {
			t.Errorf("ValidateMnemonic(%q) = nil, want an error", m)
		}
		if _, err := SeedFromMnemonic([]byte(m), ""); err == nil {
			t.Errorf("SeedFromMnemonic(%q) succeeded, want an error", m)
		}
	}
}

func TestMnemonicErrors(t *testing.T) {
	tests := []struct {
		name, mnemonic, wantErr string
		checksum                bool
	}{
		{name: "too few words", mnemonic: "abandon abandon abandon", wantErr: "has 3 words"},
		{name: "empty", mnemonic: "  ", wantErr: "has 0 words"},
		{name: "unknown word", mnemonic: "abandon abandon abandon abandon secretword abandon abandon abandon abandon abandon abandon about", wantErr: "word 5 is not in"},
		{name: "upper case", mnemonic: "ABANDON abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", wantErr: "word 1 is not in"},
		{name: "checksum", mnemonic: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon", checksum: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateMnemonic([]byte(tt.mnemonic))
			if err == nil {
				t.Fatal("want an error")
			}
			if tt.checksum != errors.Is(err, ErrMnemonicChecksum) {
				t.Errorf("errors.Is(err, ErrMnemonicChecksum) = %v, err = %v", !tt.checksum, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "secretword") {
				t.Errorf("error %q leaks a mnemonic word", err)
			}
		})
	}
}

func TestNewMnemonic(t *testing.T) {
	for _, words := range []int{12, 15, 18, 21, 24} {
		a, err := NewMnemonic(words)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.Fields(string(a))); n != words {
			t.Errorf("NewMnemonic(%d) has %d words", words, n)
		}
		if err := ValidateMnemonic(a); err != nil {
			t.Errorf("NewMnemonic(%d) is invalid: %v", words, err)
		}
		b, _ := NewMnemonic(words)
		if bytes.Equal(a, b) {
			t.Errorf("two NewMnemonic(%d) calls returned the same mnemonic", words)
		}
	}
	for _, words := range []int{0, 11, 13, 25} {
		if _, err := NewMnemonic(words); err == nil {
			t.Errorf("NewMnemonic(%d) succeeded, want an error", words)
		}
	}
}

func TestSeedIgnoresExtraWhitespace(t *testing.T) {
	const m = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	want, err := SeedFromMnemonic([]byte(m), "TREZOR")
	if err != nil {
		t.Fatal(err)
	}
	got, err := SeedFromMnemonic([]byte("  "+strings.ReplaceAll(m, " ", " \t\n")+"\n"), "TREZOR")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("extra whitespace changed the seed")
	}
}

func TestSeedNormalizesPassphrase(t *testing.T) {
	const m = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	composed, _ := SeedFromMnemonic([]byte(m), "caf\u00e9")
	decomposed, _ := SeedFromMnemonic([]byte(m), "cafe\u0301")
	if !bytes.Equal(composed, decomposed) {
		t.Error("NFC and NFD spellings of the passphrase gave different seeds")
	}
}

func FuzzEntropyFromMnemonic(f *testing.F) {
	f.Add("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
	f.Add("zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote")
	f.Add("legal winner thank year wave sausage worth useful legal winner thank yellow yellow")
	f.Fuzz(func(t *testing.T, m string) {
		entropy, err := EntropyFromMnemonic([]byte(m))
		if err != nil {
			return
		}
		again, err := MnemonicFromEntropy(entropy)
		if err != nil {
			t.Fatalf("valid mnemonic %q gave entropy %x that does not encode: %v", m, entropy, err)
		}
		if string(again) != strings.Join(strings.Fields(m), " ") {
			t.Fatalf("mnemonic %q round-tripped to %q", m, again)
		}
	})
}
