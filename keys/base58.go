package keys

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
