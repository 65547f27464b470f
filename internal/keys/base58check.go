package keys

import (
	"bytes"
	"crypto/sha256"
	"errors"
)

// Base58CheckEncode encodes payload followed by the first four bytes of its double SHA-256, in base58 (the bs58check
// of the JavaScript ecosystem: no version byte).
func Base58CheckEncode(payload []byte) string {
	sum := doubleSHA256(payload)
	return Base58Encode(append(append([]byte{}, payload...), sum[:4]...))
}

// Base58CheckDecode reverses Base58CheckEncode, checking the checksum.
func Base58CheckDecode(s string) ([]byte, error) {
	b, err := Base58Decode(s)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, errors.New("base58check: too short for a checksum")
	}
	payload, check := b[:len(b)-4], b[len(b)-4:]
	if sum := doubleSHA256(payload); !bytes.Equal(sum[:4], check) {
		return nil, errors.New("base58check: checksum does not match")
	}
	return payload, nil
}

func doubleSHA256(b []byte) [32]byte {
	first := sha256.Sum256(b)
	return sha256.Sum256(first[:])
}
