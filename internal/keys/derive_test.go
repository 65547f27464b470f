package keys

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// BIP-32's test vectors 1 to 5: every chain of vectors 1-4 derived from its seed and serialised (4 checks that a
// private key with leading zero bytes keeps them), each extended key parsed back to the same node, and every key of
// vector 5 refused.
func TestBIP32Vectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/bip32.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct {
			Seed   string
			Chains []struct{ Path, Xpub, Xprv string }
		}
		Invalid []struct{ Key, Reason string }
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) != 4 || len(f.Invalid) != 16 {
		t.Fatalf("want vectors 1-4 and vector 5's 16 keys, got %d and %d", len(f.Vectors), len(f.Invalid))
	}
	for _, v := range f.Vectors {
		seed, _ := hex.DecodeString(v.Seed)
		for _, c := range v.Chains {
			t.Run(v.Seed[:8]+"/"+c.Path, func(t *testing.T) {
				path, err := ParsePath(c.Path)
				if err != nil {
					t.Fatal(err)
				}
				n, err := DeriveNode(CurveSecp256k1, seed, path)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range []struct {
					private bool
					want    string
				}{{true, c.Xprv}, {false, c.Xpub}} {
					if got, err := n.ExtendedKey(k.private); err != nil || got != k.want {
						t.Errorf("extended key (private %v) = %s %v, want %s", k.private, got, err, k.want)
					}
					parsed, private, err := ParseExtendedKey(k.want)
					if err != nil || private != k.private {
						t.Fatalf("parse %s: private %v, %v", k.want, private, err)
					}
					want := *n
					if !k.private {
						want.PrivateKey = [32]byte{}
					}
					if !reflect.DeepEqual(*parsed, want) {
						t.Errorf("parsed %s: %+v, want %+v", k.want, *parsed, want)
					}
				}
			})
		}
	}
	for _, k := range f.Invalid {
		t.Run("invalid/"+k.Reason, func(t *testing.T) {
			if n, _, err := ParseExtendedKey(k.Key); err == nil {
				t.Errorf("%s (%s) parsed: %+v", k.Key, k.Reason, n)
			}
		})
	}
}

type slip10Step struct {
	path, fingerprint, chainCode, private, public string
}

type slip10Vector struct {
	curve Curve
	seed  string
	steps []slip10Step
}

func loadSLIP10(t *testing.T) []slip10Vector {
	t.Helper()
	file, err := os.Open("testdata/slip10.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	curves := map[string]Curve{"secp256k1": CurveSecp256k1, "nist256p1": CurveP256, "ed25519": CurveEd25519}
	var vectors []slip10Vector
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<16)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "vector" && len(fields) == 3:
			vectors = append(vectors, slip10Vector{curve: curves[fields[1]], seed: fields[2]})
		case len(fields) == 5 && len(vectors) > 0:
			v := &vectors[len(vectors)-1]
			v.steps = append(v.steps, slip10Step{fields[0], fields[1], fields[2], fields[3], fields[4]})
		default:
			t.Fatalf("bad line in slip10.txt: %q", sc.Text())
		}
	}
	if len(vectors) < 8 {
		t.Fatalf("want at least 8 SLIP-10 vectors, got %d", len(vectors))
	}
	return vectors
}

func TestSLIP10Vectors(t *testing.T) {
	for _, v := range loadSLIP10(t) {
		seed, _ := hex.DecodeString(v.seed)
		for _, s := range v.steps {
			t.Run(string(v.curve)+"/"+v.seed[:8]+"/"+s.path, func(t *testing.T) {
				path, err := ParsePath(s.path)
				if err != nil {
					t.Fatal(err)
				}
				n, err := DeriveNode(v.curve, seed, path)
				if err != nil {
					t.Fatal(err)
				}
				pub := n.PublicKey
				if v.curve == CurveEd25519 {
					pub = append([]byte{0}, pub...) // SLIP-10 prints Ed25519 keys with a 0x00 prefix
				}
				checks := []struct{ name, got, want string }{
					{"fingerprint", hex.EncodeToString(n.ParentFingerprint[:]), s.fingerprint},
					{"chain code", hex.EncodeToString(n.ChainCode[:]), s.chainCode},
					{"private", hex.EncodeToString(n.PrivateKey[:]), s.private},
					{"public", hex.EncodeToString(pub), s.public},
				}
				for _, c := range checks {
					if c.got != c.want {
						t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
					}
				}
			})
		}
	}
}

func TestDeriveNodeErrors(t *testing.T) {
	seed := bytes.Repeat([]byte{1}, 32)
	tests := []struct {
		name    string
		curve   Curve
		seed    []byte
		path    string
		wantErr string
	}{
		{"ed25519 non-hardened", CurveEd25519, seed, "m/44'/501'/0'/0", "level 4 of m/44'/501'/0'/0 is not hardened"},
		{"short seed", CurveSecp256k1, seed[:15], "m", "seed is 15 bytes"},
		{"long seed", CurveSecp256k1, bytes.Repeat([]byte{1}, 65), "m", "seed is 65 bytes"},
		{"unknown curve", Curve("CURVE_X25519"), seed, "m", "unknown curve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DeriveNode(tt.curve, tt.seed, path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestNodeZero(t *testing.T) {
	n, err := DeriveNode(CurveSecp256k1, bytes.Repeat([]byte{7}, 32), Path{0})
	if err != nil {
		t.Fatal(err)
	}
	n.Zero()
	if n.PrivateKey != [32]byte{} || n.ChainCode != [32]byte{} {
		t.Error("Zero left key material behind")
	}
}

func TestAddMod(t *testing.T) {
	n := orderSecp256k1
	nMinus1, _ := sub(&n, &scalar{1})
	two := scalar{2}
	tests := []struct {
		name string
		a, b scalar
		want scalar
	}{
		{name: "small", a: scalar{1}, b: scalar{2}, want: scalar{3}},
		{name: "wraps to 1", a: nMinus1, b: two, want: scalar{1}},
		{name: "wraps to 0", a: nMinus1, b: scalar{1}, want: scalar{}},
		{name: "carry out of 256 bits", a: nMinus1, b: nMinus1, want: func() scalar { s, _ := sub(&nMinus1, &scalar{1}); return s }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := addMod(&tt.a, &tt.b, &n); got != tt.want {
				t.Errorf("addMod = %x, want %x", got, tt.want)
			}
		})
	}
}
