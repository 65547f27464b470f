package bundle

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"encoding/hex"
	"fmt"

	"github.com/sigil/sigil/internal/keys"
)

// CredentialBundle encrypts a secret (a session's private key) to a target key as @turnkey/crypto's
// decryptCredentialBundle reads it: base58check of the compressed ephemeral public key (33 bytes) followed by the
// HPKE ciphertext.
func CredentialBundle(target *ecdh.PublicKey, secret []byte) (string, error) {
	c, err := Seal(target, secret)
	if err != nil {
		return "", err
	}
	enc, _ := hex.DecodeString(c.EncappedPublic)
	ct, _ := hex.DecodeString(c.Ciphertext)
	x, y := elliptic.Unmarshal(elliptic.P256(), enc) // deprecated for keys, still right for point compression
	if x == nil {
		return "", fmt.Errorf("bundle: ephemeral key is not a P-256 point")
	}
	compressed := elliptic.MarshalCompressed(elliptic.P256(), x, y)
	return keys.Base58CheckEncode(append(compressed, ct...)), nil
}

// OpenCredentialBundle decrypts a credential bundle with the target's private key.
func OpenCredentialBundle(receiver *ecdh.PrivateKey, credentialBundle string) ([]byte, error) {
	raw, err := keys.Base58CheckDecode(credentialBundle)
	if err != nil || len(raw) <= 33 {
		return nil, fmt.Errorf("%w: not a credential bundle", ErrMalformed)
	}
	x, y := elliptic.UnmarshalCompressed(elliptic.P256(), raw[:33])
	if x == nil {
		return nil, fmt.Errorf("%w: the ephemeral key is not a compressed P-256 point", ErrMalformed)
	}
	enc := elliptic.Marshal(elliptic.P256(), x, y) // HPKE takes the uncompressed point
	return Open(receiver, Ciphertext{EncappedPublic: hex.EncodeToString(enc), Ciphertext: hex.EncodeToString(raw[33:])})
}
