// Package clientsig is the clientSignature of logins and signups (OTP_LOGIN, signups through the auth proxy and
// CREATE_SUB_ORGANIZATION): the message @turnkey/core signs to allow one use of a verification token, and its
// signature by the client key the token binds. The Go SDK signs with it (client.LoginSignature); the coordinator checks
// the signatures against the same messages.
package clientsig

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/stamp"
)

// SchemeP256 is the only clientSignature scheme: P-256 ECDSA over SHA-256(message), the signature as 64-byte r||s hex.
const SchemeP256 = "CLIENT_SIGNATURE_SCHEME_API_P256"

// Usage types of a Usage message.
const (
	UsageTypeLogin  = "USAGE_TYPE_LOGIN"
	UsageTypeSignup = "USAGE_TYPE_SIGNUP"
)

// Usage is the signed message: what the holder of the verification token's key allows the token to be used for.
// Field order matches the JSON.stringify output of @turnkey/core (usage key, tokenId, type).
type Usage struct {
	Login *LoginUsage `json:"login,omitempty"`
	// Signup is the legacy key, with v1 oauthProviders.
	Signup   *SignupUsage `json:"signup,omitempty"`
	SignupV2 *SignupUsage `json:"signupV2,omitempty"`
	TokenID  string       `json:"tokenId"`
	Type     string       `json:"type"`
}

// LoginUsage names the session key the login will register.
type LoginUsage struct {
	PublicKey string `json:"publicKey"`
}

// SignupUsage mirrors the root user being created. The lists are kept as the client sent them and compared by JSON
// value, not by bytes.
type SignupUsage struct {
	APIKeys        json.RawMessage `json:"apiKeys,omitempty"`
	Authenticators json.RawMessage `json:"authenticators,omitempty"`
	OAuthProviders json.RawMessage `json:"oauthProviders,omitempty"`
	Email          string          `json:"email,omitempty"`
	PhoneNumber    string          `json:"phoneNumber,omitempty"`
}

// LoginMessage builds the message @turnkey/core signs for a login:
// {"login":{"publicKey":…},"tokenId":…,"type":"USAGE_TYPE_LOGIN"}.
func LoginMessage(tokenID, sessionPublicKey string) (string, error) {
	return marshal(Usage{Login: &LoginUsage{PublicKey: sessionPublicKey}, TokenID: tokenID, Type: UsageTypeLogin})
}

// SignupMessage builds the message @turnkey/core signs for a signup, with the usage under "signupV2".
func SignupMessage(tokenID string, usage SignupUsage) (string, error) {
	return marshal(Usage{SignupV2: &usage, TokenID: tokenID, Type: UsageTypeSignup})
}

// marshal produces the bytes JSON.stringify would: no HTML escaping and U+2028/U+2029 left as they are.
func marshal(u Usage) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(u); err != nil {
		return "", err
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	return strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(s), nil
}

// Sign signs a Usage message with the verification token's client key, as a client does, and returns the complete
// clientSignature.
func Sign(key *ecdsa.PrivateKey, message string) (api.ClientSignature, error) {
	if key == nil || key.Curve != elliptic.P256() {
		return api.ClientSignature{}, errors.New("clientsig: the client key must be a P-256 key")
	}
	digest := sha256.Sum256([]byte(message))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return api.ClientSignature{}, err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	pub, err := stamp.P256PublicKeyHex(&key.PublicKey)
	if err != nil {
		return api.ClientSignature{}, err
	}
	return api.ClientSignature{PublicKey: pub, Scheme: SchemeP256, Message: message, Signature: hex.EncodeToString(sig)}, nil
}
