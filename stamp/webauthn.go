package stamp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

// webAuthnStampJSON is the X-Stamp-Webauthn value: plain JSON (not base64) of four base64url strings.
type webAuthnStampJSON struct {
	CredentialID      string `json:"credentialId"`
	ClientDataJSON    string `json:"clientDataJson"`
	AuthenticatorData string `json:"authenticatorData"`
	Signature         string `json:"signature"`
}

// WebAuthnStamp is a parsed X-Stamp-Webauthn: a passkey assertion over the request body. Parsing has checked the
// encodings and that clientDataJSON and authenticatorData are well formed; Verify checks the rest against the
// stored credential.
type WebAuthnStamp struct {
	// CredentialID is the raw credential id in base64url without padding, the form credentials are stored and
	// looked up under (see WebAuthnCredential.CredentialID).
	CredentialID      string
	ClientDataJSON    []byte
	AuthenticatorData []byte
	// Signature is the assertion signature, DER for ECDSA credentials.
	Signature []byte

	clientData protocol.CollectedClientData
	authData   protocol.AuthenticatorData
}

// ParseWebAuthnStamp decodes an X-Stamp-Webauthn header value. Errors are KindMalformed.
func ParseWebAuthnStamp(value string) (*WebAuthnStamp, error) {
	if len(value) > MaxHeaderValueLen {
		return nil, malformed("%s value is longer than %d bytes", HeaderWebAuthn, MaxHeaderValueLen)
	}
	var j webAuthnStampJSON
	if err := json.Unmarshal([]byte(value), &j); err != nil {
		return nil, malformed("%s value is not the expected JSON object", HeaderWebAuthn)
	}
	if err := requireFields(HeaderWebAuthn, "credentialId", j.CredentialID, "clientDataJson", j.ClientDataJSON,
		"authenticatorData", j.AuthenticatorData, "signature", j.Signature); err != nil {
		return nil, err
	}
	s := &WebAuthnStamp{}
	fields := []struct {
		name, value string
		out         *[]byte
	}{
		{"clientDataJson", j.ClientDataJSON, &s.ClientDataJSON},
		{"authenticatorData", j.AuthenticatorData, &s.AuthenticatorData},
		{"signature", j.Signature, &s.Signature},
	}
	for _, f := range fields {
		b, err := decodeBase64URL(f.value)
		if err != nil {
			return nil, malformed("%s: %s is not base64url", HeaderWebAuthn, f.name)
		}
		*f.out = b
	}
	id, err := decodeBase64URL(j.CredentialID)
	if err != nil || len(id) == 0 {
		return nil, malformed("%s: credentialId is not base64url", HeaderWebAuthn)
	}
	s.CredentialID = base64.RawURLEncoding.EncodeToString(id)
	if err := json.Unmarshal(s.ClientDataJSON, &s.clientData); err != nil {
		return nil, malformed("%s: clientDataJson is not a JSON object of client data", HeaderWebAuthn)
	}
	if err := s.authData.Unmarshal(s.AuthenticatorData); err != nil {
		return nil, newError(KindMalformed, err, "%s: authenticatorData is malformed", HeaderWebAuthn)
	}
	return s, nil
}

// Assertion is what a verified passkey stamp tells the caller.
type Assertion struct {
	// SignCount is the authenticator's new signature counter; store it on the credential.
	SignCount uint32
	// UserVerified: the authenticator verified the user (PIN, biometrics), not only their presence.
	UserVerified bool
	// BackupState: the credential is currently backed up (synced passkey).
	BackupState bool
	// Origin is the origin the browser reported. Not checked here: the API accepts passkeys of any origin whose
	// relying party matches the one recorded at registration.
	Origin string
}

// Verify checks the assertion against the stored credential cred, over the exact raw body:
//   - the credential id is cred's;
//   - clientDataJSON has type "webauthn.get" and its challenge is the UTF-8 bytes of the lower-case hex
//     SHA-256 of body (what @turnkey/webauthn-stamper asks the browser to sign);
//   - authenticatorData names the relying party recorded at registration and has the user-present flag;
//   - the signature over authenticatorData || SHA-256(clientDataJSON) verifies with cred's COSE public key;
//   - the signature counter moved forward: if the stored or the new counter is non-zero the new one must be
//     greater (authenticators that never count, as synced passkeys, send 0 every time).
//
// Errors are KindInvalidSignature. On success store Assertion.SignCount on the credential.
func (s *WebAuthnStamp) Verify(body []byte, cred *WebAuthnCredential) (*Assertion, error) {
	return s.verify(BodyChallenge(body), cred)
}

// verify is Verify with the challenge the assertion must carry: a stamp's is BodyChallenge of the request body; the
// WebAuthn specification's test vectors carry theirs (TestWebAuthnLevel3Vectors).
func (s *WebAuthnStamp) verify(challenge []byte, cred *WebAuthnCredential) (*Assertion, error) {
	if cred == nil {
		return nil, invalidWebAuthn(nil, "no stored credential to verify against")
	}
	if subtle.ConstantTimeCompare([]byte(s.CredentialID), []byte(cred.CredentialID)) != 1 {
		return nil, invalidWebAuthn(nil, "the stamp's credential id is not the stored credential's")
	}
	if s.clientData.Type != protocol.AssertCeremony {
		return nil, invalidWebAuthn(nil, "clientDataJson type is %q, want %q", truncate(string(s.clientData.Type), 40), protocol.AssertCeremony)
	}
	if !bytes.Equal(decodeOrNil(s.clientData.Challenge), challenge) {
		return nil, invalidWebAuthn(nil, "the clientDataJson challenge is not the SHA-256 of the request body")
	}
	if len(cred.RPIDHash) != sha256.Size || subtle.ConstantTimeCompare(s.authData.RPIDHash, cred.RPIDHash) != 1 {
		return nil, invalidWebAuthn(nil, "the assertion is for a different relying party (rpIdHash) than the credential was registered with")
	}
	if !s.authData.Flags.HasUserPresent() {
		return nil, invalidWebAuthn(nil, "the authenticator did not set the user-present flag")
	}
	key, err := webauthncose.ParsePublicKey(cred.PublicKey)
	if err != nil {
		return nil, invalidWebAuthn(err, "the stored credential public key cannot be parsed")
	}
	clientDataHash := sha256.Sum256(s.ClientDataJSON)
	signed := slices.Concat(s.AuthenticatorData, clientDataHash[:])
	if ok, err := webauthncose.VerifySignature(key, signed, s.Signature); !ok || err != nil {
		return nil, invalidWebAuthn(err, "the assertion signature does not verify with the credential's public key")
	}
	if newCount := s.authData.Counter; (newCount != 0 || cred.SignCount != 0) && newCount <= cred.SignCount {
		return nil, invalidWebAuthn(nil, "signature counter %d is not greater than the stored %d (replayed or cloned authenticator)",
			newCount, cred.SignCount)
	}
	return &Assertion{
		SignCount:    s.authData.Counter,
		UserVerified: s.authData.Flags.HasUserVerified(),
		BackupState:  s.authData.Flags.HasBackupState(),
		Origin:       s.clientData.Origin,
	}, nil
}

// BodyChallenge is the WebAuthn challenge that stamps body: the UTF-8 bytes of the lower-case hex SHA-256 of body.
func BodyChallenge(body []byte) []byte {
	digest := sha256.Sum256(body)
	out := make([]byte, hex.EncodedLen(len(digest)))
	hex.Encode(out, digest[:])
	return out
}

// decodeOrNil decodes base64url, or returns nil, which matches no challenge.
func decodeOrNil(c string) []byte {
	b, err := decodeBase64URL(c)
	if err != nil {
		return nil
	}
	return b
}

const webAuthnPrefix = "could not verify webauthn signature"

// invalidWebAuthn is KindInvalidSignature with a message that names passkeys rather than API keys.
func invalidWebAuthn(cause error, format string, args ...any) *Error {
	return &Error{Kind: KindInvalidSignature, Msg: webAuthnPrefix + ": " + fmt.Sprintf(format, args...), Err: cause}
}
