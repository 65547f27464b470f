package keys

import (
	"slices"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in       string
		want     Path
		indexes  []uint32
		hardened []bool
		str      string
	}{
		{in: "m", want: Path{}, indexes: []uint32{}, hardened: []bool{}, str: "m"},
		{in: "m/44'/60'/0'/0/0", want: Path{44 | HardenedOffset, 60 | HardenedOffset, HardenedOffset, 0, 0},
			indexes: []uint32{44, 60, 0, 0, 0}, hardened: []bool{true, true, true, false, false}, str: "m/44'/60'/0'/0/0"},
		{in: "m/44h/501H/0'/0h", want: Path{44 | HardenedOffset, 501 | HardenedOffset, HardenedOffset, HardenedOffset},
			indexes: []uint32{44, 501, 0, 0}, hardened: []bool{true, true, true, true}, str: "m/44'/501'/0'/0'"},
		{in: "m/2147483647'/2147483647", want: Path{0xffffffff, 0x7fffffff},
			indexes: []uint32{2147483647, 2147483647}, hardened: []bool{true, false}, str: "m/2147483647'/2147483647"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePath(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParsePath = %v, want %v", got, tt.want)
			}
			if !slices.Equal(got.Indexes(), tt.indexes) {
				t.Errorf("Indexes = %v, want %v", got.Indexes(), tt.indexes)
			}
			if !slices.Equal(got.Hardened(), tt.hardened) {
				t.Errorf("Hardened = %v, want %v", got.Hardened(), tt.hardened)
			}
			if got.String() != tt.str {
				t.Errorf("String = %q, want %q", got.String(), tt.str)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "must start with"},
		{"44'/60'", "must start with"},
		{"M/44'", "must start with"},
		{"m/", "empty index"},
		{"m//0", "empty index"},
		{"m/44'/", "empty index"},
		{"m/'", "empty index"},
		{"m/-1", "not a decimal"},
		{"m/+1", "not a decimal"},
		{"m/1''", "not a decimal"},
		{"m/0x10", "not a decimal"},
		{"m/ 1", "not a decimal"},
		{"m/01", "leading zero"},
		{"m/2147483648", "out of range"},
		{"m/2147483648'", "out of range"},
		{"m/99999999999999999999", "out of range"},
		{"m" + strings.Repeat("/0", 256), "at most 255"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePath(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePath(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"m", "m/44'/60'/0'/0/0", "m/0h/1H/2", "m/01", "m//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		again, err := ParsePath(p.String())
		if err != nil || !slices.Equal(p, again) {
			t.Fatalf("%q parsed to %v, which formats to %q and reparses to %v, %v", s, p, p.String(), again, err)
		}
	})
}
