package bundle

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func testKey(t testing.TB, label string) *ecdsa.PrivateKey {
	t.Helper()
	d := sha256.Sum256([]byte(label))
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testECDH(t testing.TB, label string) *ecdh.PrivateKey {
	t.Helper()
	k, err := testKey(t, label).ECDH()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type sdkVectors struct {
	SignerPublic       string `json:"signerPublic"`
	ClientPublic       string `json:"clientPublic"`
	TargetBundle       string `json:"targetBundle"`
	EncryptedOtpBundle string `json:"encryptedOtpBundle"`
	OTPCode            string `json:"otpCode"`
	ExportBundle       string `json:"exportBundle"`
	ExportKeyBundle    string `json:"exportKeyBundle"`
	ReceiverPriv       string `json:"receiverPriv"`
	OrganizationID     string `json:"organizationId"`
	SDKExportMnemonic  string `json:"sdkExportMnemonic"`
	SDKExportKeyHex    string `json:"sdkExportKeyHex"`
}

func loadVectors(t *testing.T) sdkVectors {
	t.Helper()
	b, err := os.ReadFile("testdata/sdk_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v sdkVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSDKVectors: a bundle @turnkey/crypto encrypted to our target bundle
// opens here, and our export bundles are what decryptExportBundle read.
func TestSDKVectors(t *testing.T) {
	v := loadVectors(t)
	signer := &testKey(t, "sigil token test key").PublicKey
	raw, _ := signer.Bytes()
	if hex.EncodeToString(raw) != v.SignerPublic {
		t.Fatal("vector signer is not the labelled test key")
	}
	target := testECDH(t, "sigil otp target key")
	td, pub, err := ParseTargetBundle(v.TargetBundle, signer)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(target.PublicKey()) || td.OrganizationID == "" {
		t.Errorf("target data %+v", td)
	}
	p, err := DecryptOTP(target, v.EncryptedOtpBundle)
	if err != nil {
		t.Fatal(err)
	}
	if p.OTPCode != v.OTPCode || p.PublicKey != v.ClientPublic {
		t.Errorf("decrypted %+v, want code %s key %s", p, v.OTPCode, v.ClientPublic)
	}

	recvRaw, _ := hex.DecodeString(v.ReceiverPriv)
	receiver, err := ParseTargetKey(recvRaw)
	if err != nil {
		t.Fatal(err)
	}
	mnemonic, err := OpenExportBundle(v.ExportBundle, signer, receiver, v.OrganizationID)
	if err != nil || string(mnemonic) != v.SDKExportMnemonic {
		t.Errorf("export bundle: %q, %v; the SDK read %q", mnemonic, err, v.SDKExportMnemonic)
	}
	secret, err := OpenExportBundle(v.ExportKeyBundle, signer, receiver, v.OrganizationID)
	if err != nil || hex.EncodeToString(secret) != v.SDKExportKeyHex {
		t.Errorf("key export bundle: %x, %v; the SDK read %s", secret, err, v.SDKExportKeyHex)
	}
}

// TestInfoMatchesSDK: @turnkey/crypto hard-codes the HPKE key schedule
// context; its last 32 bytes are LabeledExtract("", "info_hash", info).
func TestInfoMatchesSDK(t *testing.T) {
	const sdkInfoHash = "2f3f04e9206cd12413503529b47ac6a630b92ec4cf7d234508d0af9771c99e50"
	suite := []byte("HPKE\x00\x10\x00\x01\x00\x02") // DHKEM(P-256), HKDF-SHA256, AES-256-GCM
	ikm := append(append(append([]byte("HPKE-v1"), suite...), "info_hash"...), info...)
	got, err := hkdf.Extract(sha256.New, ikm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(got) != sdkInfoHash {
		t.Errorf("info hash %x, the SDK's is %s", got, sdkInfoHash)
	}
}

func TestOTPRoundTrip(t *testing.T) {
	signer := testKey(t, "signer")
	target, err := NewTargetKey()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := TargetBundle(signer, target.PublicKey(), "org-1", "")
	if err != nil {
		t.Fatal(err)
	}
	var m SignedMessage
	if err := json.Unmarshal([]byte(tb), &m); err != nil {
		t.Fatal(err)
	}
	data, _ := hex.DecodeString(m.Data)
	wantData := `{"targetPublic":"` + hex.EncodeToString(target.PublicKey().Bytes()) + `","organizationId":"org-1"}`
	if string(data) != wantData || m.Version != "v1.0.0" || !strings.HasPrefix(m.EnclaveQuorumPublic, "04") || len(m.EnclaveQuorumPublic) != 130 {
		t.Errorf("target bundle %s\ndata %s", tb, data)
	}
	client := compressedOf(t, testKey(t, "client"))
	enc, err := EncryptOTP(tb, &signer.PublicKey, "123456", client)
	if err != nil {
		t.Fatal(err)
	}
	// The coordinator stores the target key between INIT_OTP and VERIFY_OTP.
	restored, err := ParseTargetKey(target.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecryptOTP(restored, enc)
	if err != nil || p.OTPCode != "123456" || p.PublicKey != client {
		t.Fatalf("%+v, %v", p, err)
	}
	if _, err := EncryptOTP(tb, &testKey(t, "impostor").PublicKey, "123456", client); !errors.Is(err, ErrSigner) {
		t.Errorf("client pinned to another signer: err = %v", err)
	}
}

func compressedOf(t *testing.T, k *ecdsa.PrivateKey) string {
	t.Helper()
	raw, _ := k.PublicKey.Bytes()
	return hex.EncodeToString(append([]byte{2 | raw[64]&1}, raw[1:33]...))
}

func TestVerifyRejects(t *testing.T) {
	signer := testKey(t, "signer")
	good, err := Sign(signer, []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(*SignedMessage)) string {
		var m SignedMessage
		_ = json.Unmarshal([]byte(good), &m)
		f(&m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	other := testKey(t, "other")
	otherPub, _ := other.PublicKey.Bytes()
	otherSigned, _ := Sign(other, []byte(`{"a":1}`))
	for _, tc := range []struct {
		name string
		msg  string
		want error
	}{
		{"signed by another key", otherSigned, ErrSigner},
		{"claims our key, signed by another", edit(func(m *SignedMessage) {
			var o SignedMessage
			_ = json.Unmarshal([]byte(otherSigned), &o)
			m.DataSignature = o.DataSignature
		}), ErrSigner},
		{"other quorum key", edit(func(m *SignedMessage) { m.EnclaveQuorumPublic = hex.EncodeToString(otherPub) }), ErrSigner},
		{"data changed", edit(func(m *SignedMessage) { m.Data = hex.EncodeToString([]byte(`{"a":2}`)) }), ErrSigner},
		{"version", edit(func(m *SignedMessage) { m.Version = "v0" }), ErrMalformed},
		{"data not hex", edit(func(m *SignedMessage) { m.Data = "xyz" }), ErrMalformed},
		{"signature not hex", edit(func(m *SignedMessage) { m.DataSignature = "xyz" }), ErrMalformed},
		{"not JSON", "nope", ErrMalformed},
		{"oversized", strings.Repeat(" ", maxBundleLength+1), ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Verify(tc.msg, &signer.PublicKey); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if data, err := Verify(good, &signer.PublicKey); err != nil || string(data) != `{"a":1}` {
		t.Fatalf("control: %s, %v", data, err)
	}
}

func TestOpenRejects(t *testing.T) {
	receiver := testECDH(t, "receiver")
	c, err := Seal(receiver.PublicKey(), []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	other := testECDH(t, "other")
	flip := func(h string) string {
		b, _ := hex.DecodeString(h)
		b[len(b)-1] ^= 1
		return hex.EncodeToString(b)
	}
	for _, tc := range []struct {
		name string
		key  *ecdh.PrivateKey
		c    Ciphertext
		want error
	}{
		{"wrong receiver", other, c, ErrDecrypt},
		{"ciphertext flipped", receiver, Ciphertext{c.EncappedPublic, flip(c.Ciphertext)}, ErrDecrypt},
		{"other encapped key", receiver, Ciphertext{hex.EncodeToString(other.PublicKey().Bytes()), c.Ciphertext}, ErrDecrypt},
		{"encapped not on curve", receiver, Ciphertext{flip(c.EncappedPublic), c.Ciphertext}, ErrMalformed},
		{"encapped compressed", receiver, Ciphertext{c.EncappedPublic[:66], c.Ciphertext}, ErrMalformed},
		{"ciphertext not hex", receiver, Ciphertext{c.EncappedPublic, "zz"}, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open(tc.key, tc.c); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	pt, err := Open(receiver, c)
	if err != nil || !bytes.Equal(pt, []byte("secret")) {
		t.Fatalf("control: %q, %v", pt, err)
	}
}

func TestDecryptOTPRejectsBadPlaintext(t *testing.T) {
	target := testECDH(t, "target")
	for _, plaintext := range []string{
		`{"otp_code":"123456"}`,
		`{"public_key":"02ab"}`,
		`{"otp_code":"1","public_key":"not hex"}`,
		`{"otp_code":"1","public_key":"` + compressedOf(t, testKey(t, "c")) + `","extra":1}`,
		`[]`,
	} {
		c, err := Seal(target.PublicKey(), []byte(plaintext))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(c)
		if _, err := DecryptOTP(target, string(b)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v", plaintext, err)
		}
	}
}

func TestExportBundleOrganization(t *testing.T) {
	signer := testKey(t, "signer")
	receiver := testECDH(t, "receiver")
	eb, err := ExportBundle(signer, receiver.PublicKey(), "org-1", []byte("seed words"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenExportBundle(eb, &signer.PublicKey, receiver, "org-2"); !errors.Is(err, ErrOrganization) {
		t.Errorf("other organization: err = %v", err)
	}
	if _, err := OpenExportBundle(eb, &testKey(t, "x").PublicKey, receiver, "org-1"); !errors.Is(err, ErrSigner) {
		t.Errorf("other signer: err = %v", err)
	}
	if _, err := ExportBundle(signer, receiver.PublicKey(), "", []byte("x")); err == nil {
		t.Error("export bundle without organization accepted")
	}
}

func TestParsePublicKeyHex(t *testing.T) {
	k := testECDH(t, "k")
	unc := hex.EncodeToString(k.PublicKey().Bytes())
	comp := compressedOf(t, testKey(t, "k"))
	for _, s := range []string{unc, comp} {
		pub, err := ParsePublicKeyHex(s)
		if err != nil || !pub.Equal(k.PublicKey()) {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"", "zz", unc[:128], "05" + unc[2:], "04" + strings.Repeat("00", 64)} {
		if _, err := ParsePublicKeyHex(s); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q accepted (err %v)", s, err)
		}
	}
}

func FuzzDecryptOTP(f *testing.F) {
	target := testECDH(f, "target")
	c, _ := Seal(target.PublicKey(), []byte(`{"otp_code":"1","public_key":"02"}`))
	b, _ := json.Marshal(c)
	f.Add(string(b))
	f.Add(`{"encappedPublic":"04","ciphertext":""}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = DecryptOTP(target, s)
	})
}

func FuzzVerify(f *testing.F) {
	signer := testKey(f, "signer")
	good, _ := Sign(signer, []byte(`{"a":1}`))
	f.Add(good)
	f.Add(`{"version":"v1.0.0"}`)
	other := &testKey(f, "other").PublicKey
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := Verify(s, other); err == nil {
			t.Fatalf("a message the key never signed verified: %q", s)
		}
		_, _ = Verify(s, &signer.PublicKey)
	})
}

func BenchmarkDecryptOTP(b *testing.B) {
	target := testECDH(b, "target")
	client, _ := testKey(b, "client").PublicKey.Bytes()
	c, _ := Seal(target.PublicKey(), []byte(`{"otp_code":"123456","public_key":"`+hex.EncodeToString(client)+`"}`))
	enc, _ := json.Marshal(c)
	for b.Loop() {
		if _, err := DecryptOTP(target, string(enc)); err != nil {
			b.Fatal(err)
		}
	}
}
