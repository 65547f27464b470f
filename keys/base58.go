package keys

import (
	"fmt"
	"strings"
)

// base58Alphabet is Bitcoin's alphabet, used by Solana addresses.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Encode encodes b in base58 (leading zero bytes become '1').
func base58Encode(b []byte) string { return base58EncodeAlphabet(b, base58Alphabet) }

// base58EncodeAlphabet encodes b in base58 with the given alphabet (leading zero bytes become its first letter).
func base58EncodeAlphabet(b []byte, alphabet string) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.37, so this many digits always suffice.
	digits := make([]byte, (len(b)-zeros)*137/100+1)
	n := 0
	for _, v := range b[zeros:] {
		carry := int(v)
		for i := 0; i < n; i++ {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits[n] = byte(carry % 58)
			n++
			carry /= 58
		}
	}
	out := make([]byte, zeros+n)
	for i := range zeros {
		out[i] = alphabet[0]
	}
	for i := range n {
		out[zeros+i] = alphabet[digits[n-1-i]]
	}
	return string(out)
}

// Base58Decode decodes base58 (Bitcoin's alphabet; each leading '1' is a zero byte).
func Base58Decode(s string) ([]byte, error) {
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// log(58)/log(256) < 0.733, so this many bytes always suffice.
	buf := make([]byte, (len(s)-zeros)*733/1000+1)
	n := 0
	for i := zeros; i < len(s); i++ {
		carry := strings.IndexByte(base58Alphabet, s[i])
		if carry < 0 {
			return nil, fmt.Errorf("%q is not a base58 character", s[i])
		}
		for j := 0; j < n; j++ {
			carry += int(buf[j]) * 58
			buf[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			buf[n] = byte(carry)
			n++
			carry >>= 8
		}
	}
	out := make([]byte, zeros+n)
	for i := range n {
		out[zeros+i] = buf[n-1-i]
	}
	return out, nil
}
