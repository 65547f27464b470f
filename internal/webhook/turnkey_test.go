package webhook

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

var testTime = time.Date(2026, 5, 6, 7, 8, 9, 123_000_000, time.UTC)

func testSigner(t testing.TB, keyID string, seed byte) *Signer {
	t.Helper()
	s, err := NewSigner(keyID, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSignerHeaders(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "whk_key_1", 1)
	body := []byte(`{"type":"ACTIVITY_UPDATES","id":"a"}`)
	h, err := s.Headers(Meta{EventID: "evt-1", EventType: "ACTIVITY_UPDATES", OrganizationID: "org-1"}, body, testTime)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Content-Type":                  "application/json",
		"X-Turnkey-Organization-Id":     "org-1",
		"X-Turnkey-Event-Type":          "ACTIVITY_UPDATES",
		"X-Turnkey-Timestamp":           strconv.FormatInt(testTime.UnixMilli(), 10),
		"X-Turnkey-Webhook-Version":     "1",
		"X-Turnkey-Event-Id":            "evt-1",
		"X-Turnkey-Signature-Key-Id":    "whk_key_1",
		"X-Turnkey-Signature-Algorithm": "ed25519",
		"X-Turnkey-Signature-Version":   "v1",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if len(h) != len(want)+1 {
		t.Errorf("headers %v: want exactly %d", h, len(want)+1)
	}
	sig, err := hex.DecodeString(h.Get(HeaderSignature))
	if err != nil || len(sig) != 64 || h.Get(HeaderSignature) != strings.ToLower(h.Get(HeaderSignature)) {
		t.Fatalf("signature %q is not 64 bytes of lower-case hex", h.Get(HeaderSignature))
	}
	msg := "v1.ed25519.whk_key_1." + strconv.FormatInt(testTime.UnixMilli(), 10) + ".evt-1." + string(body)
	if !ed25519.Verify(s.VerificationKey().PublicKey, []byte(msg), sig) {
		t.Fatal("signature does not cover v1.ed25519.<kid>.<ts>.<event>.<body>")
	}

	// A retry: the same event id, a fresh timestamp and signature.
	h2, err := s.Headers(Meta{EventID: "evt-1"}, body, testTime.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if h2.Get(HeaderEventID) != "evt-1" || h2.Get(HeaderTimestamp) == h.Get(HeaderTimestamp) || h2.Get(HeaderSignature) == h.Get(HeaderSignature) {
		t.Fatalf("retry headers %v", h2)
	}
	if h2.Get(HeaderOrganizationID) != "" || h2.Get(HeaderEventType) != "" {
		t.Fatal("empty routing metadata must not be sent")
	}
}

func TestSignerRefusesAmbiguousIDs(t *testing.T) {
	t.Parallel()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	for _, kid := range []string{"", "a.b", "a b", "é", strings.Repeat("k", 256)} {
		if _, err := NewSigner(kid, key); err == nil {
			t.Errorf("NewSigner(%q) accepted", kid)
		}
	}
	if _, err := NewSigner("k", key[:10]); err == nil {
		t.Error("short key accepted")
	}
	s := testSigner(t, "k", 2)
	for _, id := range []string{"", "a.b", "a\nb"} {
		if _, err := s.Headers(Meta{EventID: id}, nil, testTime); err == nil {
			t.Errorf("event id %q accepted", id)
		}
	}
	if _, err := s.Headers(Meta{EventID: "e", EventType: "A\r\nX-Evil: 1"}, nil, testTime); err == nil {
		t.Error("header injection in the event type accepted")
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "kid-1", 3)
	other := testSigner(t, "kid-2", 4)
	keys := []VerificationKey{other.VerificationKey(), s.VerificationKey()}
	body := []byte(`{"x":1}`)
	sign := func() http.Header {
		h, err := s.Headers(Meta{EventID: "evt-9", EventType: "BALANCE_CONFIRMED_UPDATES", OrganizationID: "org"}, body, testTime)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	v, err := Verify(sign(), body, keys, 5*time.Minute, testTime.Add(4*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if v.EventID != "evt-9" || v.KeyID != "kid-1" || !v.Timestamp.Equal(testTime) ||
		v.EventType != "BALANCE_CONFIRMED_UPDATES" || v.OrganizationID != "org" {
		t.Fatalf("verified %+v", v)
	}
	cases := []struct {
		name   string
		edit   func(h http.Header) ([]byte, []VerificationKey, time.Time)
		reason error
	}{
		{"tampered body", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return []byte(`{"x":2}`), keys, testTime
		}, ErrInvalidSignature},
		{"re-serialized body", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return []byte(`{ "x": 1 }`), keys, testTime
		}, ErrInvalidSignature},
		{"other event id", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderEventID, "evt-10")
			return body, keys, testTime
		}, ErrInvalidSignature},
		{"other timestamp", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderTimestamp, strconv.FormatInt(testTime.UnixMilli()+1, 10))
			return body, keys, testTime
		}, ErrInvalidSignature},
		{"signed by another key under this kid", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return body, []VerificationKey{{KeyID: "kid-1", PublicKey: other.VerificationKey().PublicKey}}, testTime
		}, ErrInvalidSignature},
		{"bad hex", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderSignature, "zz"+h.Get(HeaderSignature)[2:])
			return body, keys, testTime
		}, ErrInvalidSignature},
		{"short signature", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderSignature, h.Get(HeaderSignature)[:64])
			return body, keys, testTime
		}, ErrInvalidSignature},
		{"stale", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return body, keys, testTime.Add(5*time.Minute + time.Millisecond)
		}, ErrStaleTimestamp},
		{"from the future", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return body, keys, testTime.Add(-5*time.Minute - time.Millisecond)
		}, ErrStaleTimestamp},
		{"timestamp in seconds with a fraction", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderTimestamp, "1746515289.123")
			return body, keys, testTime
		}, ErrInvalidTimestamp},
		{"negative timestamp", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderTimestamp, "-1")
			return body, keys, testTime
		}, ErrInvalidTimestamp},
		{"unknown key", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return body, keys[:1], testTime
		}, ErrMissingKey},
		{"bad verification key", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			return body, []VerificationKey{{KeyID: "kid-1", PublicKey: make([]byte, 31)}}, testTime
		}, ErrInvalidVerificationKey},
		{"version v2", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderSignatureVersion, "v2")
			return body, keys, testTime
		}, ErrUnsupportedSignatureVersion},
		{"algorithm", func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(HeaderSignatureAlgorithm, "ecdsa")
			return body, keys, testTime
		}, ErrUnsupportedSignatureAlgorithm},
	}
	for _, name := range []string{HeaderTimestamp, HeaderEventID, HeaderSignatureKeyID,
		HeaderSignatureAlgorithm, HeaderSignatureVersion, HeaderSignature} {
		cases = append(cases, struct {
			name   string
			edit   func(h http.Header) ([]byte, []VerificationKey, time.Time)
			reason error
		}{"no " + name, func(h http.Header) ([]byte, []VerificationKey, time.Time) {
			h.Set(name, "") // an empty header is a missing one
			return body, keys, testTime
		}, ErrMissingHeader})
	}
	for _, c := range cases {
		h := sign()
		b, ks, now := c.edit(h)
		if _, err := Verify(h, b, ks, 5*time.Minute, now); !errors.Is(err, c.reason) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.reason)
		}
	}
	if _, err := Verify(sign(), body, keys, -time.Second, testTime); !errors.Is(err, ErrInvalidMaxTimestampAge) {
		t.Errorf("negative max age: %v", err)
	}
	// The unsigned routing headers are not part of the signature.
	h := sign()
	h.Set(HeaderOrganizationID, "another-org")
	h.Del(HeaderWebhookVersion)
	if _, err := Verify(h, body, keys, time.Minute, testTime); err != nil {
		t.Fatalf("routing headers changed: %v", err)
	}
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	a, b := testSigner(t, "kid-a", 5), testSigner(t, "kid-b", 6)
	data, err := json.Marshal(JWKS(a.VerificationKey(), b.VerificationKey()))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Keys) != 2 {
		t.Fatalf("%s", data)
	}
	k := raw.Keys[0]
	want := map[string]string{"kid": "kid-a", "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig",
		"turnkey_signature_algorithm": "ed25519", "turnkey_signature_version": "v1"}
	for f, v := range want {
		if k[f] != v {
			t.Errorf("%s = %q, want %q", f, k[f], v)
		}
	}
	if len(k) != len(want)+1 {
		t.Errorf("fields %v", k)
	}
	// x: unpadded base64url of the 32-byte key (43 characters).
	if len(k["x"]) != 43 || strings.ContainsAny(k["x"], "+/=") {
		t.Errorf("x = %q", k["x"])
	}
	keys, err := ParseJWKS(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[1].KeyID != "kid-b" || !keys[1].PublicKey.Equal(b.VerificationKey().PublicKey) {
		t.Fatalf("parsed %+v", keys)
	}
	// A delivery verifies with the keys read back from the JWKS.
	h, _ := b.Headers(Meta{EventID: "e"}, []byte("{}"), testTime)
	if _, err := Verify(h, []byte("{}"), keys, time.Minute, testTime); err != nil {
		t.Fatal(err)
	}
	// Keys of other types or versions are skipped; a broken x is an error.
	mixed := `{"keys":[{"kid":"r","kty":"RSA","n":"AQAB"},{"kid":"v2","kty":"OKP","crv":"Ed25519","x":"` + k["x"] +
		`","turnkey_signature_version":"v2"},{"kid":"ok","kty":"OKP","crv":"Ed25519","x":"` + k["x"] + `="}]}`
	keys, err = ParseJWKS([]byte(mixed))
	if err != nil || len(keys) != 1 || keys[0].KeyID != "ok" {
		t.Fatalf("mixed: %+v %v", keys, err)
	}
	if _, err := ParseJWKS([]byte(`{"keys":[{"kid":"x","kty":"OKP","crv":"Ed25519","x":"AAAA"}]}`)); err == nil {
		t.Fatal("short x accepted")
	}
}
