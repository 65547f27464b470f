package stamp

import (
	"encoding/hex"
	"strings"
)

// AttestedScheme is the scheme of an X-Stamp-Attested: which kind of token attests the client key.
type AttestedScheme string

const (
	// AttestedSchemeVerificationToken: the token is a verification token (from verify_otp) whose public_key claim
	// must equal the stamp's public key.
	AttestedSchemeVerificationToken AttestedScheme = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"
	// AttestedSchemeOIDC: the token is an OIDC token whose nonce must be hex(SHA-256(public key hex string)).
	AttestedSchemeOIDC AttestedScheme = "STAMP_ATTESTED_SCHEME_P256_OIDC"
)

// attestedStampJSON is the decoded X-Stamp-Attested value.
type attestedStampJSON struct {
	PublicKeyAttestation string `json:"publicKeyAttestation"`
	Scheme               string `json:"scheme"`
	PublicKey            string `json:"publicKey"`
	Signature            string `json:"signature"`
}

// AttestedStamp is a parsed X-Stamp-Attested: a P-256 signature by a client key, plus a token that binds that key
// to an identity. This package verifies only the signature; verifying Token, and that it binds PublicKey as the
// Scheme requires, is the caller's job.
type AttestedStamp struct {
	// Token is publicKeyAttestation as sent: a verification token JWT or an OIDC token, unverified.
	Token  string
	Scheme AttestedScheme
	// PublicKey is the client's compressed P-256 key in lower-case hex.
	PublicKey string
	// Signature is DER ECDSA over SHA-256(body).
	Signature []byte

	key publicKey
}

// ParseAttestedStamp decodes an X-Stamp-Attested header value. Errors are KindMalformed or KindUnknownScheme.
func ParseAttestedStamp(value string) (*AttestedStamp, error) {
	var j attestedStampJSON
	if err := decodeBase64JSON(HeaderAttested, value, &j); err != nil {
		return nil, err
	}
	if err := requireFields(HeaderAttested, "publicKeyAttestation", j.PublicKeyAttestation, "scheme", j.Scheme,
		"publicKey", j.PublicKey, "signature", j.Signature); err != nil {
		return nil, err
	}
	scheme := AttestedScheme(j.Scheme)
	if scheme != AttestedSchemeVerificationToken && scheme != AttestedSchemeOIDC {
		return nil, newError(KindUnknownScheme, nil, "%s: unknown scheme %q", HeaderAttested, truncate(j.Scheme, 80))
	}
	key, err := parsePublicKey(CurveP256, j.PublicKey)
	if err != nil {
		return nil, malformed("%s: %v", HeaderAttested, err)
	}
	sig, err := hex.DecodeString(j.Signature)
	if err != nil {
		return nil, malformed("%s: signature is not hex", HeaderAttested)
	}
	if err := key.checkSignatureEncoding(sig); err != nil {
		return nil, malformed("%s: %v", HeaderAttested, err)
	}
	return &AttestedStamp{
		Token:     j.PublicKeyAttestation,
		Scheme:    scheme,
		PublicKey: strings.ToLower(j.PublicKey),
		Signature: sig,
		key:       key,
	}, nil
}

// Verify checks the signature over the exact raw body. Errors are KindInvalidSignature.
func (s *AttestedStamp) Verify(body []byte) error {
	if !s.key.verify(body, s.Signature) {
		return invalidSignature("the %s signature does not match the request body and public key", HeaderAttested)
	}
	return nil
}
