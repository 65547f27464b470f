package api

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactCopiesAndHidesSecrets(t *testing.T) {
	t.Parallel()
	in := &OtpLoginIntentV2{VerificationToken: "eyJ.secret.token", PublicKey: "02ab",
		ClientSignature: &ClientSignature{PublicKey: "03cd", Scheme: "S", Message: "m", Signature: "sig"}}
	out, err := json.Marshal(Redact(in))
	if err != nil {
		t.Fatal(err)
	}
	var got OtpLoginIntentV2
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "eyJ.secret.token") || got.VerificationToken != Redacted {
		t.Errorf("redacted encoding = %s, want the token replaced by %q", out, Redacted)
	}
	if !strings.Contains(string(out), `"publicKey":"02ab"`) || !strings.Contains(string(out), `"signature":"sig"`) {
		t.Errorf("redacted encoding = %s, want every other field as it was", out)
	}
	if in.VerificationToken != "eyJ.secret.token" {
		t.Errorf("Redact changed its argument: token = %q", in.VerificationToken)
	}
	// The wire encoding is what the type holds: the SDK sends the secret as it is.
	wire, _ := json.Marshal(in)
	if !strings.Contains(string(wire), "eyJ.secret.token") {
		t.Errorf("wire encoding = %s, want the token as given", wire)
	}
}

func TestRedactLeavesEmptySecretsAndPlainTypes(t *testing.T) {
	t.Parallel()
	v7 := &CreateSubOrganizationIntentV7{SubOrganizationName: "x"}
	out, _ := json.Marshal(Redact(v7))
	if strings.Contains(string(out), "redacted") {
		t.Errorf("an empty secret was redacted: %s", out)
	}
	plain := &CreateWalletIntent{WalletName: "w"}
	if got := Redact(plain); got != any(plain) {
		t.Errorf("Redact copied a value without secrets: got %p, want %p", got, plain)
	}
	nested := []VerifyOtpIntent{{OtpID: "1", OtpCode: "123456"}}
	out, _ = json.Marshal(Redact(nested))
	if strings.Contains(string(out), "123456") {
		t.Errorf("a secret in a slice element was kept: %s", out)
	}
}
