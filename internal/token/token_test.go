package token

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/clientsig"
)

// testKey derives a fixed P-256 key from a label, so vectors are reproducible.
func testKey(t testing.TB, label string) *ecdsa.PrivateKey {
	t.Helper()
	d := sha256.Sum256([]byte(label))
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func sampleVerification(t testing.TB) VerificationClaims {
	pub, err := stamp.P256PublicKeyHex(&testKey(t, "client").PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return VerificationClaims{
		ID: "0b4d1f8e-3c47-4a8e-9a52-5f0c2f6f8d11", ExpiresAt: t0.Add(time.Hour), VerificationType: "OTP_TYPE_EMAIL",
		Contact: "user@example.com", OrganizationID: "org-1", PublicKey: pub,
	}
}

// atob decodes like the browser's atob does: standard alphabet only.
func atob(t testing.TB, seg string) []byte {
	t.Helper()
	if strings.ContainsAny(seg, "-_") {
		t.Fatalf("segment %q has base64url-only characters; atob would throw", seg)
	}
	b, err := base64.RawStdEncoding.DecodeString(seg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func segments(t testing.TB, tok string) []string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	return parts
}

func TestVerificationTokenWireFormat(t *testing.T) {
	key := testKey(t, "token")
	c := sampleVerification(t)
	tok, err := IssueVerificationToken(key, c)
	if err != nil {
		t.Fatal(err)
	}
	parts := segments(t, tok)
	if got := string(atob(t, parts[0])); got != `{"typ":"JWT","alg":"ES256"}` {
		t.Errorf("header = %s", got)
	}
	want := `{"exp":"` + strconv.FormatInt(t0.Add(time.Hour).UnixMilli(), 10) + `","id":"0b4d1f8e-3c47-4a8e-9a52-5f0c2f6f8d11","organization_id":"org-1",` +
		`"verification_type":"OTP_TYPE_EMAIL","contact":"user@example.com","public_key":"` + c.PublicKey + `"}`
	if got := string(atob(t, parts[1])); got != want {
		t.Errorf("payload =\n%s\nwant\n%s", got, want)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	if len(sig) != 64 {
		t.Errorf("signature is %d bytes, want 64", len(sig))
	}
}

func TestVerificationTokenRoundTrip(t *testing.T) {
	key := testKey(t, "token")
	for _, tc := range []struct {
		name   string
		mutate func(*VerificationClaims)
	}{
		{"bound key", func(*VerificationClaims) {}},
		{"legacy without key", func(c *VerificationClaims) { c.PublicKey = "" }},
		{"contact with atob-hostile bytes", func(c *VerificationClaims) { c.Contact = "a~b?c>d<e&f\u00e9\U0001F600@example.com" }},
		{"sms", func(c *VerificationClaims) { c.VerificationType, c.Contact = "OTP_TYPE_SMS", "+14155550123" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sampleVerification(t)
			tc.mutate(&c)
			tok, err := IssueVerificationToken(key, c)
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(atob(t, segments(t, tok)[1]), &raw); err != nil {
				t.Fatal(err)
			}
			if _, has := raw["public_key"]; has != (c.PublicKey != "") {
				t.Errorf("public_key claim present = %v, want %v", has, c.PublicKey != "")
			}
			got, err := VerifyVerificationToken(tok, &key.PublicKey, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !got.ExpiresAt.Equal(c.ExpiresAt) {
				t.Errorf("exp = %v, want %v", got.ExpiresAt, c.ExpiresAt)
			}
			got.ExpiresAt = c.ExpiresAt
			if got != c {
				t.Errorf("claims = %+v, want %+v", got, c)
			}
		})
	}
}

// forge builds a token from raw header and payload JSON, signed with the
// ES256 single hash by key (or with the given signature bytes).
func forge(t *testing.T, key *ecdsa.PrivateKey, header, payload string, doubleHash bool) string {
	t.Helper()
	input := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString([]byte(payload))
	digest := sha256Sum([]byte(input))
	if doubleHash {
		digest = sha256Sum(digest)
	}
	sig, err := signRaw(key, digest)
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestVerifyVerificationTokenRejects(t *testing.T) {
	key := testKey(t, "token")
	good, err := IssueVerificationToken(key, sampleVerification(t))
	if err != nil {
		t.Fatal(err)
	}
	parts := segments(t, good)
	const hdr = `{"typ":"JWT","alg":"ES256"}`
	okPayload := `{"exp":"1795352400000","id":"i","organization_id":"o","verification_type":"OTP_TYPE_EMAIL","contact":"c"}`
	for _, tc := range []struct {
		name string
		tok  string
		pub  *ecdsa.PublicKey
		now  time.Time
		want error
	}{
		{"other key", good, &testKey(t, "other").PublicKey, t0, ErrSignature},
		{"expired", good, &key.PublicKey, t0.Add(time.Hour), ErrExpired},
		{"long expired", good, &key.PublicKey, t0.Add(48 * time.Hour), ErrExpired},
		{"tampered payload", parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(okPayload)) + "." + parts[2], &key.PublicKey, t0, ErrSignature},
		{"alg none", base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT","alg":"none"}`)) + "." + parts[1] + ".", &key.PublicKey, t0, ErrAlgorithm},
		{"alg HS256", forge(t, key, `{"typ":"JWT","alg":"HS256"}`, okPayload, false), &key.PublicKey, t0, ErrAlgorithm},
		{"no typ", forge(t, key, `{"alg":"ES256"}`, okPayload, false), &key.PublicKey, t0, ErrAlgorithm},
		{"two parts", parts[0] + "." + parts[1], &key.PublicKey, t0, ErrMalformed},
		{"bad base64 header", "!!." + parts[1] + "." + parts[2], &key.PublicKey, t0, ErrMalformed},
		{"short signature", parts[0] + "." + parts[1] + "." + parts[2][:40], &key.PublicKey, t0, ErrSignature},
		{"double-hashed signature", forge(t, key, hdr, okPayload, true), &key.PublicKey, t0, ErrSignature},
		{"exp as number", forge(t, key, hdr, `{"exp":1795352400000,"id":"i","organization_id":"o","verification_type":"t","contact":"c"}`, false), &key.PublicKey, t0, ErrMalformed},
		{"exp not digits", forge(t, key, hdr, `{"exp":"soon","id":"i","organization_id":"o","verification_type":"t","contact":"c"}`, false), &key.PublicKey, t0, ErrMalformed},
		{"missing contact", forge(t, key, hdr, `{"exp":"1795352400000","id":"i","organization_id":"o","verification_type":"t"}`, false), &key.PublicKey, t0, ErrMissingClaim},
		{"empty id", forge(t, key, hdr, `{"exp":"1795352400000","id":"","organization_id":"o","verification_type":"t","contact":"c"}`, false), &key.PublicKey, t0, ErrMissingClaim},
		{"payload not object", forge(t, key, hdr, `[1,2]`, false), &key.PublicKey, t0, ErrMalformed},
		{"oversized", strings.Repeat("a", maxTokenLength+1), &key.PublicKey, t0, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := VerifyVerificationToken(tc.tok, tc.pub, tc.now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := VerifyVerificationToken(forge(t, key, hdr, okPayload, false), &key.PublicKey, t0); err != nil {
		t.Fatalf("control token built by forge must verify: %v", err)
	}
}

func TestIssueRefusesBadInput(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := IssueVerificationToken(p384, sampleVerification(t)); err == nil {
		t.Error("P-384 key accepted for ES256")
	}
	if _, err := IssueVerificationToken(nil, sampleVerification(t)); err == nil {
		t.Error("nil key accepted")
	}
	c := sampleVerification(t)
	c.Contact = ""
	if _, err := IssueVerificationToken(testKey(t, "token"), c); !errors.Is(err, ErrMissingClaim) {
		t.Errorf("empty contact: err = %v", err)
	}
	if _, err := IssueSession(testKey(t, "token"), SessionClaims{ExpiresAt: t0}); !errors.Is(err, ErrMissingClaim) {
		t.Errorf("empty session claims: err = %v", err)
	}
}

func sampleSession(t testing.TB) SessionClaims {
	return SessionClaims{
		ExpiresAt: t0.Add(DefaultSessionTTL), PublicKey: sampleVerification(t).PublicKey,
		SessionType: SessionTypeReadWrite, UserID: "user-1", OrganizationID: "org-1",
	}
}

func TestSessionWireFormat(t *testing.T) {
	key := testKey(t, "token")
	c := sampleSession(t)
	tok, err := IssueSession(key, c)
	if err != nil {
		t.Fatal(err)
	}
	parts := segments(t, tok)
	if got := string(atob(t, parts[0])); got != `{"alg":"ES256","typ":"JWT"}` {
		t.Errorf("header = %s", got)
	}
	want := `{"exp":` + strconv.FormatInt(t0.Unix()+900, 10) + `,"public_key":"` + c.PublicKey + `","session_type":"SESSION_TYPE_READ_WRITE","user_id":"user-1","organization_id":"org-1"}`
	if got := string(atob(t, parts[1])); got != want {
		t.Errorf("payload =\n%s\nwant\n%s", got, want)
	}
	// The signature is over the double hash, and not over the single one.
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	input := []byte(parts[0] + "." + parts[1])
	if !verifyRaw(&key.PublicKey, sha256Sum(sha256Sum(input)), sig) {
		t.Error("signature does not verify over SHA-256(SHA-256(input))")
	}
	if verifyRaw(&key.PublicKey, sha256Sum(input), sig) {
		t.Error("signature verifies over the single hash; the SDK expects the double hash")
	}
}

func TestSessionRoundTripAndRejects(t *testing.T) {
	key := testKey(t, "token")
	profiled := sampleSession(t)
	profiled.SessionProfileID, profiled.Scope = "profile-1", `activity.type == "X" && 1 > 0`
	for _, c := range []SessionClaims{sampleSession(t), profiled} {
		tok, err := IssueSession(key, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := VerifySession(tok, &key.PublicKey, t0)
		if err != nil {
			t.Fatal(err)
		}
		if got != c {
			t.Errorf("claims = %+v, want %+v", got, c)
		}
		if _, err := VerifySession(tok, &key.PublicKey, c.ExpiresAt); !errors.Is(err, ErrExpired) {
			t.Errorf("at expiry: err = %v", err)
		}
		if _, err := VerifySession(tok, &testKey(t, "other").PublicKey, t0); !errors.Is(err, ErrSignature) {
			t.Errorf("other key: err = %v", err)
		}
	}
	single := forge(t, key, `{"alg":"ES256","typ":"JWT"}`, `{"exp":1795333500,"public_key":"k","session_type":"s","user_id":"u","organization_id":"o"}`, false)
	if _, err := VerifySession(single, &key.PublicKey, t0); !errors.Is(err, ErrSignature) {
		t.Errorf("single-hash session: err = %v", err)
	}
}

func TestIssuerUsesClock(t *testing.T) {
	now := t0
	iss, err := NewIssuer(testKey(t, "token"), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	vt, err := iss.VerificationToken(sampleVerification(t), DefaultVerificationTTL)
	if err != nil {
		t.Fatal(err)
	}
	st, err := iss.Session(sampleSession(t), DefaultSessionTTL)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := iss.VerifyVerificationToken(vt); err != nil || !c.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("verification token: %+v, %v", c, err)
	}
	if c, err := iss.VerifySession(st); err != nil || !c.ExpiresAt.Equal(t0.Add(900*time.Second)) {
		t.Fatalf("session: %+v, %v", c, err)
	}
	now = t0.Add(time.Hour)
	if _, err := iss.VerifyVerificationToken(vt); !errors.Is(err, ErrExpired) {
		t.Errorf("after an hour: err = %v", err)
	}
	if _, err := iss.VerifySession(st); !errors.Is(err, ErrExpired) {
		t.Errorf("session after an hour: err = %v", err)
	}
}

// sdkVectors are tokens from this package that @turnkey/crypto and
// @turnkey/core accepted, and client signatures the SDK made.
type sdkVectors struct {
	TokenKeyPublic        string            `json:"tokenKeyPublic"`
	ClientPublic          string            `json:"clientPublic"`
	VerificationToken     string            `json:"verificationToken"`
	LegacyToken           string            `json:"legacyToken"`
	Session               string            `json:"session"`
	SDKVerificationClaims map[string]string `json:"sdkVerificationClaims"`
	SDKParsedSession      map[string]any    `json:"sdkParsedSession"`
	LoginSignature        struct {
		api.ClientSignature
		SessionPublicKey string `json:"sessionPublicKey"`
	} `json:"loginSignature"`
	SignupSignature api.ClientSignature `json:"signupSignature"`
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

func TestSDKVectors(t *testing.T) {
	v := loadVectors(t)
	pub, err := ParseP256PublicKey(v.TokenKeyPublic)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(&testKey(t, "sigil token test key").PublicKey) {
		t.Fatal("vector key is not the labelled test key")
	}
	c, err := VerifyVerificationToken(v.VerificationToken, pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	sdk := v.SDKVerificationClaims
	if c.ID != sdk["id"] || c.Contact != sdk["contact"] || c.PublicKey != sdk["public_key"] ||
		c.OrganizationID != sdk["organization_id"] || c.VerificationType != sdk["verification_type"] ||
		c.ExpiresAt.UnixMilli() != 4102444800000 || sdk["exp"] != "4102444800000" {
		t.Errorf("our claims %+v differ from the SDK's %v", c, sdk)
	}
	if c, err := VerifyVerificationToken(v.LegacyToken, pub, t0); err != nil || c.PublicKey != "" {
		t.Errorf("legacy token: %+v, %v", c, err)
	}
	s, err := VerifySession(v.Session, pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	ps := v.SDKParsedSession
	if s.UserID != ps["userId"] || s.OrganizationID != ps["organizationId"] || s.PublicKey != ps["publicKey"] ||
		s.SessionType != ps["sessionType"] || s.Scope != ps["scope"] || float64(s.ExpiresAt.Unix()) != ps["expiry"] {
		t.Errorf("our session %+v differs from parseSession's %v", s, ps)
	}

	// Messages the SDK built are byte-identical to ours, and its signatures verify.
	login := v.LoginSignature
	msg, err := clientsig.LoginMessage(c.ID, login.SessionPublicKey)
	if err != nil || msg != login.Message {
		t.Errorf("LoginMessage =\n%s\nSDK built\n%s", msg, login.Message)
	}
	if err := VerifyLoginSignature(login.ClientSignature, c, login.SessionPublicKey); err != nil {
		t.Errorf("SDK login signature: %v", err)
	}
	var signup struct {
		SignupV2 clientsig.SignupUsage `json:"signupV2"`
	}
	if err := json.Unmarshal([]byte(v.SignupSignature.Message), &signup); err != nil {
		t.Fatal(err)
	}
	msg, err = clientsig.SignupMessage(c.ID, signup.SignupV2)
	if err != nil || msg != v.SignupSignature.Message {
		t.Errorf("SignupMessage =\n%s\nSDK built\n%s", msg, v.SignupSignature.Message)
	}
	if err := VerifySignupSignature(v.SignupSignature, c, signup.SignupV2); err != nil {
		t.Errorf("SDK signup signature: %v", err)
	}
}

func TestClientSignatureRejects(t *testing.T) {
	v := loadVectors(t)
	pub, _ := ParseP256PublicKey(v.TokenKeyPublic)
	claims, err := VerifyVerificationToken(v.VerificationToken, pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	login := v.LoginSignature.ClientSignature
	session := v.LoginSignature.SessionPublicKey
	var signup struct {
		SignupV2 clientsig.SignupUsage `json:"signupV2"`
	}
	_ = json.Unmarshal([]byte(v.SignupSignature.Message), &signup)
	otherToken := claims
	otherToken.ID = "another-token"
	unbound := claims
	unbound.PublicKey = ""
	strangerKey, _ := stamp.P256PublicKeyHex(&testKey(t, "stranger").PublicKey)
	strangerToken := claims
	strangerToken.PublicKey = strangerKey
	// A stranger signs a login for this token with its own key.
	stranger, err := clientsig.Sign(testKey(t, "stranger"), login.Message)
	if err != nil {
		t.Fatal(err)
	}
	withScheme := func(s string) api.ClientSignature { c := login; c.Scheme = s; return c }
	withSig := func(s string) api.ClientSignature { c := login; c.Signature = s; return c }
	withMsg := func(m string) api.ClientSignature { c := login; c.Message = m; return c }
	otherEmail := signup.SignupV2
	otherEmail.Email = "someone@else.com"
	moreKeys := signup.SignupV2
	moreKeys.APIKeys = json.RawMessage(`[]`)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"other session key", VerifyLoginSignature(login, claims, strangerKey)},
		{"other token id", VerifyLoginSignature(login, otherToken, session)},
		{"token binds no key", VerifyLoginSignature(login, unbound, session)},
		{"signed by a key the token does not bind", VerifyLoginSignature(stranger, claims, session)},
		{"stranger's own key bound elsewhere", VerifyLoginSignature(login, strangerToken, session)},
		{"DER scheme", VerifyLoginSignature(withScheme("SIGNATURE_SCHEME_TK_API_P256"), claims, session)},
		{"signature not hex", VerifyLoginSignature(withSig("zz"), claims, session)},
		{"signature flipped", VerifyLoginSignature(withSig(flipLastHex(login.Signature)), claims, session)},
		{"message changed", VerifyLoginSignature(withMsg(strings.Replace(login.Message, "02ab", "02ac", 1)), claims, session)},
		{"login signature used for signup", VerifySignupSignature(login, claims, signup.SignupV2)},
		{"signup signature used for login", VerifyLoginSignature(v.SignupSignature, claims, session)},
		{"signup for another email", VerifySignupSignature(v.SignupSignature, claims, otherEmail)},
		{"signup with other api keys", VerifySignupSignature(v.SignupSignature, claims, moreKeys)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, ErrClientSignature) {
				t.Fatalf("err = %v, want ErrClientSignature", tc.err)
			}
		})
	}
}

func TestClientSignatureRoundTrip(t *testing.T) {
	client := testKey(t, "client")
	claims := sampleVerification(t)
	msg, err := clientsig.LoginMessage(claims.ID, claims.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clientsig.Sign(client, msg)
	if err != nil {
		t.Fatal(err)
	}
	// Session keys may arrive in upper case or uncompressed.
	raw, _ := client.PublicKey.Bytes()
	for _, session := range []string{claims.PublicKey, strings.ToUpper(claims.PublicKey), hex.EncodeToString(raw)} {
		if err := VerifyLoginSignature(cs, claims, session); err != nil {
			t.Errorf("session key %s: %v", session, err)
		}
	}
	usage := clientsig.SignupUsage{APIKeys: json.RawMessage(`[{"apiKeyName":"k","publicKey":"02aa"}]`), Email: "a<b>&c@example.com"}
	msg, err = clientsig.SignupMessage(claims.ID, usage)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, `"email":"a<b>&c@example.com"`) {
		t.Errorf("HTML characters escaped, JSON.stringify would not: %s", msg)
	}
	cs, err = clientsig.Sign(client, msg)
	if err != nil {
		t.Fatal(err)
	}
	// Absent lists equal empty ones; key order inside objects does not matter.
	want := clientsig.SignupUsage{APIKeys: json.RawMessage(`[{"publicKey":"02aa","apiKeyName":"k"}]`), Authenticators: json.RawMessage(`[]`), Email: usage.Email}
	if err := VerifySignupSignature(cs, claims, want); err != nil {
		t.Error(err)
	}
}

// flipLastHex changes the last hex digit of s.
func flipLastHex(s string) string {
	last := s[len(s)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return s[:len(s)-1] + string(repl)
}
