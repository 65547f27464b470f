package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/clientsig"
)

// OTP and login activities. VERIFY_OTP and OTP_LOGIN carry a secret (the code, the verification token) that the API
// types hide when they are encoded, so activity records never hold it; these methods send the fields as they are.

func (c *Client) InitOtpV1(ctx context.Context, orgID string, p api.InitOtpIntent) (*api.InitOtpResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitOtp, p)
}

// InitOtp sends a code (INIT_OTP_V2, first specification section 2.5).
func (c *Client) InitOtp(ctx context.Context, orgID string, p api.InitOtpIntentV2) (*api.InitOtpResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitOtpV2, p)
}

// InitOtpV3 sends a code and returns the target bundle VerifyOtpV2 encrypts it to (bundle.EncryptOTP).
func (c *Client) InitOtpV3(ctx context.Context, orgID string, p api.InitOtpIntentV3) (*api.InitOtpResultV2, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitOtpV3, p)
}

// VerifyOtp checks a code in clear (VERIFY_OTP) and returns a verification token, bound to p.PublicKey if set.
func (c *Client) VerifyOtp(ctx context.Context, orgID string, p api.VerifyOtpIntent) (*api.VerifyOtpResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.VerifyOtp, p)
}

// VerifyOtpV2 checks an encrypted code (VERIFY_OTP_V2) and returns a verification token bound to the bundle's key.
func (c *Client) VerifyOtpV2(ctx context.Context, orgID string, p api.VerifyOtpIntentV2) (*api.VerifyOtpResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.VerifyOtpV2, p)
}

// OtpLogin turns a verification token into a session (OTP_LOGIN) in the organization of the user it verified.
func (c *Client) OtpLogin(ctx context.Context, orgID string, p api.OtpLoginIntent) (*api.OtpLoginResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.OtpLogin, p)
}

// OtpLoginV2 is OtpLogin with the clientSignature required (OTP_LOGIN_V2).
func (c *Client) OtpLoginV2(ctx context.Context, orgID string, p api.OtpLoginIntentV2) (*api.OtpLoginResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.OtpLoginV2, p)
}

// StampLogin opens a session for the user the client's stamper authenticates (STAMP_LOGIN).
func (c *Client) StampLogin(ctx context.Context, orgID string, p api.StampLoginIntent) (*api.StampLoginResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.StampLogin, p)
}

// LoginSignature signs the clientSignature of an OTP login: key is the client key the verification token binds,
// tokenID the token's id claim, sessionPublicKey the key the login registers.
func LoginSignature(key *ecdsa.PrivateKey, tokenID, sessionPublicKey string) (*api.ClientSignature, error) {
	msg, err := clientsig.LoginMessage(tokenID, sessionPublicKey)
	if err != nil {
		return nil, err
	}
	cs, err := clientsig.Sign(key, msg)
	if err != nil {
		return nil, err
	}
	return &cs, nil
}

// AttestedStamper stamps with X-Stamp-Attested: a P-256 client key whose binding to a user Token proves (a
// verification token whose public_key is Key's, or an OIDC token whose nonce is hex(sha256(Key's public key hex))).
// The coordinator accepts it for STAMP_LOGIN only.
type AttestedStamper struct {
	Key    *ecdsa.PrivateKey
	Token  string
	Scheme stamp.AttestedScheme // default STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN
}

// Stamp signs body (DER ECDSA over SHA-256) and returns the X-Stamp-Attested header.
func (s AttestedStamper) Stamp(body []byte) (string, string, error) {
	pub, err := stamp.P256PublicKeyHex(&s.Key.PublicKey)
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(body)
	sig, err := ecdsa.SignASN1(rand.Reader, s.Key, sum[:])
	if err != nil {
		return "", "", err
	}
	scheme := s.Scheme
	if scheme == "" {
		scheme = stamp.AttestedSchemeVerificationToken
	}
	raw, err := json.Marshal(map[string]string{"publicKeyAttestation": s.Token, "scheme": string(scheme),
		"publicKey": pub, "signature": hex.EncodeToString(sig)})
	if err != nil {
		return "", "", err
	}
	return "X-Stamp-Attested", base64.RawURLEncoding.EncodeToString(raw), nil
}

// ListEmailEvents lists what the mailer sent to a recipient, newest first.
func (c *Client) ListEmailEvents(ctx context.Context, req api.ListEmailEventsRequest) (*api.ListEmailEventsResponse, error) {
	return query(ctx, c, api.ListEmailEvents, req)
}
