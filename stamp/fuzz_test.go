package stamp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sigil/sigil/stamp"
)

// checkParseResult asserts what every parser promises: a result xor a *stamp.Error of a parse kind.
func checkParseResult(t *testing.T, ok bool, err error) {
	t.Helper()
	if ok == (err != nil) {
		t.Fatalf("parser returned ok=%v with err=%v", ok, err)
	}
	if err != nil && !errors.Is(err, stamp.ErrMalformed) && !errors.Is(err, stamp.ErrUnknownScheme) {
		t.Fatalf("parse error of an unexpected kind: %v", err)
	}
}

func FuzzParseAPIKeyStamp(f *testing.F) {
	for _, curve := range allCurves {
		_, v := mustStamp(f, fixedKey(f, curve, "fuzz"), testBody)
		f.Add(v)
	}
	f.Add("")
	f.Add("e30")
	f.Fuzz(func(t *testing.T, value string) {
		s, err := stamp.ParseAPIKeyStamp(value)
		checkParseResult(t, s != nil, err)
		if s == nil {
			return
		}
		if s.PublicKey != strings.ToLower(s.PublicKey) || !s.Curve.Valid() || s.Curve.Scheme() != s.Scheme {
			t.Fatalf("inconsistent stamp %+v", s)
		}
		if err := s.Verify([]byte(testBody)); err != nil && !errors.Is(err, stamp.ErrInvalidSignature) {
			t.Fatalf("Verify error of an unexpected kind: %v", err)
		}
	})
}

func FuzzParseWebAuthnStamp(f *testing.F) {
	a, cred := registered(f)
	_, v := mustStamp(f, a, testBody)
	f.Add(v)
	f.Add(`{"credentialId":"AA","clientDataJson":"e30","authenticatorData":"AA","signature":"AA"}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, value string) {
		s, err := stamp.ParseWebAuthnStamp(value)
		checkParseResult(t, s != nil, err)
		if s == nil {
			return
		}
		c := *cred
		got, err := s.Verify([]byte(testBody), &c)
		if (got == nil) == (err == nil) || (err != nil && !errors.Is(err, stamp.ErrInvalidSignature)) {
			t.Fatalf("Verify returned %+v, %v", got, err)
		}
	})
}

func FuzzParseAttestedStamp(f *testing.F) {
	k := fixedKey(f, stamp.CurveP256, "fuzz")
	f.Add(attestedValue(f, k, stamp.AttestedSchemeOIDC, "a.b.c", testBody))
	f.Add(attestedValue(f, k, stamp.AttestedSchemeVerificationToken, "t", testBody))
	f.Add("")
	f.Fuzz(func(t *testing.T, value string) {
		s, err := stamp.ParseAttestedStamp(value)
		checkParseResult(t, s != nil, err)
		if s == nil {
			return
		}
		if s.Token == "" || (s.Scheme != stamp.AttestedSchemeOIDC && s.Scheme != stamp.AttestedSchemeVerificationToken) {
			t.Fatalf("inconsistent stamp %+v", s)
		}
		if err := s.Verify([]byte(testBody)); err != nil && !errors.Is(err, stamp.ErrInvalidSignature) {
			t.Fatalf("Verify error of an unexpected kind: %v", err)
		}
	})
}

func FuzzVerifyRegistration(f *testing.F) {
	a := newPasskey(f)
	challenge := "c2lnaWwgZnV6eiBjaGFsbGVuZ2U"
	for _, register := range []func(string) (stamp.AuthenticatorParams, error){a.Register, a.RegisterSelfAttested} {
		p, err := register(challenge)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p.Attestation.CredentialID, p.Attestation.ClientDataJSON, p.Attestation.AttestationObject)
	}
	f.Fuzz(func(t *testing.T, id, clientData, object string) {
		cred, err := stamp.VerifyRegistration(challenge, stamp.Attestation{CredentialID: id, ClientDataJSON: clientData, AttestationObject: object})
		if (cred == nil) == (err == nil) || (err != nil && !errors.Is(err, stamp.ErrInvalidAttestation)) {
			t.Fatalf("VerifyRegistration returned %+v, %v", cred, err)
		}
	})
}
