package token

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary tokens to both verifiers: they must not panic
// and must never accept a token the test key did not sign.
func FuzzVerify(f *testing.F) {
	key := testKey(f, "token")
	good, _ := IssueVerificationToken(key, sampleVerification(f))
	session, _ := IssueSession(key, sampleSession(f))
	f.Add(good)
	f.Add(session)
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	other := testKey(f, "other")
	f.Fuzz(func(t *testing.T, tok string) {
		if _, err := VerifyVerificationToken(tok, &other.PublicKey, t0); err == nil {
			t.Fatalf("accepted a token not signed by the key: %q", tok)
		}
		if _, err := VerifySession(tok, &other.PublicKey, t0); err == nil {
			t.Fatalf("accepted a session not signed by the key: %q", tok)
		}
		_, _ = VerifyVerificationToken(tok, &key.PublicKey, t0)
		_, _ = VerifySession(tok, &key.PublicKey, t0)
	})
}

// FuzzEncodeSegment: any string claim survives atob + JSON.parse unchanged.
func FuzzEncodeSegment(f *testing.F) {
	for _, s := range []string{"", "a~b?c", "é😀", ">>>???~~~\x7f", "\u2028", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seg, err := encodeSegment(map[string]string{"v": s})
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(seg, "-_") {
			t.Fatalf("segment for %q contains base64url-only characters: %s", s, seg)
		}
		raw, err := base64.RawStdEncoding.DecodeString(seg)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := string([]rune(s)) // each invalid byte becomes U+FFFD, as encoding/json does
		if back["v"] != want {
			t.Fatalf("round trip %q -> %q", want, back["v"])
		}
	})
}
