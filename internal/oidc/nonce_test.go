package oidc_test

import (
	"testing"

	"github.com/sigil/sigil/internal/oidc"
)

func TestPublicKeyNonce(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		// FIPS 180-2 test vectors: the string's bytes are hashed, not decoded hex.
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	}
	for in, want := range tests {
		if got := oidc.PublicKeyNonce(in); got != want {
			t.Errorf("PublicKeyNonce(%q) = %s, want %s", in, got, want)
		}
	}
}
