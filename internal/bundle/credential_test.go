package bundle

import (
	"bytes"
	"testing"

	"github.com/sigil/sigil/internal/keys"
)

func TestCredentialBundleRoundTrip(t *testing.T) {
	t.Parallel()
	target, err := NewTargetKey()
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte{7}, 32)
	b, err := CredentialBundle(target.PublicKey(), secret)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := keys.Base58CheckDecode(b)
	if err != nil || len(raw) != 33+32+16 || (raw[0] != 2 && raw[0] != 3) {
		t.Fatalf("bundle layout: %d bytes, first %x, %v; want a compressed key, the ciphertext and its tag", len(raw), raw[0], err)
	}
	got, err := OpenCredentialBundle(target, b)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("OpenCredentialBundle = %x, %v", got, err)
	}
	other, _ := NewTargetKey()
	if _, err := OpenCredentialBundle(other, b); err == nil {
		t.Error("another key opened the bundle")
	}
	tampered := []byte(b)
	tampered[len(tampered)-1] ^= 1
	if _, err := OpenCredentialBundle(target, string(tampered)); err == nil {
		t.Error("a tampered bundle opened")
	}
}
