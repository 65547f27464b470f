// Package otp generates one-time codes, stores them only as keyed hashes, and
// enforces the limits of INIT_OTP / VERIFY_OTP as a pure state machine over
// records the coordinator persists: attempts per code, live codes per
// contact, SMS requests per user identifier, and expiry.
//
// Nothing here does I/O or reads the clock: the Manager is given the time
// function, and callers pass the records they loaded and store the records
// they get back.
package otp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Code alphabets. Crockford Base32 leaves out I, L, O and U so that a code
// read aloud or copied by hand has no look-alike characters.
const (
	CrockfordAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	DigitAlphabet     = "0123456789"
)

// Code lengths (otpLength).
const (
	MinLength     = 6
	MaxLength     = 9
	DefaultLength = 9
)

// Generate returns a random code of length characters from crypto/rand,
// Crockford Base32 when alphanumeric, else digits. Each character is
// uniform: bytes that would bias the modulo are drawn again.
func Generate(length int, alphanumeric bool) (string, error) {
	if length < MinLength || length > MaxLength {
		return "", fmt.Errorf("%w: otpLength %d, want %d to %d", ErrInvalidRequest, length, MinLength, MaxLength)
	}
	alphabet := DigitAlphabet
	if alphanumeric {
		alphabet = CrockfordAlphabet
	}
	return generate(rand.Reader, length, alphabet)
}

func generate(random io.Reader, length int, alphabet string) (string, error) {
	n := len(alphabet)
	limit := 256 - 256%n // bytes >= limit would favour the first 256%n characters
	out := make([]byte, 0, length)
	buf := make([]byte, 2*length)
	for len(out) < length {
		if _, err := io.ReadFull(random, buf); err != nil {
			return "", fmt.Errorf("otp: reading randomness: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, alphabet[int(b)%n])
			if len(out) == length {
				break
			}
		}
	}
	return string(out), nil
}

// Normalize turns what a user typed into the form codes are generated in:
// spaces and hyphens are dropped, letters upper-cased, and, as Crockford's
// decoding rules say, I and L read as 1 and O as 0. A code never contains I,
// L or O, so this only forgives misreadings; U stays U and never matches.
func Normalize(entry string) string {
	var b strings.Builder
	b.Grow(len(entry))
	for _, r := range entry {
		switch r {
		case ' ', '\t', '-', '\u00a0':
			continue
		case 'i', 'I', 'l', 'L':
			r = '1'
		case 'o', 'O':
			r = '0'
		default:
			if r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MinSecretLength is the shortest server secret NewHasher accepts.
const MinSecretLength = 32

// Hasher turns codes into keyed hashes, so a leaked database does not leak
// live codes: without the server secret a 9-character hash cannot be
// brute-forced offline.
type Hasher struct {
	key []byte
}

// NewHasher keys a Hasher with the server secret (at least 32 bytes, from
// the coordinator's sealed configuration).
func NewHasher(secret []byte) (*Hasher, error) {
	if len(secret) < MinSecretLength {
		return nil, fmt.Errorf("otp: the code-hashing secret is %d bytes, want at least %d", len(secret), MinSecretLength)
	}
	return &Hasher{key: append([]byte(nil), secret...)}, nil
}

// Hash is HMAC-SHA256(secret, domain ‖ len(otpID) ‖ otpID ‖ Normalize(code)).
// The OTP id binds the hash to one record, so equal codes hash differently
// and a hash cannot be moved to another record.
func (h *Hasher) Hash(otpID, code string) []byte {
	mac := hmac.New(sha256.New, h.key)
	mac.Write([]byte("sigil/otp/v1\x00"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(otpID)))
	mac.Write(n[:])
	mac.Write([]byte(otpID))
	mac.Write([]byte(Normalize(code)))
	return mac.Sum(nil)
}

// Matches reports, in constant time, whether entry is the code hashed into
// stored for otpID.
func (h *Hasher) Matches(otpID, entry string, stored []byte) bool {
	return hmac.Equal(h.Hash(otpID, entry), stored)
}
