package solana

// alphabet is Bitcoin's base58 alphabet, in which Solana writes keys, hashes and signatures.
const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// Base58 encodes b in base58 (leading zero bytes become '1'). It works on 32-bit words and divides by 58^5 at a time,
// so a 32-byte key takes a few hundred nanoseconds.
func Base58(b []byte) string {
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
		out[i] = '1'
	}
	for i, d := range digits {
		out[len(out)-1-i] = d
	}
	return string(out)
}
