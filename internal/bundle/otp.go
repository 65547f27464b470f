package bundle

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// TargetData is the signed data of a target bundle: the key a client
// encrypts to, and whom it was made for. @turnkey/crypto reads targetPublic
// (and, for imports, organizationId and userId).
type TargetData struct {
	// TargetPublic is the receiving key, uncompressed P-256 hex.
	TargetPublic   string `json:"targetPublic"`
	OrganizationID string `json:"organizationId,omitempty"`
	UserID         string `json:"userId,omitempty"`
}

// TargetBundle builds the otpEncryptionTargetBundle of INIT_OTP_V3 (and the
// same shape serves import bundles): target's public key, signed by signer.
func TargetBundle(signer *ecdsa.PrivateKey, target *ecdh.PublicKey, organizationID, userID string) (string, error) {
	data, err := json.Marshal(TargetData{
		TargetPublic:   hex.EncodeToString(target.Bytes()),
		OrganizationID: organizationID,
		UserID:         userID,
	})
	if err != nil {
		return "", err
	}
	return Sign(signer, data)
}

// ParseTargetBundle verifies a target bundle's signature by signer and
// returns its data and the key to encrypt to.
func ParseTargetBundle(targetBundle string, signer *ecdsa.PublicKey) (TargetData, *ecdh.PublicKey, error) {
	data, err := Verify(targetBundle, signer)
	if err != nil {
		return TargetData{}, nil, err
	}
	var td TargetData
	if err := json.Unmarshal(data, &td); err != nil {
		return TargetData{}, nil, fmt.Errorf("%w: signed data is not a JSON object: %v", ErrMalformed, err)
	}
	if td.TargetPublic == "" {
		return TargetData{}, nil, fmt.Errorf("%w: signed data has no targetPublic", ErrMalformed)
	}
	pub, err := ParsePublicKeyHex(td.TargetPublic)
	if err != nil {
		return TargetData{}, nil, err
	}
	return td, pub, nil
}

// OTPPayload is the plaintext of an encryptedOtpBundle.
type OTPPayload struct {
	OTPCode string `json:"otp_code"`
	// PublicKey is the client key to bind into the verification token,
	// compressed P-256 hex.
	PublicKey string `json:"public_key"`
}

// EncryptOTP does what @turnkey/crypto's encryptOtpCodeToBundle does: check
// the target bundle's signature, then encrypt the code and the client's public
// key to its target. It returns the encryptedOtpBundle JSON text.
func EncryptOTP(targetBundle string, signer *ecdsa.PublicKey, code, publicKey string) (string, error) {
	_, target, err := ParseTargetBundle(targetBundle, signer)
	if err != nil {
		return "", err
	}
	plaintext, err := json.Marshal(OTPPayload{OTPCode: code, PublicKey: publicKey})
	if err != nil {
		return "", err
	}
	c, err := Seal(target, plaintext)
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(c)
	return string(out), err
}

// DecryptOTP opens the encryptedOtpBundle of VERIFY_OTP_V2 with the target
// key made at INIT_OTP_V3 and returns the code and the key to bind. Both
// fields are required.
func DecryptOTP(target *ecdh.PrivateKey, encryptedOtpBundle string) (OTPPayload, error) {
	if len(encryptedOtpBundle) > maxBundleLength {
		return OTPPayload{}, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxBundleLength)
	}
	var c Ciphertext
	if err := json.Unmarshal([]byte(encryptedOtpBundle), &c); err != nil {
		return OTPPayload{}, fmt.Errorf("%w: encryptedOtpBundle is not a JSON object with encappedPublic and ciphertext: %v", ErrMalformed, err)
	}
	plaintext, err := Open(target, c)
	if err != nil {
		return OTPPayload{}, err
	}
	var p OTPPayload
	dec := json.NewDecoder(bytes.NewReader(plaintext))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return OTPPayload{}, fmt.Errorf("%w: decrypted OTP bundle is not {otp_code, public_key}: %v", ErrMalformed, err)
	}
	if p.OTPCode == "" || p.PublicKey == "" {
		return OTPPayload{}, fmt.Errorf("%w: decrypted OTP bundle lacks otp_code or public_key", ErrMalformed)
	}
	if _, err := ParsePublicKeyHex(p.PublicKey); err != nil {
		return OTPPayload{}, fmt.Errorf("decrypted OTP bundle: public_key: %w", err)
	}
	return p, nil
}
