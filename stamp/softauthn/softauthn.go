// Package softauthn is a software WebAuthn authenticator (a passkey) for tests. It registers one P-256 (ES256)
// credential the way a browser and platform authenticator would ("none" or "packed" self attestation) and stamps
// request bodies with X-Stamp-Webauthn assertions whose signature counter increases by one each time.
//
// It holds its private key in memory and is meant for tests only.
package softauthn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/fxamacker/cbor/v2"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/sigil/sigil/stamp"
)

// WebAuthn authenticator data flags.
const (
	flagUserPresent  = 0x01
	flagUserVerified = 0x04
	flagAttestedData = 0x40
)

// Authenticator is one passkey bound to one relying party. It is safe for concurrent use.
type Authenticator struct {
	rpID, origin string
	credentialID []byte
	key          *ecdsa.PrivateKey

	mu        sync.Mutex
	signCount uint32
}

var _ stamp.Stamper = (*Authenticator)(nil)

// New makes a passkey for relying party rpID (e.g. "localhost") used from origin (e.g. "http://localhost:3000"),
// with a fresh P-256 key and a random 32-byte credential id.
func New(rpID, origin string) (*Authenticator, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("softauthn: generate key: %w", err)
	}
	id := make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return nil, fmt.Errorf("softauthn: credential id: %w", err)
	}
	return &Authenticator{rpID: rpID, origin: origin, credentialID: id, key: key}, nil
}

// NewChallenge returns 32 random bytes in base64url, as the SDKs generate registration challenges.
func NewChallenge() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// CredentialID is the credential id in base64url without padding.
func (a *Authenticator) CredentialID() string {
	return base64.RawURLEncoding.EncodeToString(a.credentialID)
}

// RPID is the relying party id the credential is bound to.
func (a *Authenticator) RPID() string { return a.rpID }

// Origin is the origin the authenticator reports in client data.
func (a *Authenticator) Origin() string { return a.origin }

// SignCount is the counter of the last assertion (0 before the first).
func (a *Authenticator) SignCount() uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.signCount
}

// SetSignCount sets the counter; the next assertion carries n+1. Tests use it to simulate a cloned or
// rolled-back authenticator.
func (a *Authenticator) SetSignCount(n uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.signCount = n
}

// Register answers navigator.credentials.create for challenge (the base64url string the SDK sends as
// AuthenticatorParamsV2.challenge) with a "none" attestation, as browsers deliver passkeys by default.
func (a *Authenticator) Register(challenge string) (stamp.AuthenticatorParams, error) {
	return a.register(challenge, false)
}

// RegisterSelfAttested is Register with a "packed" self attestation: the attestation statement is signed by the
// credential key itself.
func (a *Authenticator) RegisterSelfAttested(challenge string) (stamp.AuthenticatorParams, error) {
	return a.register(challenge, true)
}

func (a *Authenticator) register(challenge string, packed bool) (stamp.AuthenticatorParams, error) {
	raw, err := base64.RawURLEncoding.DecodeString(challenge)
	if err != nil || len(raw) == 0 {
		return stamp.AuthenticatorParams{}, fmt.Errorf("softauthn: challenge must be non-empty unpadded base64url")
	}
	clientData, err := a.clientData("webauthn.create", raw)
	if err != nil {
		return stamp.AuthenticatorParams{}, err
	}
	authData, err := a.registrationAuthData()
	if err != nil {
		return stamp.AuthenticatorParams{}, err
	}
	obj := attestationObject{Format: "none", Statement: map[string]any{}, AuthData: authData}
	if packed {
		sig, err := a.sign(authData, clientData)
		if err != nil {
			return stamp.AuthenticatorParams{}, err
		}
		obj.Format = "packed"
		obj.Statement = map[string]any{"alg": int64(webauthncose.AlgES256), "sig": sig}
	}
	encoded, err := ctap2.Marshal(obj)
	if err != nil {
		return stamp.AuthenticatorParams{}, fmt.Errorf("softauthn: encode attestation object: %w", err)
	}
	return stamp.AuthenticatorParams{
		AuthenticatorName: "softauthn passkey",
		Challenge:         challenge,
		Attestation: stamp.Attestation{
			CredentialID:      a.CredentialID(),
			ClientDataJSON:    base64.RawURLEncoding.EncodeToString(clientData),
			AttestationObject: base64.RawURLEncoding.EncodeToString(encoded),
			Transports:        []stamp.Transport{stamp.TransportInternal, stamp.TransportHybrid},
		},
	}, nil
}

// Stamp answers navigator.credentials.get for the body's challenge, as @turnkey/webauthn-stamper does, and
// returns the X-Stamp-Webauthn header. Each call increments the signature counter.
func (a *Authenticator) Stamp(body []byte) (header, value string, err error) {
	clientData, err := a.clientData("webauthn.get", stamp.BodyChallenge(body))
	if err != nil {
		return "", "", err
	}
	a.mu.Lock()
	a.signCount++
	count := a.signCount
	a.mu.Unlock()

	authData := a.authDataHeader(flagUserPresent|flagUserVerified, count)
	sig, err := a.sign(authData, clientData)
	if err != nil {
		return "", "", err
	}
	enc := base64.RawURLEncoding.EncodeToString
	// Field order as @turnkey/webauthn-stamper emits them.
	j, err := json.Marshal(struct {
		AuthenticatorData string `json:"authenticatorData"`
		ClientDataJSON    string `json:"clientDataJson"`
		CredentialID      string `json:"credentialId"`
		Signature         string `json:"signature"`
	}{enc(authData), enc(clientData), a.CredentialID(), enc(sig)})
	if err != nil {
		return "", "", fmt.Errorf("softauthn: encode stamp: %w", err)
	}
	return stamp.HeaderWebAuthn, string(j), nil
}

// clientData is the CollectedClientData a browser serialises, members in the order browsers write them.
func (a *Authenticator) clientData(ceremony string, challenge []byte) ([]byte, error) {
	j, err := json.Marshal(struct {
		Type        string `json:"type"`
		Challenge   string `json:"challenge"`
		Origin      string `json:"origin"`
		CrossOrigin bool   `json:"crossOrigin"`
	}{ceremony, base64.RawURLEncoding.EncodeToString(challenge), a.origin, false})
	if err != nil {
		return nil, fmt.Errorf("softauthn: encode client data: %w", err)
	}
	return j, nil
}

// authDataHeader is rpIdHash || flags || signCount, the 37 bytes every authenticator data starts with.
func (a *Authenticator) authDataHeader(flags byte, count uint32) []byte {
	rpIDHash := sha256.Sum256([]byte(a.rpID))
	out := append(rpIDHash[:], flags)
	return binary.BigEndian.AppendUint32(out, count)
}

// registrationAuthData adds the attested credential data: AAGUID (zero, as for "none"), id length, id, COSE key.
func (a *Authenticator) registrationAuthData() ([]byte, error) {
	cose, err := a.coseKey()
	if err != nil {
		return nil, err
	}
	out := a.authDataHeader(flagUserPresent|flagUserVerified|flagAttestedData, 0)
	out = append(out, make([]byte, 16)...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(a.credentialID)))
	out = append(out, a.credentialID...)
	return append(out, cose...), nil
}

// coseKey is the credential public key as an EC2 COSE_Key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
func (a *Authenticator) coseKey() ([]byte, error) {
	u, err := a.key.PublicKey.Bytes() // 0x04 || x || y
	if err != nil {
		return nil, fmt.Errorf("softauthn: encode public key: %w", err)
	}
	key := map[int]any{1: 2, 3: int(webauthncose.AlgES256), -1: 1, -2: u[1:33], -3: u[33:65]}
	b, err := ctap2.Marshal(key)
	if err != nil {
		return nil, fmt.Errorf("softauthn: encode COSE key: %w", err)
	}
	return b, nil
}

// sign is the WebAuthn signature: ES256 (DER) over authenticatorData || SHA-256(clientDataJSON).
func (a *Authenticator) sign(authData, clientData []byte) ([]byte, error) {
	clientDataHash := sha256.Sum256(clientData)
	digest := sha256.Sum256(slices.Concat(authData, clientDataHash[:]))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		return nil, fmt.Errorf("softauthn: sign: %w", err)
	}
	return sig, nil
}

type attestationObject struct {
	Format    string         `cbor:"fmt"`
	Statement map[string]any `cbor:"attStmt"`
	AuthData  []byte         `cbor:"authData"`
}

// ctap2 encodes CBOR in the CTAP2 canonical form authenticators use (sorted keys, shortest encodings).
var ctap2 = mustEncMode()

func mustEncMode() cbor.EncMode {
	m, err := cbor.CTAP2EncOptions().EncMode()
	if err != nil {
		panic("softauthn: CTAP2 CBOR options: " + err.Error())
	}
	return m
}
