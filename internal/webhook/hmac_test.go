package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testSecret = "a-secret-of-at-least-24-chars"

func TestValidateSecret(t *testing.T) {
	t.Parallel()
	for s, ok := range map[string]bool{
		strings.Repeat("x", 23):                        false,
		strings.Repeat("x", 24):                        true,
		strings.Repeat("x", 255):                       true,
		strings.Repeat("x", 256):                       false,
		strings.Repeat("é", 24):                        true, // characters, not bytes (48 bytes)
		strings.Repeat("é", 23) + "x":                  true,
		strings.Repeat("é", 200):                       true, // 400 bytes, 200 characters
		strings.Repeat("é", 256):                       false,
		"":                                             false,
		strings.Repeat("x", 23) + "\n":                 false,
		strings.Repeat("x", 30) + "\x00":               false,
		string([]byte{0xff}) + strings.Repeat("x", 30): false,
		"correct horse battery staple!":                true, // spaces allowed
	} {
		if err := ValidateSecret(s); (err == nil) != ok {
			t.Errorf("ValidateSecret(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

func TestHMACSignVerify(t *testing.T) {
	t.Parallel()
	secret := []byte(testSecret)
	body := []byte(`{"type":"transaction.status_changed","data":{"status":"CONFIRMED"}}`)
	sig := SignHMAC(secret, body, testTime)

	// The documented construction: t=<unix s>,v1=hex(HMAC-SHA256(secret, "<t>.<body>")).
	m := hmac.New(sha256.New, secret)
	ts := strconv.FormatInt(testTime.Unix(), 10)
	m.Write([]byte(ts + "." + string(body)))
	if want := "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil)); sig != want {
		t.Fatalf("SignHMAC = %q, want %q", sig, want)
	}

	at, err := VerifyHMAC(sig, body, [][]byte{secret}, 5*time.Minute, testTime.Add(time.Minute))
	if err != nil || !at.Equal(testTime.Truncate(time.Second)) {
		t.Fatalf("VerifyHMAC = %v, %v", at, err)
	}
	// Rotation: the receiver tries the old and the new secret; the sender
	// may list signatures under both.
	newSecret := []byte(testSecret + "-rotated")
	if _, err := VerifyHMAC(sig, body, [][]byte{newSecret, secret}, time.Minute, testTime); err != nil {
		t.Fatalf("old secret among several: %v", err)
	}
	both := sig + "," + strings.Split(SignHMAC(newSecret, body, testTime), ",")[1]
	if _, err := VerifyHMAC(both, body, [][]byte{newSecret}, time.Minute, testTime); err != nil {
		t.Fatalf("two v1 entries: %v", err)
	}
	if _, err := VerifyHMAC(sig+",v0=whatever", body, [][]byte{secret}, time.Minute, testTime); err != nil {
		t.Fatalf("an unknown scheme must be ignored: %v", err)
	}

	for name, c := range map[string]struct {
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		"tampered body":   {sig, []byte(`{"type":"transaction.status_changed","data":{"status":"FAILED"}}`), testTime, ErrSignatureMismatch},
		"wrong secret":    {SignHMAC(newSecret, body, testTime), body, testTime, ErrSignatureMismatch},
		"moved timestamp": {strings.Replace(sig, "t="+ts, "t="+strconv.FormatInt(testTime.Unix()+1, 10), 1), body, testTime, ErrSignatureMismatch},
		"stale":           {sig, body, testTime.Add(5*time.Minute + time.Second), ErrStaleTimestamp},
		"future":          {sig, body, testTime.Add(-5*time.Minute - time.Second), ErrStaleTimestamp},
		"empty":           {"", body, testTime, ErrMalformedSignature},
		"no v1":           {"t=" + ts, body, testTime, ErrMalformedSignature},
		"no t":            {sig[strings.Index(sig, ",")+1:], body, testTime, ErrMalformedSignature},
		"two t":           {"t=" + ts + "," + sig, body, testTime, ErrMalformedSignature},
		"short v1":        {"t=" + ts + ",v1=abcd", body, testTime, ErrMalformedSignature},
		"not hex":         {"t=" + ts + ",v1=" + strings.Repeat("z", 64), body, testTime, ErrMalformedSignature},
		"non-numeric t":   {strings.Replace(sig, "t="+ts, "t=1e9", 1), body, testTime, ErrMalformedSignature},
		"no equals":       {sig + ",junk", body, testTime, ErrMalformedSignature},
	} {
		if _, err := VerifyHMAC(c.header, c.body, [][]byte{secret}, 5*time.Minute, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
}

func TestHMACHeaders(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	h, err := HMACHeaders([]byte(testSecret), Meta{EventID: "evt-1", EventType: "position.status_changed"}, body, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if h.Get(HeaderHMACEventID) != "evt-1" || h.Get(HeaderHMACEventType) != "position.status_changed" ||
		h.Get("Content-Type") != "application/json" || h.Get(HeaderHMACSignature) != SignHMAC([]byte(testSecret), body, testTime) {
		t.Fatalf("headers %v", h)
	}
	if _, err := HMACHeaders([]byte("short"), Meta{EventID: "e"}, body, testTime); err == nil {
		t.Fatal("a short secret was used")
	}
	if _, err := HMACHeaders([]byte(testSecret), Meta{EventID: ""}, body, testTime); err == nil {
		t.Fatal("no event id accepted")
	}
}
