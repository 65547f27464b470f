package softauthn_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

const (
	rpID   = "localhost"
	origin = "http://localhost:3000"
)

func newAuthenticator(t *testing.T) *softauthn.Authenticator {
	t.Helper()
	a, err := softauthn.New(rpID, origin)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The registration is checked by go-webauthn's full relying-party ceremony (origin, rp id, challenge, flags,
// algorithm, statement), independently of package stamp.
func TestRegistrationPassesGoWebAuthnCeremony(t *testing.T) {
	for _, packed := range []bool{false, true} {
		a := newAuthenticator(t)
		challenge := softauthn.NewChallenge()
		register := a.Register
		if packed {
			register = a.RegisterSelfAttested
		}
		params, err := register(challenge)
		if err != nil {
			t.Fatal(err)
		}
		credential, _ := json.Marshal(map[string]any{
			"id": params.Attestation.CredentialID, "rawId": params.Attestation.CredentialID, "type": "public-key",
			"response": map[string]any{
				"clientDataJSON":    params.Attestation.ClientDataJSON,
				"attestationObject": params.Attestation.AttestationObject,
			},
		})
		parsed, err := protocol.ParseCredentialCreationResponseBytes(credential)
		if err != nil {
			t.Fatalf("go-webauthn cannot parse the registration: %v", err)
		}
		params256 := []protocol.CredentialParameter{{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgES256}}
		if _, err := parsed.Verify(challenge, rpID, []string{origin}, nil, nil, protocol.TopOriginExplicitVerificationMode,
			false, true, true, nil, params256, protocol.AttestationPolicy{}, protocol.SignaturePolicy{}); err != nil {
			t.Fatalf("go-webauthn rejects the registration (packed=%v): %v", packed, err)
		}
	}
}

// Each stamp is an assertion go-webauthn's relying-party ceremony accepts, for the challenge the API defines.
func TestStampPassesGoWebAuthnCeremony(t *testing.T) {
	a := newAuthenticator(t)
	params, err := a.Register(softauthn.NewChallenge())
	if err != nil {
		t.Fatal(err)
	}
	cred, err := stamp.VerifyRegistration(params.Challenge, params.Attestation)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"organizationId":"o"}`)
	for want := uint32(1); want <= 2; want++ {
		header, value, err := a.Stamp(body)
		if err != nil {
			t.Fatal(err)
		}
		if header != "X-Stamp-Webauthn" {
			t.Fatalf("header %q", header)
		}
		var s map[string]string
		if err := json.Unmarshal([]byte(value), &s); err != nil {
			t.Fatalf("stamp is not plain JSON: %v", err)
		}
		assertion, _ := json.Marshal(map[string]any{
			"id": s["credentialId"], "rawId": s["credentialId"], "type": "public-key",
			"response": map[string]any{
				"clientDataJSON": s["clientDataJson"], "authenticatorData": s["authenticatorData"], "signature": s["signature"],
			},
		})
		parsed, err := protocol.ParseCredentialRequestResponseBytes(assertion)
		if err != nil {
			t.Fatalf("go-webauthn cannot parse the assertion: %v", err)
		}
		challenge := base64.RawURLEncoding.EncodeToString(stamp.BodyChallenge(body))
		if err := parsed.Verify(challenge, rpID, "", []string{origin}, nil, nil, protocol.TopOriginExplicitVerificationMode,
			false, true, true, cred.PublicKey, protocol.SignaturePolicy{}); err != nil {
			t.Fatalf("go-webauthn rejects the assertion: %v", err)
		}
		if parsed.Response.AuthenticatorData.Counter != want || a.SignCount() != want {
			t.Fatalf("counter %d / %d, want %d", parsed.Response.AuthenticatorData.Counter, a.SignCount(), want)
		}
	}
}

func TestRegisterRejectsBadChallenge(t *testing.T) {
	a := newAuthenticator(t)
	for _, c := range []string{"", "a+b/", "YQ=="} {
		if _, err := a.Register(c); err == nil || !strings.Contains(err.Error(), "base64url") {
			t.Fatalf("Register(%q) = %v", c, err)
		}
	}
}

func TestConcurrentStampsHaveDistinctCounters(t *testing.T) {
	a := newAuthenticator(t)
	const n = 16
	counts := make(chan uint32, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, value, err := a.Stamp([]byte("x"))
			if err != nil {
				t.Error(err)
				return
			}
			s, err := stamp.ParseWebAuthnStamp(value)
			if err != nil {
				t.Error(err)
				return
			}
			counts <- uint32(s.AuthenticatorData[36]) // counter < 256 here: its low byte
		})
	}
	wg.Wait()
	close(counts)
	seen := map[uint32]bool{}
	for c := range counts {
		if seen[c] || c == 0 || c > n {
			t.Fatalf("counter %d repeated or out of range", c)
		}
		seen[c] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct counters, want %d", len(seen), n)
	}
}

func TestTwoAuthenticatorsDiffer(t *testing.T) {
	a, b := newAuthenticator(t), newAuthenticator(t)
	if a.CredentialID() == b.CredentialID() {
		t.Fatal("two authenticators share a credential id")
	}
	if a.RPID() != rpID || a.Origin() != origin {
		t.Fatalf("rp %s origin %s", a.RPID(), a.Origin())
	}
}
