package bundle

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// RFC 9180's test vectors of the bundles' suite, base mode: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM
// (testdata/README.md). Each vector's receiver key opens its first message (sequence 0, the one message a bundle
// holds) with the vector's info and AAD, through the code Open uses; the same message with a bit of its ciphertext,
// its AAD or its info changed, or opened by another key, is refused.
func TestRFC9180Vectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/rfc9180_p256_sha256_aes256gcm.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		Mode        int    `json:"mode"`
		KEMID       int    `json:"kem_id"`
		KDFID       int    `json:"kdf_id"`
		AEADID      int    `json:"aead_id"`
		Info        string `json:"info"`
		SkRm        string `json:"skRm"`
		PkRm        string `json:"pkRm"`
		Enc         string `json:"enc"`
		Encryptions []struct {
			AAD        string `json:"aad"`
			Ciphertext string `json:"ct"`
			Plaintext  string `json:"pt"`
		} `json:"encryptions"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) == 0 {
		t.Fatal("no vectors")
	}
	other, err := NewTargetKey()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vectors {
		if v.Mode != 0 || v.KEMID != 0x10 || v.KDFID != 1 || v.AEADID != 2 {
			t.Fatalf("vector %d is of mode %d, suite %#x/%#x/%#x", i, v.Mode, v.KEMID, v.KDFID, v.AEADID)
		}
		sk, err := ecdh.P256().NewPrivateKey(unhex(t, v.SkRm))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sk.PublicKey().Bytes(), unhex(t, v.PkRm)) {
			t.Fatalf("vector %d: skRm's public key is not pkRm", i)
		}
		first := v.Encryptions[0]
		enc, info, aad, ct := unhex(t, v.Enc), unhex(t, v.Info), unhex(t, first.AAD), unhex(t, first.Ciphertext)
		pt, err := open(sk, enc, ct, info, aad)
		if err != nil || !bytes.Equal(pt, unhex(t, first.Plaintext)) {
			t.Fatalf("vector %d: opened %x, %v; want %s", i, pt, err, first.Plaintext)
		}
		refusals := []struct {
			name          string
			key           *ecdh.PrivateKey
			ct, info, aad []byte
		}{
			{"a bit of the ciphertext changed", sk, flip(ct, i), info, aad},
			{"a bit of the AAD changed", sk, ct, info, flip(aad, i)},
			{"another info", sk, ct, []byte("turnkey_hpke"), aad},
			{"another receiver key", other, ct, info, aad},
		}
		for _, r := range refusals {
			if pt, err := open(r.key, enc, r.ct, r.info, r.aad); !errors.Is(err, ErrDecrypt) {
				t.Errorf("vector %d, %s: opened %x, %v", i, r.name, pt, err)
			}
		}
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flip is b with one bit changed, chosen by i.
func flip(b []byte, i int) []byte {
	out := bytes.Clone(b)
	out[i%len(out)] ^= 1 << (i % 8)
	return out
}
