// Package bundle builds and opens the HPKE bundles the SDKs exchange with the
// coordinator (reference 5.3), in the formats of @turnkey/crypto:
//
//   - a signed message {"version","data","dataSignature","enclaveQuorumPublic"}
//     whose data is hex of a JSON object, signed by the coordinator's key
//     (ECDSA P-256 over SHA-256(data), DER, hex);
//   - an HPKE ciphertext {"encappedPublic","ciphertext"}: RFC 9180 base mode,
//     DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, info
//     "turnkey_hpke", AAD = encappedPublic ‖ receiver public key (both 65-byte
//     uncompressed points).
//
// On these two sit the OTP bundles of INIT_OTP_V3 / VERIFY_OTP_V2 (a signed
// target key, then the client's encrypted code) and the export bundle that
// @turnkey/crypto's decryptExportBundle reads.
package bundle

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sigil/sigil/internal/token"
)

// Version is the "version" of every signed message.
const Version = "v1.0.0"

// info is the HPKE info string of every Turnkey bundle.
var info = []byte("turnkey_hpke")

// maxBundleLength bounds what the parsers read; real bundles are < 4 KiB.
const maxBundleLength = 64 << 10

// Errors, wrapped with details; test with errors.Is.
var (
	// ErrMalformed: the bundle is not the expected JSON, hex or key encoding.
	ErrMalformed = errors.New("malformed bundle")
	// ErrSigner: the bundle is signed by another key than the expected one,
	// or the signature does not verify.
	ErrSigner = errors.New("bundle not signed by the expected key")
	// ErrDecrypt: HPKE decryption failed: wrong key, or tampered ciphertext.
	ErrDecrypt = errors.New("bundle decryption failed")
	// ErrOrganization: the bundle was made for another organization.
	ErrOrganization = errors.New("bundle is for another organization")
)

// The suite's KEM, DHKEM(P-256, HKDF-SHA256), comes with the keys (hpke.NewDHKEMPublicKey, NewDHKEMPrivateKey).
var (
	kdf  = hpke.HKDFSHA256()
	aead = hpke.AES256GCM()
)

// SignedMessage is the outer JSON of target and export bundles.
type SignedMessage struct {
	Version             string `json:"version"`
	Data                string `json:"data"`
	DataSignature       string `json:"dataSignature"`
	EnclaveQuorumPublic string `json:"enclaveQuorumPublic"`
}

// Sign wraps data (a JSON object's bytes) in a signed message and returns
// its JSON text. The signature is DER, as verifyEnclaveSignature expects.
func Sign(signer *ecdsa.PrivateKey, data []byte) (string, error) {
	if signer == nil || signer.Curve != elliptic.P256() {
		return "", errors.New("bundle: the signing key must be a P-256 key")
	}
	digest := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, signer, digest[:])
	if err != nil {
		return "", fmt.Errorf("bundle: signing: %w", err)
	}
	pub, err := signer.PublicKey.Bytes()
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(SignedMessage{
		Version:             Version,
		Data:                hex.EncodeToString(data),
		DataSignature:       hex.EncodeToString(sig),
		EnclaveQuorumPublic: hex.EncodeToString(pub),
	})
	return string(out), err
}

// Verify checks that a signed message is signed by signer (the client's
// pinned key) and returns its data bytes.
func Verify(message string, signer *ecdsa.PublicKey) ([]byte, error) {
	if len(message) > maxBundleLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxBundleLength)
	}
	var m SignedMessage
	if err := json.Unmarshal([]byte(message), &m); err != nil {
		return nil, fmt.Errorf("%w: not a signed message JSON object: %v", ErrMalformed, err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("%w: version %q, want %q", ErrMalformed, m.Version, Version)
	}
	want, err := signer.Bytes()
	if err != nil {
		return nil, fmt.Errorf("bundle: invalid signer key: %w", err)
	}
	if m.EnclaveQuorumPublic != hex.EncodeToString(want) {
		return nil, fmt.Errorf("%w: signed by %s, want %x", ErrSigner, m.EnclaveQuorumPublic, want)
	}
	data, err := hex.DecodeString(m.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: data is not hex", ErrMalformed)
	}
	sig, err := hex.DecodeString(m.DataSignature)
	if err != nil {
		return nil, fmt.Errorf("%w: dataSignature is not hex", ErrMalformed)
	}
	digest := sha256.Sum256(data)
	if !ecdsa.VerifyASN1(signer, digest[:], sig) {
		return nil, fmt.Errorf("%w: dataSignature does not verify", ErrSigner)
	}
	return data, nil
}

// Ciphertext is an HPKE-encrypted payload as the SDKs format it.
type Ciphertext struct {
	// EncappedPublic is the sender's ephemeral key, uncompressed P-256 hex.
	EncappedPublic string `json:"encappedPublic"`
	Ciphertext     string `json:"ciphertext"`
}

// Seal encrypts plaintext to receiver with a fresh ephemeral key.
func Seal(receiver *ecdh.PublicKey, plaintext []byte) (Ciphertext, error) {
	pk, err := hpke.NewDHKEMPublicKey(receiver)
	if err != nil {
		return Ciphertext{}, fmt.Errorf("bundle: receiver key: %w", err)
	}
	enc, sender, err := hpke.NewSender(pk, kdf, aead, info)
	if err != nil {
		return Ciphertext{}, fmt.Errorf("bundle: HPKE setup: %w", err)
	}
	ct, err := sender.Seal(aad(enc, receiver), plaintext)
	if err != nil {
		return Ciphertext{}, fmt.Errorf("bundle: HPKE seal: %w", err)
	}
	return Ciphertext{EncappedPublic: hex.EncodeToString(enc), Ciphertext: hex.EncodeToString(ct)}, nil
}

// Open decrypts a ciphertext addressed to receiver.
func Open(receiver *ecdh.PrivateKey, c Ciphertext) ([]byte, error) {
	enc, err := hex.DecodeString(c.EncappedPublic)
	if err != nil || len(enc) != 65 {
		return nil, fmt.Errorf("%w: encappedPublic must be a 65-byte uncompressed P-256 key in hex", ErrMalformed)
	}
	ct, err := hex.DecodeString(c.Ciphertext)
	if err != nil {
		return nil, fmt.Errorf("%w: ciphertext is not hex", ErrMalformed)
	}
	return open(receiver, enc, ct, info, aad(enc, receiver.PublicKey()))
}

// open is RFC 9180's single-shot open in base mode with the bundles' suite: the first message (sequence 0) of a
// recipient context set up from enc. Open calls it with the bundles' info and AAD; RFC 9180's test vectors, with
// theirs (TestRFC9180Vectors).
func open(receiver *ecdh.PrivateKey, enc, ct, info, aad []byte) ([]byte, error) {
	sk, err := hpke.NewDHKEMPrivateKey(receiver)
	if err != nil {
		return nil, fmt.Errorf("bundle: receiver key: %w", err)
	}
	r, err := hpke.NewRecipient(enc, sk, kdf, aead, info)
	if err != nil {
		return nil, fmt.Errorf("%w: encappedPublic is not a valid P-256 point: %v", ErrMalformed, err)
	}
	pt, err := r.Open(aad, ct)
	if err != nil {
		return nil, fmt.Errorf("%w: wrong key or tampered ciphertext", ErrDecrypt)
	}
	return pt, nil
}

// aad binds both public keys to the ciphertext, as @turnkey/crypto does.
func aad(enc []byte, receiver *ecdh.PublicKey) []byte {
	out := make([]byte, 0, 130)
	out = append(out, enc...)
	return append(out, receiver.Bytes()...)
}

// NewTargetKey generates a one-time P-256 key to receive one bundle. Keep
// its Bytes() sealed at rest until the bundle arrives, then delete it.
func NewTargetKey() (*ecdh.PrivateKey, error) {
	return ecdh.P256().GenerateKey(rand.Reader)
}

// ParseTargetKey reads a target private key saved with Bytes().
func ParseTargetKey(raw []byte) (*ecdh.PrivateKey, error) {
	k, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		return nil, fmt.Errorf("bundle: invalid target private key: %w", err)
	}
	return k, nil
}

// ParsePublicKeyHex reads an uncompressed (65-byte) or compressed (33-byte)
// P-256 public key in hex, as HPKE receiver key.
func ParsePublicKeyHex(s string) (*ecdh.PublicKey, error) {
	pub, err := token.ParseP256PublicKey(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	k, err := pub.ECDH()
	if err != nil {
		return nil, fmt.Errorf("%w: not a P-256 public key: %v", ErrMalformed, err)
	}
	return k, nil
}
