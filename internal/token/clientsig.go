package token

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ClientSignatureSchemeP256 is the only clientSignature scheme: P-256 ECDSA
// over SHA-256(message), signature as 64-byte r||s hex.
const ClientSignatureSchemeP256 = "CLIENT_SIGNATURE_SCHEME_API_P256"

// Usage types of a TokenUsage message.
const (
	UsageTypeLogin  = "USAGE_TYPE_LOGIN"
	UsageTypeSignup = "USAGE_TYPE_SIGNUP"
)

// ErrClientSignature is wrapped by every clientSignature failure.
var ErrClientSignature = errors.New("invalid client signature")

// ClientSignature is the clientSignature parameter of OTP_LOGIN, signup and
// CREATE_SUB_ORGANIZATION.
type ClientSignature struct {
	PublicKey string `json:"publicKey"`
	Scheme    string `json:"scheme"`
	Message   string `json:"message"`
	Signature string `json:"signature"`
}

// TokenUsage is the signed message: what the holder of the verification
// token's key allows the token to be used for. Field order matches the
// JSON.stringify output of @turnkey/core (usage key, tokenId, type).
type TokenUsage struct {
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

// SignupUsage mirrors the root user being created. The lists are kept as the
// client sent them and compared by JSON value, not by bytes.
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
	return marshalUsage(TokenUsage{Login: &LoginUsage{PublicKey: sessionPublicKey}, TokenID: tokenID, Type: UsageTypeLogin})
}

// SignupMessage builds the message @turnkey/core signs for a signup, with
// the usage under "signupV2".
func SignupMessage(tokenID string, usage SignupUsage) (string, error) {
	return marshalUsage(TokenUsage{SignupV2: &usage, TokenID: tokenID, Type: UsageTypeSignup})
}

// marshalUsage produces the bytes JSON.stringify would: no HTML escaping
// and U+2028/U+2029 left as they are.
func marshalUsage(u TokenUsage) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(u); err != nil {
		return "", err
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	return strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(s), nil
}

// SignClientMessage signs a TokenUsage message with the verification token's
// key, as a client does, and returns the complete ClientSignature.
func SignClientMessage(key *ecdsa.PrivateKey, message string) (ClientSignature, error) {
	if err := checkKey(key); err != nil {
		return ClientSignature{}, err
	}
	digest := sha256Sum([]byte(message))
	sig, err := signRaw(key, digest)
	if err != nil {
		return ClientSignature{}, err
	}
	pub, err := CompressedPublicKeyHex(&key.PublicKey)
	if err != nil {
		return ClientSignature{}, err
	}
	return ClientSignature{PublicKey: pub, Scheme: ClientSignatureSchemeP256, Message: message, Signature: hex.EncodeToString(sig)}, nil
}

// VerifyClientSignature checks that cs is a valid P-256 signature over its
// message by tokenPublicKey (the verification token's public_key claim) and
// returns the parsed message. Callers then check the usage, or use
// VerifyLoginSignature / VerifySignupSignature, which do both.
func VerifyClientSignature(cs ClientSignature, tokenPublicKey string) (TokenUsage, error) {
	if cs.Scheme != ClientSignatureSchemeP256 {
		return TokenUsage{}, fmt.Errorf("%w: scheme %q, want %s", ErrClientSignature, cs.Scheme, ClientSignatureSchemeP256)
	}
	if tokenPublicKey == "" {
		return TokenUsage{}, fmt.Errorf("%w: the verification token binds no public key, so nothing can be checked against it", ErrClientSignature)
	}
	if !sameKeyHex(cs.PublicKey, tokenPublicKey) {
		return TokenUsage{}, fmt.Errorf("%w: signed by %s, but the verification token binds %s", ErrClientSignature, cs.PublicKey, tokenPublicKey)
	}
	pub, err := ParseP256PublicKey(tokenPublicKey)
	if err != nil {
		return TokenUsage{}, fmt.Errorf("%w: %v", ErrClientSignature, err)
	}
	sig, err := hex.DecodeString(cs.Signature)
	if err != nil || len(sig) != 64 {
		return TokenUsage{}, fmt.Errorf("%w: signature must be 64-byte r||s in hex", ErrClientSignature)
	}
	if !verifyRaw(pub, sha256Sum([]byte(cs.Message)), sig) {
		return TokenUsage{}, fmt.Errorf("%w: signature does not verify over the message", ErrClientSignature)
	}
	var u TokenUsage
	if err := json.Unmarshal([]byte(cs.Message), &u); err != nil {
		return TokenUsage{}, fmt.Errorf("%w: message is not a TokenUsage JSON object: %v", ErrClientSignature, err)
	}
	return u, nil
}

// VerifyLoginSignature checks a login's clientSignature: signed by the
// token's key, for this token, for a login of sessionPublicKey.
func VerifyLoginSignature(cs ClientSignature, token VerificationClaims, sessionPublicKey string) error {
	u, err := VerifyClientSignature(cs, token.PublicKey)
	if err != nil {
		return err
	}
	if err := u.checkToken(token.ID, UsageTypeLogin); err != nil {
		return err
	}
	if u.Login == nil {
		return fmt.Errorf("%w: message has no \"login\" usage", ErrClientSignature)
	}
	if !sameKeyHex(u.Login.PublicKey, sessionPublicKey) {
		return fmt.Errorf("%w: message allows a login of key %s, not %s", ErrClientSignature, u.Login.PublicKey, sessionPublicKey)
	}
	return nil
}

// VerifySignupSignature checks a signup's clientSignature: signed by the
// token's key, for this token, for exactly the root user described by want.
// An absent list and an empty one are treated alike.
func VerifySignupSignature(cs ClientSignature, token VerificationClaims, want SignupUsage) error {
	u, err := VerifyClientSignature(cs, token.PublicKey)
	if err != nil {
		return err
	}
	if err := u.checkToken(token.ID, UsageTypeSignup); err != nil {
		return err
	}
	got := u.SignupV2
	if got == nil {
		got = u.Signup
	}
	if got == nil {
		return fmt.Errorf("%w: message has no \"signupV2\" usage", ErrClientSignature)
	}
	if got.Email != want.Email || got.PhoneNumber != want.PhoneNumber {
		return fmt.Errorf("%w: message allows a signup of email %q phone %q, not email %q phone %q",
			ErrClientSignature, got.Email, got.PhoneNumber, want.Email, want.PhoneNumber)
	}
	for _, f := range []struct {
		name      string
		got, want json.RawMessage
	}{{"apiKeys", got.APIKeys, want.APIKeys}, {"authenticators", got.Authenticators, want.Authenticators}, {"oauthProviders", got.OAuthProviders, want.OAuthProviders}} {
		equal, err := jsonEqual(f.got, f.want)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrClientSignature, f.name, err)
		}
		if !equal {
			return fmt.Errorf("%w: the signed %s differ from the request's", ErrClientSignature, f.name)
		}
	}
	return nil
}

func (u TokenUsage) checkToken(tokenID, usageType string) error {
	if u.TokenID != tokenID {
		return fmt.Errorf("%w: message is for token %q, not %q", ErrClientSignature, u.TokenID, tokenID)
	}
	if u.Type != usageType {
		return fmt.Errorf("%w: message is for usage %q, not %q", ErrClientSignature, u.Type, usageType)
	}
	return nil
}

// jsonEqual compares two JSON values by value; absent, null and [] are equal.
func jsonEqual(a, b json.RawMessage) (bool, error) {
	va, err := decodeValue(a)
	if err != nil {
		return false, err
	}
	vb, err := decodeValue(b)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(va, vb), nil
}

func decodeValue(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return []any{}, nil
	}
	return v, nil
}
