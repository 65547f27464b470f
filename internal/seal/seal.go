// Package seal encrypts key material at rest with envelope encryption.
//
// Each blob gets a fresh random 256-bit data key. The payload is sealed with
// AES-256-GCM under the data key and caller-supplied associated data (for
// example "org/<id>/wallet/<id>", so a blob cannot be moved to another row).
// The data key is wrapped with AES-256-GCM under a versioned master key, and
// the blob names that version. Rotating the master key re-wraps the data key
// only ([Keyring.Rewrap]); the payload is never decrypted for that.
//
// Blob layout, format version 1 (93 bytes of overhead):
//
//	offset  size  field
//	0       1     format version (1)
//	1       4     master key version, big-endian
//	5       12    nonce of the wrapped data key
//	17      48    wrapped data key (32 bytes + 16-byte GCM tag)
//	65      12    nonce of the payload
//	77      n+16  payload ciphertext and GCM tag
//
// The wrapped data key is authenticated together with bytes 0-4, so the
// version cannot be swapped; the payload is authenticated together with the
// format version and the caller's associated data.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

const (
	formatVersion = 1
	keySize       = 32
	nonceSize     = 12
	tagSize       = 16

	headerSize    = 1 + 4
	wrappedKeyEnd = headerSize + nonceSize + keySize + tagSize
	payloadStart  = wrappedKeyEnd + nonceSize
	minBlobSize   = payloadStart + tagSize
	wrapDomain    = "sigil/seal/v1/data-key"
	payloadDomain = "sigil/seal/v1/payload"
)

// Overhead is the number of bytes a sealed blob adds to its plaintext.
const Overhead = minBlobSize

var (
	// ErrMalformed reports a blob that is not a sealed blob of a known format.
	ErrMalformed = errors.New("sealed blob is malformed")
	// ErrUnknownVersion reports a blob sealed under a master key version that
	// the keyring does not hold.
	ErrUnknownVersion = errors.New("sealed blob names a master key version this keyring does not hold")
	// ErrAuthentication reports a blob that failed authentication: wrong
	// associated data, tampered bytes, or a different master key under the
	// same version number.
	ErrAuthentication = errors.New("sealed blob failed authentication: wrong associated data, tampered blob or wrong master key")
)

// MasterKey is one version of the master key.
type MasterKey struct {
	Version uint32
	Key     []byte // 32 bytes
}

// Keyring holds master keys by version, one of them active. It is immutable
// and safe for concurrent use.
type Keyring struct {
	active uint32
	aeads  map[uint32]cipher.AEAD
}

// NewKeyring builds a keyring from master keys; active must be one of them.
// The keys are expanded into AES key schedules and not retained.
func NewKeyring(active uint32, keys ...MasterKey) (*Keyring, error) {
	k := &Keyring{active: active, aeads: make(map[uint32]cipher.AEAD, len(keys))}
	for _, mk := range keys {
		if mk.Version == 0 {
			return nil, errors.New("master key version 0 is not allowed: versions start at 1")
		}
		if _, dup := k.aeads[mk.Version]; dup {
			return nil, fmt.Errorf("master key version %d appears twice", mk.Version)
		}
		aead, err := newAEAD(mk.Key)
		if err != nil {
			return nil, fmt.Errorf("master key version %d: %w", mk.Version, err)
		}
		k.aeads[mk.Version] = aead
	}
	if _, ok := k.aeads[active]; !ok {
		return nil, fmt.Errorf("active master key version %d is not in the keyring", active)
	}
	return k, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("key is %d bytes: want %d", len(key), keySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// ActiveVersion is the master key version new blobs are sealed under.
func (k *Keyring) ActiveVersion() uint32 { return k.active }

// Versions lists the master key versions the keyring holds, ascending.
func (k *Keyring) Versions() []uint32 {
	out := make([]uint32, 0, len(k.aeads))
	for v := range k.aeads {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Seal encrypts plaintext under a fresh data key bound to aad, and wraps the
// data key under the active master key.
func (k *Keyring) Seal(plaintext, aad []byte) ([]byte, error) {
	dataKey := make([]byte, keySize)
	defer clear(dataKey)
	rand.Read(dataKey) // crypto/rand.Read never fails; it crashes the program instead.

	blob := make([]byte, payloadStart, minBlobSize+len(plaintext))
	blob[0] = formatVersion
	binary.BigEndian.PutUint32(blob[1:headerSize], k.active)
	k.wrap(blob, dataKey)

	payloadAEAD, err := newAEAD(dataKey)
	if err != nil {
		return nil, err
	}
	nonce := blob[wrappedKeyEnd:payloadStart]
	rand.Read(nonce)
	return payloadAEAD.Seal(blob, nonce, plaintext, payloadAAD(aad)), nil
}

// wrap writes a fresh nonce and dataKey wrapped under the master key named in
// blob's header into blob[headerSize:wrappedKeyEnd].
func (k *Keyring) wrap(blob, dataKey []byte) {
	nonce := blob[headerSize : headerSize+nonceSize]
	rand.Read(nonce)
	aead := k.aeads[binary.BigEndian.Uint32(blob[1:headerSize])]
	aead.Seal(blob[headerSize+nonceSize:headerSize+nonceSize], nonce, dataKey, wrapAAD(blob))
}

// Open decrypts a blob sealed with the same aad.
func (k *Keyring) Open(blob, aad []byte) ([]byte, error) {
	dataKey, err := k.unwrap(blob)
	if err != nil {
		return nil, err
	}
	defer clear(dataKey)
	payloadAEAD, err := newAEAD(dataKey)
	if err != nil {
		return nil, err
	}
	plaintext, err := payloadAEAD.Open(nil, blob[wrappedKeyEnd:payloadStart], blob[payloadStart:], payloadAAD(aad))
	if err != nil {
		return nil, ErrAuthentication
	}
	return plaintext, nil
}

// Rewrap returns a copy of blob whose data key is wrapped under the active
// master key; the payload bytes are unchanged. This is what master key
// rotation runs over every stored blob.
func (k *Keyring) Rewrap(blob []byte) ([]byte, error) {
	dataKey, err := k.unwrap(blob)
	if err != nil {
		return nil, err
	}
	defer clear(dataKey)
	out := slices.Clone(blob)
	binary.BigEndian.PutUint32(out[1:headerSize], k.active)
	k.wrap(out, dataKey)
	return out, nil
}

// NeedsRewrap reports whether blob is not wrapped under the active master
// key. A malformed blob also needs attention, so it reports true; Rewrap then
// says what is wrong.
func (k *Keyring) NeedsRewrap(blob []byte) bool {
	v, err := BlobVersion(blob)
	return err != nil || v != k.active
}

// BlobVersion returns the master key version a blob is wrapped under.
func BlobVersion(blob []byte) (uint32, error) {
	if len(blob) < minBlobSize {
		return 0, fmt.Errorf("%w: %d bytes, a sealed blob has at least %d", ErrMalformed, len(blob), minBlobSize)
	}
	if blob[0] != formatVersion {
		return 0, fmt.Errorf("%w: unknown format version %d", ErrMalformed, blob[0])
	}
	return binary.BigEndian.Uint32(blob[1:headerSize]), nil
}

func (k *Keyring) unwrap(blob []byte) ([]byte, error) {
	v, err := BlobVersion(blob)
	if err != nil {
		return nil, err
	}
	aead, ok := k.aeads[v]
	if !ok {
		return nil, fmt.Errorf("%w: version %d (held: %v)", ErrUnknownVersion, v, k.Versions())
	}
	dataKey, err := aead.Open(nil, blob[headerSize:headerSize+nonceSize], blob[headerSize+nonceSize:wrappedKeyEnd], wrapAAD(blob))
	if err != nil {
		return nil, ErrAuthentication
	}
	return dataKey, nil
}

func wrapAAD(blob []byte) []byte {
	return append([]byte(wrapDomain), blob[:headerSize]...)
}

func payloadAAD(aad []byte) []byte {
	out := make([]byte, 0, len(payloadDomain)+1+len(aad))
	out = append(out, payloadDomain...)
	out = append(out, formatVersion)
	return append(out, aad...)
}
