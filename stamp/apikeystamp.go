package stamp

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// MaxHeaderValueLen bounds every stamp header value this package decodes. The largest legitimate one is an
// X-Stamp-Attested carrying an OIDC token, a few kilobytes.
const MaxHeaderValueLen = 32 << 10

// APIKeyStamp is a parsed X-Stamp. Parsing has checked everything but the signature itself: the scheme is
// known, the public key is a valid point for its curve and the signature is well formed.
type APIKeyStamp struct {
	// PublicKey is the signer's key in lower-case hex, the form credentials are stored and looked up under.
	PublicKey string
	Scheme    Scheme
	Curve     Curve
	// Signature is the decoded signature: DER for ECDSA, 64 raw bytes for Ed25519.
	Signature []byte

	key publicKey
}

// ParseAPIKeyStamp decodes an X-Stamp header value. Errors are KindMalformed or KindUnknownScheme.
func ParseAPIKeyStamp(value string) (*APIKeyStamp, error) {
	var j apiKeyStampJSON
	if err := decodeBase64JSON(HeaderAPIKey, value, &j); err != nil {
		return nil, err
	}
	if err := requireFields(HeaderAPIKey, "publicKey", j.PublicKey, "signature", j.Signature, "scheme", j.Scheme); err != nil {
		return nil, err
	}
	scheme := Scheme(j.Scheme)
	curve, ok := scheme.Curve()
	if !ok {
		return nil, unknownScheme(HeaderAPIKey, j.Scheme)
	}
	key, err := parsePublicKey(curve, j.PublicKey)
	if err != nil {
		return nil, malformed("%s: %v", HeaderAPIKey, err)
	}
	sig, err := hex.DecodeString(j.Signature)
	if err != nil {
		return nil, malformed("%s: signature is not hex", HeaderAPIKey)
	}
	if err := key.checkSignatureEncoding(sig); err != nil {
		return nil, malformed("%s: %v", HeaderAPIKey, err)
	}
	return &APIKeyStamp{
		PublicKey: strings.ToLower(j.PublicKey),
		Scheme:    scheme,
		Curve:     curve,
		Signature: sig,
		key:       key,
	}, nil
}

// Verify checks the signature over the exact raw body. On success the caller still has to find PublicKey among
// the organization's credentials (with this Curve) before trusting the request. Errors are KindInvalidSignature.
func (s *APIKeyStamp) Verify(body []byte) error {
	if !s.key.verify(body, s.Signature) {
		return invalidSignature("the %s signature does not match the request body and public key", s.Scheme)
	}
	return nil
}

func unknownScheme(header, scheme string) *Error {
	if Scheme(scheme) == SchemeSecp256k1EIP191 {
		return newError(KindUnknownScheme, nil, "%s: scheme %s (wallet stamps) is not supported", header, scheme)
	}
	return newError(KindUnknownScheme, nil, "%s: unknown scheme %q", header, truncate(scheme, 80))
}

// decodeBase64JSON decodes a base64url (padding optional) value holding one JSON object into v.
func decodeBase64JSON(header, value string, v any) error {
	if len(value) > MaxHeaderValueLen {
		return malformed("%s value is longer than %d bytes", header, MaxHeaderValueLen)
	}
	raw, err := decodeBase64URL(value)
	if err != nil {
		return malformed("%s value is not base64url", header)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return malformed("%s value is not the expected JSON object", header)
	}
	return nil
}

// decodeBase64URL decodes base64url, unpadded as the SDKs send it or correctly padded. Strict decoding rejects
// non-zero padding bits, so each byte string has at most two accepted encodings.
func decodeBase64URL(s string) ([]byte, error) {
	if strings.HasSuffix(s, "=") {
		return base64.URLEncoding.Strict().DecodeString(s)
	}
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// requireFields takes name, value pairs and reports the first empty value as missing.
func requireFields(header string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return malformed("%s: field %q is missing or empty", header, pairs[i])
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
