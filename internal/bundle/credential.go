package bundle

import (
	"crypto/ecdh"
	"encoding/hex"
	"fmt"

	"filippo.io/nistec"

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
	ephemeral, err := nistec.NewP256Point().SetBytes(enc)
	if err != nil {
		return "", fmt.Errorf("bundle: ephemeral key is not a P-256 point")
	}
	return keys.Base58CheckEncode(append(ephemeral.BytesCompressed(), ct...)), nil
}

// OpenCredentialBundle decrypts a credential bundle with the target's private key.
func OpenCredentialBundle(receiver *ecdh.PrivateKey, credentialBundle string) ([]byte, error) {
	raw, err := keys.Base58CheckDecode(credentialBundle)
	if err != nil || len(raw) <= 33 {
		return nil, fmt.Errorf("%w: not a credential bundle", ErrMalformed)
	}
	if raw[0] != 2 && raw[0] != 3 {
		return nil, fmt.Errorf("%w: the ephemeral key is not a compressed P-256 point", ErrMalformed)
	}
	ephemeral, err := nistec.NewP256Point().SetBytes(raw[:33])
	if err != nil {
		return nil, fmt.Errorf("%w: the ephemeral key is not a compressed P-256 point", ErrMalformed)
	}
	// HPKE takes the uncompressed point.
	return Open(receiver, Ciphertext{EncappedPublic: hex.EncodeToString(ephemeral.Bytes()), Ciphertext: hex.EncodeToString(raw[33:])})
}
