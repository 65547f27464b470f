package keys

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/tyler-smith/go-bip39/wordlists"
	"golang.org/x/text/unicode/norm"
)

// BIP-39 is implemented here rather than with go-bip39's functions because
// those put the offending mnemonic word into error messages, skip the NFKD
// normalization BIP-39 requires for passphrases and keep the word list in a
// mutable global. Only go-bip39's English word list is used.

// ErrMnemonicChecksum reports a mnemonic whose words are all valid but whose
// checksum does not match: usually a mistyped or reordered word.
var ErrMnemonicChecksum = errors.New("mnemonic checksum does not match: a word is wrong or out of order")

const bitsPerWord = 11

// mnemonicWordCounts maps each allowed word count to its entropy size in bits.
var mnemonicWordCounts = map[int]int{12: 128, 15: 160, 18: 192, 21: 224, 24: 256}

var englishIndex = sync.OnceValue(func() map[string]uint16 {
	index := make(map[string]uint16, len(wordlists.English))
	for i, w := range wordlists.English {
		index[w] = uint16(i)
	}
	return index
})

// NewMnemonic returns a fresh English BIP-39 mnemonic of the given number of
// words (12, 15, 18, 21 or 24) from crypto/rand, words separated by single
// spaces. Wipe it with [Zero] when done.
func NewMnemonic(words int) ([]byte, error) {
	bits, ok := mnemonicWordCounts[words]
	if !ok {
		return nil, fmt.Errorf("mnemonic length %d is not allowed: want 12, 15, 18, 21 or 24 words", words)
	}
	entropy := make([]byte, bits/8)
	defer Zero(entropy)
	rand.Read(entropy) // crypto/rand.Read never fails; it crashes the program instead.
	return MnemonicFromEntropy(entropy)
}

// MnemonicFromEntropy encodes 16, 20, 24, 28 or 32 bytes of entropy as an
// English BIP-39 mnemonic.
func MnemonicFromEntropy(entropy []byte) ([]byte, error) {
	words := len(entropy) * 8 * 3 / 32
	if bits, ok := mnemonicWordCounts[words]; !ok || bits != len(entropy)*8 {
		return nil, fmt.Errorf("entropy of %d bytes is not allowed: want 16, 20, 24, 28 or 32", len(entropy))
	}
	// entropy || checksum byte || two bytes of padding so every 11-bit read
	// can load three bytes.
	buf := make([]byte, len(entropy)+3)
	defer Zero(buf)
	copy(buf, entropy)
	sum := sha256.Sum256(entropy)
	buf[len(entropy)] = sum[0]

	out := make([]byte, 0, words*9)
	for i := range words {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, wordlists.English[read11(buf, i*bitsPerWord)]...)
	}
	return out, nil
}

// EntropyFromMnemonic checks an English mnemonic (words separated by any
// whitespace) and returns its entropy. Errors name the position of a bad word,
// never the word itself, so they can be shown or logged.
func EntropyFromMnemonic(mnemonic []byte) ([]byte, error) {
	words := splitWords(mnemonic)
	bits, ok := mnemonicWordCounts[len(words)]
	if !ok {
		return nil, fmt.Errorf("mnemonic has %d words: want 12, 15, 18, 21 or 24", len(words))
	}
	index := englishIndex()
	buf := make([]byte, bits/8+3)
	defer Zero(buf)
	for i, w := range words {
		v, ok := index[string(w)] // the compiler does not allocate for this lookup
		if !ok {
			return nil, fmt.Errorf("mnemonic word %d is not in the BIP-39 English word list", i+1)
		}
		write11(buf, i*bitsPerWord, v)
	}
	entropy := make([]byte, bits/8)
	copy(entropy, buf)
	sum := sha256.Sum256(entropy)
	checksumBits := uint(bits / 32)
	mask := byte(0xff) << (8 - checksumBits)
	if (sum[0]^buf[bits/8])&mask != 0 {
		Zero(entropy)
		return nil, ErrMnemonicChecksum
	}
	return entropy, nil
}

// ValidateMnemonic reports whether mnemonic is a valid English BIP-39
// mnemonic, with an error that says what is wrong.
func ValidateMnemonic(mnemonic []byte) error {
	entropy, err := EntropyFromMnemonic(mnemonic)
	Zero(entropy)
	return err
}

// SeedFromMnemonic validates the mnemonic and derives the 64-byte BIP-39 seed
// with PBKDF2-HMAC-SHA512 (2048 rounds, salt "mnemonic"+passphrase, both
// NFKD-normalized). Words are joined by single spaces first, so stray
// whitespace does not change the seed. Wipe the seed with [Zero] when done.
func SeedFromMnemonic(mnemonic []byte, passphrase string) ([]byte, error) {
	if err := ValidateMnemonic(mnemonic); err != nil {
		return nil, err
	}
	canonical := joinWords(splitWords(mnemonic))
	defer Zero(canonical)
	salt := []byte("mnemonic" + norm.NFKD.String(passphrase))
	// English words are ASCII, already NFKD.
	seed, err := pbkdf2.Key(sha512.New, string(canonical), salt, 2048, 64)
	if err != nil {
		return nil, fmt.Errorf("derive seed: %w", err)
	}
	return seed, nil
}

func splitWords(b []byte) [][]byte {
	var words [][]byte
	start := -1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		space := r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u3000'
		switch {
		case space && start >= 0:
			words = append(words, b[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 {
		words = append(words, b[start:])
	}
	return words
}

func joinWords(words [][]byte) []byte {
	n := len(words)
	for _, w := range words {
		n += len(w)
	}
	out := make([]byte, 0, n)
	for i, w := range words {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, w...)
	}
	return out
}

// read11 returns the 11 bits of buf starting at bit offset off (big-endian).
func read11(buf []byte, off int) uint16 {
	b := off / 8
	v := uint32(buf[b])<<16 | uint32(buf[b+1])<<8 | uint32(buf[b+2])
	return uint16(v>>(24-bitsPerWord-uint(off%8))) & 0x7ff
}

// write11 stores the 11 bits of v into buf at bit offset off (big-endian).
func write11(buf []byte, off int, v uint16) {
	b := off / 8
	shifted := uint32(v&0x7ff) << (24 - bitsPerWord - uint(off%8))
	buf[b] |= byte(shifted >> 16)
	buf[b+1] |= byte(shifted >> 8)
	buf[b+2] |= byte(shifted)
}
