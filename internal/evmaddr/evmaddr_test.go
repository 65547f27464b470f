package evmaddr

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // part of the error; "" for an accepted address
	}{
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", ""}, // EIP-55 test vectors
		{"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", ""},
		{"0x52908400098527886E0F7030069857D2E4169EE7", ""},
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", ""}, // all lower case: no checksum to check
		{"0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", ""}, // all upper case: likewise
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "invalid EIP-55 checksum (expected 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed)"},
		{"0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "not a 0x-prefixed"},
		{"5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "not a 0x-prefixed"},
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea", "not a 0x-prefixed"},
		{"0xZaaeb6053f3e94c9b9a09f33669435e7ef1beaed", "not a 0x-prefixed"},
		{"0x" + strings.Repeat("a", 500), "…"},
		{"", "not a 0x-prefixed"},
	} {
		a, err := Parse(tc.in)
		switch {
		case tc.want == "" && (err != nil || !strings.EqualFold(a.Hex(), tc.in)):
			t.Errorf("%q: %v, %v", tc.in, a, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one with %q", tc.in, err, tc.want)
		}
	}
}
