package units

import (
	"math/big"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in       string
		decimals uint8
		want     string // base units, or "" for an error
	}{
		{"1", 18, "1000000000000000000"},
		{"0.5", 6, "500000"},
		{"1000.000001", 6, "1000000001"},
		{"007", 0, "7"},
		{"0", 6, "0"},
		{"123456789012345678901234567890", 18, "123456789012345678901234567890000000000000000000"},
		{"1.0000001", 6, ""},
		{"", 6, ""},
		{".5", 6, ""},
		{"5.", 6, ""},
		{"-1", 6, ""},
		{"+1", 6, ""},
		{"1e6", 6, ""},
		{" 1", 6, ""},
		{"1,5", 6, ""},
		{"0x10", 6, ""},
		{"1.2.3", 6, ""},
		{"١", 6, ""}, // a non-ASCII digit
	} {
		got, err := Parse(tc.in, tc.decimals)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Parse(%q, %d) = %s, want an error", tc.in, tc.decimals, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("Parse(%q, %d) = %v, %v; want %s", tc.in, tc.decimals, got, err, tc.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		in       int64
		decimals uint8
		want     string
	}{
		{1_500_000, 6, "1.5"},
		{1, 6, "0.000001"},
		{0, 6, "0"},
		{7, 0, "7"},
		{-2_000_000, 6, "-2"},
	} {
		if got := Format(big.NewInt(tc.in), tc.decimals); got != tc.want {
			t.Errorf("Format(%d, %d) = %q, want %q", tc.in, tc.decimals, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"1", "0.5", "1000.000001", "", ".", "1e5", "-0", "00.10"} {
		f.Add(seed, uint8(6))
	}
	f.Fuzz(func(t *testing.T, s string, decimals uint8) {
		decimals %= 40
		v, err := Parse(s, decimals)
		if err != nil {
			return
		}
		if v.Sign() < 0 {
			t.Fatalf("Parse(%q) = %s, negative", s, v)
		}
		back, err := Parse(Format(v, decimals), decimals)
		if err != nil || back.Cmp(v) != 0 {
			t.Fatalf("round trip of %q: %s -> %q -> %v, %v", s, v, Format(v, decimals), back, err)
		}
	})
}
