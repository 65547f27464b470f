package stamp_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

// attestedValue builds an X-Stamp-Attested value signed by key over body.
func attestedValue(t testing.TB, key *stamp.APIKey, scheme stamp.AttestedScheme, token, body string) string {
	t.Helper()
	sig, err := key.Sign([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(map[string]string{
		"publicKeyAttestation": token,
		"scheme":               string(scheme),
		"publicKey":            key.PublicKeyHex(),
		"signature":            hex.EncodeToString(sig),
	})
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(j)
}

func TestFromHeaders(t *testing.T) {
	apiKey := fixedKey(t, stamp.CurveP256, "headers")
	_, apiValue := mustStamp(t, apiKey, testBody)
	passkey, err := softauthn.New("localhost", "http://localhost:3000")
	if err != nil {
		t.Fatal(err)
	}
	_, webauthnValue := mustStamp(t, passkey, testBody)
	attested := attestedValue(t, apiKey, stamp.AttestedSchemeVerificationToken, "header.payload.sig", testBody)

	ok := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"X-Stamp", http.Header{"X-Stamp": {apiValue}}, stamp.HeaderAPIKey},
		{"x-stamp in a hand-built map", http.Header{"x-stamp": {apiValue}}, stamp.HeaderAPIKey},
		{"X-Stamp-Webauthn", http.Header{"X-Stamp-Webauthn": {webauthnValue}}, stamp.HeaderWebAuthn},
		{"X-Stamp-WebAuthn spelling", http.Header{"X-Stamp-WebAuthn": {webauthnValue}}, stamp.HeaderWebAuthn},
		{"X-Stamp-Attested", http.Header{"X-STAMP-ATTESTED": {attested}}, stamp.HeaderAttested},
		{"other headers ignored", http.Header{"X-Stamp": {apiValue}, "X-Stamps": {"x"}, "Content-Type": {"application/json"}}, stamp.HeaderAPIKey},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.FromHeaders(tt.header)
			if err != nil {
				t.Fatal(err)
			}
			if s.Header() != tt.want {
				t.Fatalf("got a %s stamp (%T), want %s", s.Header(), s, tt.want)
			}
			switch s := s.(type) {
			case *stamp.APIKeyStamp:
				err = s.Verify([]byte(testBody))
			case *stamp.AttestedStamp:
				err = s.Verify([]byte(testBody))
			case *stamp.WebAuthnStamp:
				if s.CredentialID != passkey.CredentialID() {
					t.Fatalf("credential id %s", s.CredentialID)
				}
			default:
				t.Fatalf("unexpected type %T", s)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}

	bad := []struct {
		name   string
		header http.Header
		kind   error
		want   string
	}{
		{"no header", http.Header{"Content-Type": {"application/json"}}, stamp.ErrMissing, "without a stamp"},
		{"nil header", nil, stamp.ErrMissing, "without a stamp"},
		{"header without values", http.Header{"X-Stamp": {}}, stamp.ErrMissing, "without a stamp"},
		{"two kinds", http.Header{"X-Stamp": {apiValue}, "X-Stamp-Webauthn": {webauthnValue}}, stamp.ErrMalformed, "more than one stamp header"},
		{"same header twice", http.Header{"X-Stamp": {apiValue, apiValue}}, stamp.ErrMalformed, "more than one stamp header"},
		{"two spellings", http.Header{"X-Stamp": {apiValue}, "x-stamp": {apiValue}}, stamp.ErrMalformed, "more than one stamp header"},
		{"empty value", http.Header{"X-Stamp": {" "}}, stamp.ErrMalformed, "header is empty"},
		{"API key value in the WebAuthn header", http.Header{"X-Stamp-Webauthn": {apiValue}}, stamp.ErrMalformed, "X-Stamp-Webauthn value is not the expected JSON"},
		{"WebAuthn value in the API key header", http.Header{"X-Stamp": {webauthnValue}}, stamp.ErrMalformed, "X-Stamp value is not base64url"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.FromHeaders(tt.header)
			if s != nil {
				t.Fatalf("got stamp %T", s)
			}
			wantKind(t, err, tt.kind)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	_, err := stamp.FromHeaders(http.Header{})
	if got := err.Error(); got != "cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)" {
		t.Fatalf("missing-stamp message %q", got)
	}
	_, err = stamp.ParseAPIKeyStamp("%%%")
	if got := err.Error(); !strings.HasPrefix(got, "malformed activity stamp: ") {
		t.Fatalf("malformed message %q", got)
	}
	k := fixedKey(t, stamp.CurveP256, "m")
	_, v := mustStamp(t, k, "a")
	s, err := stamp.ParseAPIKeyStamp(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Verify([]byte("b")).Error(); !strings.HasPrefix(got, "could not verify api key signature") {
		t.Fatalf("invalid-signature message %q", got)
	}
	// Sentinels match only their own kind.
	if err := s.Verify([]byte("b")); stampIs(err, stamp.ErrMalformed) || stampIs(err, stamp.ErrMissing) {
		t.Fatal("an invalid signature matches another kind's sentinel")
	}
}

func stampIs(err, target error) bool {
	se, ok := err.(*stamp.Error)
	return ok && se.Is(target)
}

func TestAttestedStamp(t *testing.T) {
	k := fixedKey(t, stamp.CurveP256, "attested")
	for _, scheme := range []stamp.AttestedScheme{stamp.AttestedSchemeVerificationToken, stamp.AttestedSchemeOIDC} {
		value := attestedValue(t, k, scheme, "eyJhbGciOiJFUzI1NiJ9.e30.c2ln", testBody)
		s, err := stamp.ParseAttestedStamp(value)
		if err != nil {
			t.Fatal(err)
		}
		if s.Scheme != scheme || s.Token != "eyJhbGciOiJFUzI1NiJ9.e30.c2ln" || s.PublicKey != k.PublicKeyHex() {
			t.Fatalf("parsed %+v", s)
		}
		if err := s.Verify([]byte(testBody)); err != nil {
			t.Fatal(err)
		}
		wantKind(t, s.Verify([]byte(testBody[1:])), stamp.ErrInvalidSignature)
	}

	valid := attestedValue(t, k, stamp.AttestedSchemeOIDC, "tok", testBody)
	m := decodeStamp(t, valid)
	k1 := fixedKey(t, stamp.CurveSecp256k1, "k")
	_, k1Value := mustStamp(t, k1, testBody)
	tests := []struct {
		name  string
		value string
		kind  error
		want  string
	}{
		{"not base64url", "{}", stamp.ErrMalformed, "not base64url"},
		{"bad JSON", base64.RawURLEncoding.EncodeToString([]byte("{")), stamp.ErrMalformed, "not the expected JSON"},
		{"missing token", stampJSON(t, with(m, "publicKeyAttestation", nil)), stamp.ErrMalformed, `"publicKeyAttestation" is missing`},
		{"missing scheme", stampJSON(t, with(m, "scheme", nil)), stamp.ErrMalformed, `"scheme" is missing`},
		{"missing public key", stampJSON(t, with(m, "publicKey", nil)), stamp.ErrMalformed, `"publicKey" is missing`},
		{"missing signature", stampJSON(t, with(m, "signature", nil)), stamp.ErrMalformed, `"signature" is missing`},
		{"unknown scheme", stampJSON(t, with(m, "scheme", "STAMP_ATTESTED_SCHEME_ED25519_OIDC")), stamp.ErrUnknownScheme, "unknown scheme"},
		{"API key scheme", stampJSON(t, with(m, "scheme", string(stamp.SchemeP256))), stamp.ErrUnknownScheme, "unknown scheme"},
		{"point not on curve", stampJSON(t, with(m, "publicKey", "03"+strings.Repeat("00", 31)+"01")), stamp.ErrMalformed, "not a point on the curve"},
		{"Ed25519-sized key", stampJSON(t, with(m, "publicKey", strings.Repeat("ab", 32))), stamp.ErrMalformed, "33-byte compressed point"},
		{"bad DER", stampJSON(t, with(m, "signature", "300102")), stamp.ErrMalformed, "not a valid DER"},
		{"API key stamp", k1Value, stamp.ErrMalformed, `"publicKeyAttestation" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := stamp.ParseAttestedStamp(tt.value)
			wantKind(t, err, tt.kind)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestZeroValueStampsVerifyNothing(t *testing.T) {
	_, cred := registered(t)
	body := []byte(testBody)
	wantKind(t, (&stamp.APIKeyStamp{Curve: stamp.CurveP256, Signature: []byte{0x30, 0}}).Verify(body), stamp.ErrInvalidSignature)
	wantKind(t, (&stamp.APIKeyStamp{Curve: stamp.CurveEd25519, Signature: make([]byte, 64)}).Verify(body), stamp.ErrInvalidSignature)
	wantKind(t, (&stamp.AttestedStamp{}).Verify(body), stamp.ErrInvalidSignature)
	_, err := (&stamp.WebAuthnStamp{CredentialID: cred.CredentialID}).Verify(body, cred)
	wantKind(t, err, stamp.ErrInvalidSignature)
}
