package keys

import (
	"fmt"
	"strings"
)

// base58Alphabet is Bitcoin's alphabet, used by Solana addresses.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// Base58Encode encodes b in base58 with Bitcoin's alphabet (leading zero bytes become '1'): Solana's keys, hashes
// and signatures, and the payload of base58check.
func Base58Encode(b []byte) string { return base58EncodeAlphabet(b, base58Alphabet) }

// base58EncodeAlphabet encodes b in base58 with the given alphabet (leading zero bytes become its first letter). It
// works on 32-bit words and divides by 58^5 at a time, so a 32-byte key takes a few hundred nanoseconds: Solana
// policies render every account key of a transaction.
func base58EncodeAlphabet(b []byte, alphabet string) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	rest := b[zeros:]
	// The number as big-endian 32-bit words (the first word holds the bytes left over).
	words := make([]uint32, (len(rest)+3)/4)
	for i, v := range rest {
		pos := len(rest) - 1 - i // byte position from the least significant end
		words[len(words)-1-pos/4] |= uint32(v) << (8 * (pos % 4))
	}
	const chunk = 58 * 58 * 58 * 58 * 58 // 656356768 < 2^32
	// Digits, least significant first; log(256)/log(58) < 1.37.
	digits := make([]byte, 0, len(rest)*137/100+5)
	for start := 0; start < len(words); {
		var rem uint64
		for i := start; i < len(words); i++ {
			cur := rem<<32 | uint64(words[i])
			words[i] = uint32(cur / chunk)
			rem = cur % chunk
		}
		for words[start] == 0 && start < len(words)-1 {
			start++
		}
		last := start == len(words)-1 && words[start] == 0
		for j := 0; j < 5; j++ {
			if last && rem == 0 {
				break
			}
			digits = append(digits, alphabet[rem%58])
			rem /= 58
		}
		if last {
			break
		}
	}
	out := make([]byte, zeros+len(digits))
	for i := range zeros {
		out[i] = alphabet[0]
	}
	for i, d := range digits {
		out[len(out)-1-i] = d
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
