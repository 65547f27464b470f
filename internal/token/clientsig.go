package token

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/stamp/clientsig"
)

// The messages and their signing are package clientsig's, which the Go SDK signs with; this file checks them.

// ErrClientSignature is wrapped by every clientSignature failure.
var ErrClientSignature = errors.New("invalid client signature")

// VerifyClientSignature checks that cs is a valid P-256 signature over its
// message by tokenPublicKey (the verification token's public_key claim) and
// returns the parsed message. Callers then check the usage, or use
// VerifyLoginSignature / VerifySignupSignature, which do both.
func VerifyClientSignature(cs api.ClientSignature, tokenPublicKey string) (clientsig.Usage, error) {
	if cs.Scheme != clientsig.SchemeP256 {
		return clientsig.Usage{}, fmt.Errorf("%w: scheme %q, want %s", ErrClientSignature, cs.Scheme, clientsig.SchemeP256)
	}
	if tokenPublicKey == "" {
		return clientsig.Usage{}, fmt.Errorf("%w: the verification token binds no public key, so nothing can be checked against it", ErrClientSignature)
	}
	if !sameKeyHex(cs.PublicKey, tokenPublicKey) {
		return clientsig.Usage{}, fmt.Errorf("%w: signed by %s, but the verification token binds %s", ErrClientSignature, cs.PublicKey, tokenPublicKey)
	}
	pub, err := ParseP256PublicKey(tokenPublicKey)
	if err != nil {
		return clientsig.Usage{}, fmt.Errorf("%w: %v", ErrClientSignature, err)
	}
	sig, err := hex.DecodeString(cs.Signature)
	if err != nil || len(sig) != 64 {
		return clientsig.Usage{}, fmt.Errorf("%w: signature must be 64-byte r||s in hex", ErrClientSignature)
	}
	if !verifyRaw(pub, sha256Sum([]byte(cs.Message)), sig) {
		return clientsig.Usage{}, fmt.Errorf("%w: signature does not verify over the message", ErrClientSignature)
	}
	var u clientsig.Usage
	if err := json.Unmarshal([]byte(cs.Message), &u); err != nil {
		return clientsig.Usage{}, fmt.Errorf("%w: message is not a usage JSON object: %v", ErrClientSignature, err)
	}
	return u, nil
}

// VerifyLoginSignature checks a login's clientSignature: signed by the
// token's key, for this token, for a login of sessionPublicKey.
func VerifyLoginSignature(cs api.ClientSignature, token VerificationClaims, sessionPublicKey string) error {
	u, err := VerifyClientSignature(cs, token.PublicKey)
	if err != nil {
		return err
	}
	if err := checkToken(u, token.ID, clientsig.UsageTypeLogin); err != nil {
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
func VerifySignupSignature(cs api.ClientSignature, token VerificationClaims, want clientsig.SignupUsage) error {
	u, err := VerifyClientSignature(cs, token.PublicKey)
	if err != nil {
		return err
	}
	if err := checkToken(u, token.ID, clientsig.UsageTypeSignup); err != nil {
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

func checkToken(u clientsig.Usage, tokenID, usageType string) error {
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
