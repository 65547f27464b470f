package stamp

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
	"github.com/google/uuid"
)

// Transport is an authenticator transport as the API spells it.
type Transport string

const (
	TransportBLE      Transport = "AUTHENTICATOR_TRANSPORT_BLE"
	TransportInternal Transport = "AUTHENTICATOR_TRANSPORT_INTERNAL"
	TransportNFC      Transport = "AUTHENTICATOR_TRANSPORT_NFC"
	TransportUSB      Transport = "AUTHENTICATOR_TRANSPORT_USB"
	TransportHybrid   Transport = "AUTHENTICATOR_TRANSPORT_HYBRID"
)

// Valid reports whether t is one of the five API transports.
func (t Transport) Valid() bool {
	switch t {
	case TransportBLE, TransportInternal, TransportNFC, TransportUSB, TransportHybrid:
		return true
	}
	return false
}

// AuthenticatorParams is the API's AuthenticatorParamsV2: a passkey to register.
type AuthenticatorParams struct {
	AuthenticatorName string      `json:"authenticatorName"`
	Challenge         string      `json:"challenge"`
	Attestation       Attestation `json:"attestation"`
}

// Attestation is the API's attestation object of AuthenticatorParamsV2 (all base64url).
type Attestation struct {
	CredentialID      string      `json:"credentialId"`
	ClientDataJSON    string      `json:"clientDataJson"`
	AttestationObject string      `json:"attestationObject"`
	Transports        []Transport `json:"transports"`
}

// WebAuthnCredential is a registered passkey: what VerifyRegistration returns and WebAuthnStamp.Verify needs.
// Persist every field; SignCount changes after each verified assertion.
type WebAuthnCredential struct {
	// CredentialID is the raw credential id, base64url without padding.
	CredentialID string
	// PublicKey is the credential public key as a COSE_Key (CBOR), from the authenticator data.
	PublicKey []byte
	// PublicKeyHex is the same key as the API shows it: compressed point for P-256 (ES256), the raw 32 bytes for
	// Ed25519, PKIX DER for RSA; lower-case hex.
	PublicKeyHex string
	// Algorithm is the COSE algorithm of the key (-7 ES256, -8 EdDSA, -257 RS256).
	Algorithm int64
	// AAGUID identifies the authenticator model, in UUID form (all zero for most "none" attestations).
	AAGUID string
	// AttestationFormat is the attestation statement format ("none", "packed", ...).
	AttestationFormat string
	// AttestationType is the kind of attestation the statement carried ("none", "basic_surrogate" for packed
	// self attestation, "basic_full", "attca", ...).
	AttestationType string
	SignCount       uint32
	// RPIDHash is SHA-256 of the relying party id the credential is bound to. Assertions must carry the same.
	RPIDHash []byte
	// Origin is the origin the browser reported at registration (recorded, not checked).
	Origin         string
	Transports     []Transport
	UserVerified   bool
	BackupEligible bool
}

// allowedAlgorithm reports whether passkeys may use the COSE algorithm alg. The SDKs ask for ES256 and RS256;
// EdDSA is accepted as well.
func allowedAlgorithm(alg int64) bool {
	switch webauthncose.COSEAlgorithmIdentifier(alg) {
	case webauthncose.AlgES256, webauthncose.AlgRS256, webauthncose.AlgEdDSA:
		return true
	}
	return false
}

// VerifyRegistration verifies a passkey registration (AuthenticatorParamsV2) and returns the credential to store.
//
// The challenge: the SDKs generate random bytes, hand them to navigator.credentials.create and send the same bytes
// base64url-encoded as "challenge"; the browser puts its own base64url encoding of them in clientDataJSON. Both
// strings are therefore decoded and the bytes compared (challenge may also be standard base64, padded or not,
// because @turnkey/sdk-browser converts a caller-supplied base64 challenge that way). The challenge only binds
// the attestation to this request; issuing and expiring challenges is the caller's concern.
//
// Checked: clientDataJSON type "webauthn.create" and challenge; the attestation object decodes, has attested
// credential data and the user-present flag; credentialId is the id in the authenticator data; the key algorithm
// is ES256, RS256 or EdDSA and the key is valid; the attestation statement verifies for its format ("none";
// "packed" self attestation, whose signature by the credential key must verify; the other formats go-webauthn
// implements); every transport is an API transport. Not checked: the relying party id and origin (the API
// accepts passkeys of any relying party and records its hash), and attestation certificate chains are not
// validated against a metadata service or trust roots of Sigil's (go-webauthn checks their validity period against
// the system clock; an Android Key or Apple attestation's chain against the Google and Apple roots it carries; a
// TPM attestation's manufacturer against the TCG's list). Errors are KindInvalidAttestation.
func VerifyRegistration(challenge string, att Attestation) (*WebAuthnCredential, error) {
	rawClientData, err := decodeBase64URL(att.ClientDataJSON)
	if err != nil || len(rawClientData) == 0 {
		return nil, invalidAttestation(nil, "clientDataJson is not base64url")
	}
	var clientData protocol.CollectedClientData
	if err := json.Unmarshal(rawClientData, &clientData); err != nil {
		return nil, invalidAttestation(err, "clientDataJson is not a JSON object of client data")
	}
	if clientData.Type != protocol.CreateCeremony {
		return nil, invalidAttestation(nil, "clientDataJson type is %q, want %q", truncate(string(clientData.Type), 40), protocol.CreateCeremony)
	}
	if err := checkRegistrationChallenge(challenge, clientData.Challenge); err != nil {
		return nil, err
	}
	for _, t := range att.Transports {
		if !t.Valid() {
			return nil, invalidAttestation(nil, "unknown transport %q (want AUTHENTICATOR_TRANSPORT_BLE, _INTERNAL, _NFC, _USB or _HYBRID)", truncate(string(t), 60))
		}
	}
	obj, err := parseAttestationObject(att.AttestationObject)
	if err != nil {
		return nil, err
	}
	credentialID, err := decodeBase64URL(att.CredentialID)
	if err != nil || len(credentialID) == 0 {
		return nil, invalidAttestation(nil, "credentialId is not base64url")
	}
	if subtle.ConstantTimeCompare(credentialID, obj.AuthData.AttData.CredentialID) != 1 {
		return nil, invalidAttestation(nil, "credentialId is not the credential id in the attestation object")
	}
	key, alg, err := credentialKey(obj.AuthData.AttData.CredentialPublicKey)
	if err != nil {
		return nil, err
	}
	clientDataHash := sha256.Sum256(rawClientData)
	if err := obj.VerifyAttestation(clientDataHash[:], nil, protocol.AttestationPolicy{}, protocol.SignaturePolicy{}); err != nil {
		return nil, invalidAttestation(err, "the %q attestation statement does not verify", truncate(obj.Format, 40))
	}
	aaguid, err := uuid.FromBytes(obj.AuthData.AttData.AAGUID)
	if err != nil {
		return nil, invalidAttestation(err, "AAGUID is not 16 bytes")
	}
	return &WebAuthnCredential{
		CredentialID:      base64.RawURLEncoding.EncodeToString(credentialID),
		PublicKey:         obj.AuthData.AttData.CredentialPublicKey,
		PublicKeyHex:      key,
		Algorithm:         alg,
		AAGUID:            aaguid.String(),
		AttestationFormat: obj.Format,
		AttestationType:   obj.Type,
		SignCount:         obj.AuthData.Counter,
		RPIDHash:          obj.AuthData.RPIDHash,
		Origin:            clientData.Origin,
		Transports:        append([]Transport(nil), att.Transports...),
		UserVerified:      obj.AuthData.Flags.HasUserVerified(),
		BackupEligible:    obj.AuthData.Flags.HasBackupEligible(),
	}, nil
}

func checkRegistrationChallenge(expected, inClientData string) error {
	want, err := decodeAnyBase64(expected)
	if err != nil || len(want) == 0 {
		return invalidAttestation(nil, "challenge is not base64url")
	}
	got, err := decodeBase64URL(inClientData)
	if err != nil {
		return invalidAttestation(nil, "the clientDataJson challenge is not base64url")
	}
	if subtle.ConstantTimeCompare(want, got) != 1 {
		return invalidAttestation(nil, "the clientDataJson challenge does not match the challenge")
	}
	return nil
}

// decodeAnyBase64 accepts base64url or standard base64, padded or not.
func decodeAnyBase64(s string) ([]byte, error) {
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	return decodeBase64URL(s)
}

func parseAttestationObject(encoded string) (*protocol.AttestationObject, error) {
	raw, err := decodeBase64URL(encoded)
	if err != nil || len(raw) == 0 {
		return nil, invalidAttestation(nil, "attestationObject is not base64url")
	}
	var obj protocol.AttestationObject
	if err := webauthncbor.Unmarshal(raw, &obj); err != nil {
		return nil, invalidAttestation(err, "attestationObject is not a CBOR attestation object")
	}
	if err := obj.AuthData.Unmarshal(obj.RawAuthData); err != nil {
		return nil, invalidAttestation(err, "the authenticator data in attestationObject is malformed")
	}
	if !obj.AuthData.Flags.HasAttestedCredentialData() {
		return nil, invalidAttestation(nil, "the authenticator data carries no credential (attested credential data flag unset)")
	}
	if !obj.AuthData.Flags.HasUserPresent() {
		return nil, invalidAttestation(nil, "the authenticator did not set the user-present flag")
	}
	return &obj, nil
}

// credentialKey validates the COSE credential key and renders it as the API shows credential keys.
func credentialKey(cose []byte) (publicHex string, alg int64, err error) {
	parsed, err := webauthncose.ParsePublicKey(cose)
	if err != nil {
		return "", 0, invalidAttestation(err, "the credential public key is not a valid COSE key")
	}
	switch k := parsed.(type) {
	case webauthncose.EC2PublicKeyData:
		if k.Algorithm != int64(webauthncose.AlgES256) {
			break
		}
		compressed := append([]byte{0x02 | (k.YCoord[len(k.YCoord)-1] & 1)}, k.XCoord...)
		return hex.EncodeToString(compressed), k.Algorithm, nil
	case webauthncose.OKPPublicKeyData:
		if allowedAlgorithm(k.Algorithm) {
			return hex.EncodeToString(k.XCoord), k.Algorithm, nil
		}
	case webauthncose.RSAPublicKeyData:
		if !allowedAlgorithm(k.Algorithm) {
			break
		}
		e, err := webauthncose.ParseRSAPublicKeyDataExponent(&k)
		if err != nil {
			return "", 0, invalidAttestation(err, "the credential RSA key has an invalid exponent")
		}
		der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: new(big.Int).SetBytes(k.Modulus), E: e})
		if err != nil {
			return "", 0, invalidAttestation(err, "the credential RSA key cannot be encoded")
		}
		return hex.EncodeToString(der), k.Algorithm, nil
	}
	return "", 0, invalidAttestation(nil, "the credential key algorithm is not supported (want ES256, RS256 or EdDSA)")
}

func invalidAttestation(cause error, format string, args ...any) *Error {
	return newError(KindInvalidAttestation, cause, format, args...)
}
