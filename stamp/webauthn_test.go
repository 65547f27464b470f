package stamp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

const (
	testRPID   = "wallet.example"
	testOrigin = "https://wallet.example"
)

func newPasskey(t testing.TB) *softauthn.Authenticator {
	t.Helper()
	a, err := softauthn.New(testRPID, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// registered makes a passkey and its verified credential record.
func registered(t testing.TB) (*softauthn.Authenticator, *stamp.WebAuthnCredential) {
	t.Helper()
	a := newPasskey(t)
	challenge := softauthn.NewChallenge()
	params, err := a.Register(challenge)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := stamp.VerifyRegistration(params.Challenge, params.Attestation)
	if err != nil {
		t.Fatal(err)
	}
	return a, cred
}

func TestVerifyRegistration(t *testing.T) {
	for _, format := range []string{"none", "packed"} {
		t.Run(format, func(t *testing.T) {
			a := newPasskey(t)
			challenge := softauthn.NewChallenge()
			register := a.Register
			if format == "packed" {
				register = a.RegisterSelfAttested
			}
			params, err := register(challenge)
			if err != nil {
				t.Fatal(err)
			}
			if params.Challenge != challenge {
				t.Fatalf("params carry challenge %q", params.Challenge)
			}
			cred, err := stamp.VerifyRegistration(challenge, params.Attestation)
			if err != nil {
				t.Fatal(err)
			}
			rpIDHash := sha256.Sum256([]byte(testRPID))
			wantType := map[string]string{"none": "none", "packed": "basic_surrogate"}[format]
			switch {
			case cred.CredentialID != a.CredentialID():
				t.Fatalf("credential id %s, want %s", cred.CredentialID, a.CredentialID())
			case cred.AttestationFormat != format || cred.AttestationType != wantType:
				t.Fatalf("attestation %s/%s, want %s/%s", cred.AttestationFormat, cred.AttestationType, format, wantType)
			case string(cred.RPIDHash) != string(rpIDHash[:]):
				t.Fatal("rpIdHash is not SHA-256 of the rp id")
			case cred.AAGUID != "00000000-0000-0000-0000-000000000000":
				t.Fatalf("AAGUID %s", cred.AAGUID)
			case cred.Algorithm != -7 || len(cred.PublicKeyHex) != 66 || !strings.HasPrefix(cred.PublicKeyHex, "0"):
				t.Fatalf("key alg %d hex %s", cred.Algorithm, cred.PublicKeyHex)
			case cred.SignCount != 0 || !cred.UserVerified || cred.Origin != testOrigin:
				t.Fatalf("count %d uv %v origin %s", cred.SignCount, cred.UserVerified, cred.Origin)
			case len(cred.Transports) != 2 || cred.Transports[0] != stamp.TransportInternal:
				t.Fatalf("transports %v", cred.Transports)
			}
			// The API form of the key is a valid compressed P-256 key.
			if _, err := stamp.NormalizePublicKey(stamp.CurveP256, cred.PublicKeyHex); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// reencodeClientData rewrites a base64url clientDataJSON through edit.
func reencodeClientData(t testing.TB, encoded string, edit func(map[string]any)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

// reencodeAttestationObject rewrites a base64url attestation object through edit.
func reencodeAttestationObject(t testing.TB, encoded string, edit func(map[string]any)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := cbor.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := cbor.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

func TestVerifyRegistrationChallengeEncodings(t *testing.T) {
	a := newPasskey(t)
	// 32 bytes whose base64 uses '+', '/' and '-', '_' positions, so the alphabets differ.
	raw := []byte(strings.Repeat("\xfb\xff\xbf", 10) + "\xfb\xf0")
	urlForm := base64.RawURLEncoding.EncodeToString(raw)
	params, err := a.Register(urlForm)
	if err != nil {
		t.Fatal(err)
	}
	for _, challenge := range []string{
		urlForm,
		base64.URLEncoding.EncodeToString(raw),    // padded
		base64.StdEncoding.EncodeToString(raw),    // what @turnkey/sdk-browser converts from
		base64.RawStdEncoding.EncodeToString(raw), // unpadded standard
	} {
		if _, err := stamp.VerifyRegistration(challenge, params.Attestation); err != nil {
			t.Fatalf("challenge %q rejected: %v", challenge, err)
		}
	}
}

func TestVerifyRegistrationRejects(t *testing.T) {
	a := newPasskey(t)
	challenge := softauthn.NewChallenge()
	none, err := a.Register(challenge)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := a.RegisterSelfAttested(challenge)
	if err != nil {
		t.Fatal(err)
	}
	other := newPasskey(t)
	otherParams, err := other.Register(challenge)
	if err != nil {
		t.Fatal(err)
	}

	edit := func(base stamp.Attestation, change func(*stamp.Attestation)) stamp.Attestation {
		out := base
		out.Transports = append([]stamp.Transport(nil), base.Transports...)
		change(&out)
		return out
	}
	tamperAuthData := func(obj map[string]any) {
		ad := append([]byte(nil), obj["authData"].([]byte)...)
		ad[33+3] ^= 1 // counter low byte
		obj["authData"] = ad
	}

	tests := []struct {
		name      string
		challenge string
		att       stamp.Attestation
		want      string
	}{
		{"wrong challenge", softauthn.NewChallenge(), none.Attestation, "challenge does not match"},
		{"challenge not base64", "not base64!", none.Attestation, "challenge is not base64url"},
		{"empty challenge", "", none.Attestation, "challenge is not base64url"},
		{"wrong type", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.ClientDataJSON = reencodeClientData(t, a.ClientDataJSON, func(m map[string]any) { m["type"] = "webauthn.get" })
		}), `type is "webauthn.get"`},
		{"client data not JSON", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.ClientDataJSON = base64.RawURLEncoding.EncodeToString([]byte("{"))
		}), "not a JSON object"},
		{"client data not base64", challenge, edit(none.Attestation, func(a *stamp.Attestation) { a.ClientDataJSON = "**" }), "clientDataJson is not base64url"},
		{"client data challenge not base64", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.ClientDataJSON = reencodeClientData(t, a.ClientDataJSON, func(m map[string]any) { m["challenge"] = "%%" })
		}), "clientDataJson challenge is not base64url"},
		{"unknown transport", challenge, edit(none.Attestation, func(a *stamp.Attestation) { a.Transports = append(a.Transports, "usb") }), `unknown transport "usb"`},
		{"credential id of another passkey", challenge, edit(none.Attestation, func(a *stamp.Attestation) { a.CredentialID = other.CredentialID() }), "not the credential id in the attestation object"},
		{"credential id not base64", challenge, edit(none.Attestation, func(a *stamp.Attestation) { a.CredentialID = "#" }), "credentialId is not base64url"},
		{"attestation object not base64", challenge, edit(none.Attestation, func(a *stamp.Attestation) { a.AttestationObject = "@@" }), "attestationObject is not base64url"},
		{"attestation object not CBOR", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = base64.RawURLEncoding.EncodeToString([]byte{0xff, 0x00})
		}), "not a CBOR attestation object"},
		{"auth data truncated", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) { m["authData"] = m["authData"].([]byte)[:40] })
		}), "authenticator data in attestationObject is malformed"},
		{"no attested credential", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) {
				ad := append([]byte(nil), m["authData"].([]byte)[:37]...)
				ad[32] &^= 0x40
				m["authData"] = ad
			})
		}), "carries no credential"},
		{"user not present", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) {
				ad := append([]byte(nil), m["authData"].([]byte)...)
				ad[32] &^= 0x01
				m["authData"] = ad
			})
		}), "user-present flag"},
		{"none with a statement", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) { m["attStmt"] = map[string]any{"sig": []byte{1}} })
		}), `"none" attestation statement does not verify`},
		{"unknown format", challenge, edit(none.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) { m["fmt"] = "x-custom" })
		}), `"x-custom" attestation statement does not verify`},
		{"packed signature over other client data", challenge, edit(packed.Attestation, func(a *stamp.Attestation) {
			a.ClientDataJSON = reencodeClientData(t, a.ClientDataJSON, func(m map[string]any) { m["origin"] = "https://evil.example" })
		}), `"packed" attestation statement does not verify`},
		{"packed with tampered auth data", challenge, edit(packed.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, tamperAuthData)
		}), `"packed" attestation statement does not verify`},
		{"packed signed by another passkey", challenge, edit(packed.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) {
				o, _ := base64.RawURLEncoding.DecodeString(otherParams.Attestation.AttestationObject)
				om := map[string]any{}
				_ = cbor.Unmarshal(o, &om)
				m["authData"] = om["authData"]
			})
			a.CredentialID = other.CredentialID()
		}), `"packed" attestation statement does not verify`},
		{"packed with the wrong alg", challenge, edit(packed.Attestation, func(a *stamp.Attestation) {
			a.AttestationObject = reencodeAttestationObject(t, a.AttestationObject, func(m map[string]any) {
				m["attStmt"].(map[any]any)["alg"] = int64(-257)
			})
		}), `"packed" attestation statement does not verify`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cred, err := stamp.VerifyRegistration(tt.challenge, tt.att)
			if cred != nil {
				t.Fatalf("accepted: %+v", cred)
			}
			wantKind(t, err, stamp.ErrInvalidAttestation)
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "invalid authenticator attestation: ") {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestWebAuthnStampVerify(t *testing.T) {
	a, cred := registered(t)
	for i := uint32(1); i <= 3; i++ {
		header, value := mustStamp(t, a, testBody)
		if header != stamp.HeaderWebAuthn {
			t.Fatalf("header %q", header)
		}
		s, err := stamp.ParseWebAuthnStamp(value)
		if err != nil {
			t.Fatal(err)
		}
		if s.CredentialID != cred.CredentialID {
			t.Fatalf("stamp credential %s, registered %s", s.CredentialID, cred.CredentialID)
		}
		got, err := s.Verify([]byte(testBody), cred)
		if err != nil {
			t.Fatalf("assertion %d: %v", i, err)
		}
		if got.SignCount != i || !got.UserVerified || got.Origin != testOrigin {
			t.Fatalf("assertion %d: %+v", i, got)
		}
		cred.SignCount = got.SignCount
	}
}

func TestWebAuthnStampZeroCounters(t *testing.T) {
	// Synced passkeys always report 0; with 0 stored, a 0 counter is accepted again and again.
	a, cred := registered(t)
	for range 2 {
		a.SetSignCount(^uint32(0)) // the next assertion's counter wraps to 0
		_, value := mustStamp(t, a, testBody)
		s, err := stamp.ParseWebAuthnStamp(value)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Verify([]byte(testBody), cred)
		if err != nil || got.SignCount != 0 {
			t.Fatalf("zero counter: %+v %v", got, err)
		}
	}
	// Once a non-zero counter is stored, 0 is a regression.
	cred.SignCount = 7
	a.SetSignCount(^uint32(0))
	_, value := mustStamp(t, a, testBody)
	s, _ := stamp.ParseWebAuthnStamp(value)
	if _, err := s.Verify([]byte(testBody), cred); err == nil || !strings.Contains(err.Error(), "counter 0 is not greater than the stored 7") {
		t.Fatalf("got %v", err)
	}
}

// webAuthnMembers decodes an X-Stamp-Webauthn value into its members, base64url-decoded.
func webAuthnMembers(t testing.TB, value string) map[string][]byte {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(value), &m); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for k, v := range m {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = b
	}
	return out
}

func webAuthnValue(t testing.TB, members map[string][]byte) string {
	t.Helper()
	m := map[string]string{}
	for k, v := range members {
		m[k] = base64.RawURLEncoding.EncodeToString(v)
	}
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func editMember(t testing.TB, value, member string, change func([]byte) []byte) string {
	t.Helper()
	m := webAuthnMembers(t, value)
	m[member] = change(append([]byte(nil), m[member]...))
	return webAuthnValue(t, m)
}

func TestWebAuthnStampRejects(t *testing.T) {
	a, cred := registered(t)
	_, value := mustStamp(t, a, testBody)
	other, otherCred := registered(t)
	_, otherValue := mustStamp(t, other, testBody)

	clientData := func(change func(map[string]any)) string {
		return editMember(t, value, "clientDataJson", func(b []byte) []byte {
			m := map[string]any{}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			change(m)
			out, _ := json.Marshal(m)
			return out
		})
	}
	otherRP := sha256.Sum256([]byte("evil.example"))
	withRP := *cred
	withRP.RPIDHash = otherRP[:]
	ahead := *cred
	ahead.SignCount = 5
	same := *cred
	same.SignCount = 1
	noRP := *cred
	noRP.RPIDHash = nil
	badKey := *cred
	badKey.PublicKey = []byte{0xa0}

	tests := []struct {
		name  string
		value string
		body  string
		cred  *stamp.WebAuthnCredential
		want  string
	}{
		{"wrong challenge (other body)", value, testBody + " ", cred, "challenge is not the SHA-256 of the request body"},
		{"challenge of the raw digest", clientData(func(m map[string]any) {
			d := sha256.Sum256([]byte(testBody))
			m["challenge"] = base64.RawURLEncoding.EncodeToString(d[:])
		}), testBody, cred, "challenge is not the SHA-256"},
		{"challenge upper-case hex", clientData(func(m map[string]any) {
			d := sha256.Sum256([]byte(testBody))
			m["challenge"] = base64.RawURLEncoding.EncodeToString([]byte(strings.ToUpper(hex.EncodeToString(d[:]))))
		}), testBody, cred, "challenge is not the SHA-256"},
		{"wrong type", clientData(func(m map[string]any) { m["type"] = "webauthn.create" }), testBody, cred, `type is "webauthn.create"`},
		{"missing type", clientData(func(m map[string]any) { delete(m, "type") }), testBody, cred, `type is ""`},
		{"wrong rpId", value, testBody, &withRP, "different relying party"},
		{"credential without rpIdHash", value, testBody, &noRP, "different relying party"},
		{"replayed counter", value, testBody, &same, "counter 1 is not greater than the stored 1"},
		{"lower counter", value, testBody, &ahead, "counter 1 is not greater than the stored 5"},
		{"tampered authenticator data (UV flag)", editMember(t, value, "authenticatorData", func(b []byte) []byte { b[32] ^= 0x04; return b }), testBody, cred, "does not verify"},
		{"tampered authenticator data (counter)", editMember(t, value, "authenticatorData", func(b []byte) []byte { b[36] += 9; return b }), testBody, cred, "does not verify"},
		{"user not present", editMember(t, value, "authenticatorData", func(b []byte) []byte { b[32] &^= 0x01; return b }), testBody, cred, "user-present flag"},
		{"tampered client data origin", clientData(func(m map[string]any) { m["origin"] = "https://evil.example" }), testBody, cred, "does not verify"},
		{"bad signature", editMember(t, value, "signature", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), testBody, cred, "does not verify"},
		{"signature not DER", editMember(t, value, "signature", func(b []byte) []byte { return append(b, 0) }), testBody, cred, "does not verify"},
		{"another passkey's stamp", otherValue, testBody, cred, "credential id is not the stored credential's"},
		{"another passkey's key", editMember(t, otherValue, "credentialId", func([]byte) []byte {
			id, _ := base64.RawURLEncoding.DecodeString(cred.CredentialID)
			return id
		}), testBody, cred, "does not verify"},
		{"stored key unparsable", value, testBody, &badKey, "stored credential public key cannot be parsed"},
		{"no credential", value, testBody, nil, "no stored credential"},
	}
	_ = otherCred
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.ParseWebAuthnStamp(tt.value)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got, err := s.Verify([]byte(tt.body), tt.cred)
			if got != nil {
				t.Fatalf("accepted: %+v", got)
			}
			wantKind(t, err, stamp.ErrInvalidSignature)
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "could not verify webauthn signature: ") {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestParseWebAuthnStampMalformed(t *testing.T) {
	a, _ := registered(t)
	_, value := mustStamp(t, a, testBody)
	var members map[string]string
	if err := json.Unmarshal([]byte(value), &members); err != nil {
		t.Fatal(err)
	}
	set := func(key, v string) string {
		m := map[string]string{}
		for k, x := range members {
			m[k] = x
		}
		if v == "" {
			delete(m, key)
		} else {
			m[key] = v
		}
		j, _ := json.Marshal(m)
		return string(j)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		name  string
		value string
		want  string
	}{
		{"empty", "", "not the expected JSON"},
		{"base64 of the JSON", b64([]byte(value)), "not the expected JSON"},
		{"JSON array", "[]", "not the expected JSON"},
		{"number member", strings.Replace(value, `"signature":"`, `"signature":1,"x":"`, 1), "not the expected JSON"},
		{"missing credentialId", set("credentialId", ""), `"credentialId" is missing`},
		{"missing clientDataJson", set("clientDataJson", ""), `"clientDataJson" is missing`},
		{"missing authenticatorData", set("authenticatorData", ""), `"authenticatorData" is missing`},
		{"missing signature", set("signature", ""), `"signature" is missing`},
		{"credentialId not base64url", set("credentialId", "a+b/"), "credentialId is not base64url"},
		{"clientDataJson not base64url", set("clientDataJson", "{}"), "clientDataJson is not base64url"},
		{"authenticatorData not base64url", set("authenticatorData", "!"), "authenticatorData is not base64url"},
		{"signature not base64url", set("signature", "a b"), "signature is not base64url"},
		{"clientDataJson not JSON", set("clientDataJson", b64([]byte("type=webauthn.get"))), "clientDataJson is not a JSON object"},
		{"authenticatorData short", set("authenticatorData", b64(make([]byte, 36))), "authenticatorData is malformed"},
		{"authenticatorData trailing bytes", set("authenticatorData", b64(make([]byte, 40))), "authenticatorData is malformed"},
		{"too long", `{"x":"` + strings.Repeat("a", stamp.MaxHeaderValueLen) + `"}`, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.ParseWebAuthnStamp(tt.value)
			if s != nil {
				t.Fatalf("parsed %+v", s)
			}
			wantKind(t, err, stamp.ErrMalformed)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}
