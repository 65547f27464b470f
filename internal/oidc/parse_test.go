package oidc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// testKeys are generated once: RSA key generation is slow.
var testKeys = struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}{mustRSA(), mustEC()}

func mustRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func rsaJWK(kid, extra string) string {
	return fmt.Sprintf(`{"kty":"RSA","kid":%q,"n":%q,"e":"AQAB"%s}`, kid, b64(testKeys.rsa.N.Bytes()), extra)
}

func ecJWK(kid, extra string) string {
	point, err := testKeys.ec.PublicKey.Bytes()
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`{"kty":"EC","kid":%q,"crv":"P-256","x":%q,"y":%q%s}`, kid, b64(point[1:33]), b64(point[33:]), extra)
}

func TestParseJWKS(t *testing.T) {
	t.Parallel()
	point, _ := testKeys.ec.PublicKey.Bytes()
	offCurve := append([]byte{}, point...)
	offCurve[64] ^= 1
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	tests := []struct {
		name    string
		jwks    string
		usable  int    // keys kept; 0 means an error is expected
		wantErr string // part of the error
	}{
		{"RSA and EC", `{"keys":[` + rsaJWK("r", "") + `,` + ecJWK("e", "") + `]}`, 2, ""},
		{"explicit alg and use", `{"keys":[` + rsaJWK("r", `,"alg":"RS256","use":"sig"`) + `,` + ecJWK("e", `,"alg":"ES256"`) + `]}`, 2, ""},
		{"padded base64 tolerated", `{"keys":[{"kty":"RSA","kid":"r","n":"` + b64(testKeys.rsa.N.Bytes()) + `==","e":"AQAB"}]}`, 1, ""},
		{"encryption key skipped", `{"keys":[` + rsaJWK("enc", `,"use":"enc"`) + `,` + ecJWK("e", "") + `]}`, 1, ""},
		{"other algorithms skipped", `{"keys":[` + rsaJWK("ps", `,"alg":"PS256"`) + `,` + ecJWK("es384", `,"alg":"ES384"`) + `,` + rsaJWK("r", "") + `]}`, 1, ""},
		{"OKP skipped", `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},` + rsaJWK("r", "") + `]}`, 1, ""},
		{"no keys", `{"keys":[]}`, 0, "no usable"},
		{"not JSON", `<html>`, 0, "not a JSON object"},
		{"keys not an array", `{"keys":{}}`, 0, "not a JSON object"},
		{"RSA key too small", `{"keys":[{"kty":"RSA","kid":"s","n":"` + b64(small.N.Bytes()) + `","e":"AQAB"}]}`, 0, "1024 bits"},
		{"RSA even exponent", `{"keys":[{"kty":"RSA","kid":"r","n":"` + b64(testKeys.rsa.N.Bytes()) + `","e":"AQAA"}]}`, 0, "exponent"},
		{"RSA exponent too long", `{"keys":[{"kty":"RSA","kid":"r","n":"` + b64(testKeys.rsa.N.Bytes()) + `","e":"AQAAAAAB"}]}`, 0, "exponent"},
		{"RSA modulus not base64", `{"keys":[{"kty":"RSA","kid":"r","n":"!!!","e":"AQAB"}]}`, 0, "modulus"},
		{"EC point off the curve", `{"keys":[{"kty":"EC","kid":"e","crv":"P-256","x":"` + b64(offCurve[1:33]) + `","y":"` + b64(offCurve[33:]) + `"}]}`, 0, "key 0"},
		{"EC short coordinate", `{"keys":[{"kty":"EC","kid":"e","crv":"P-256","x":"` + b64(point[2:33]) + `","y":"` + b64(point[33:]) + `"}]}`, 0, "32"},
		{"EC other curve", `{"keys":[{"kty":"EC","kid":"e","crv":"P-384","x":"AA","y":"AA"}]}`, 0, "P-384"},
		{"member of wrong type", `{"keys":[{"kty":"RSA","n":5}]}`, 0, "key 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := parseJWKS([]byte(tt.jwks))
			if tt.usable == 0 {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(set.all) != tt.usable {
				t.Errorf("%d usable keys, want %d", len(set.all), tt.usable)
			}
		})
	}
}

func TestKeySetFind(t *testing.T) {
	t.Parallel()
	set, err := parseJWKS([]byte(`{"keys":[` + rsaJWK("a", "") + `,` + rsaJWK("b", "") + `,` + ecJWK("a", "") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kid, alg string
		found    bool
	}{
		{"a", algRS256, true},
		{"a", algES256, true}, // same kid, different key type
		{"b", algRS256, true},
		{"b", algES256, false},
		{"c", algRS256, false},
		{"", algES256, true},  // the only EC key
		{"", algRS256, false}, // two RSA keys: never guess
	}
	for _, tt := range tests {
		key, ok := set.find(tt.kid, tt.alg)
		if ok != tt.found || (ok && key.alg != tt.alg) {
			t.Errorf("find(%q, %s) = %v, %v; want found=%v", tt.kid, tt.alg, key.alg, ok, tt.found)
		}
	}
}

func TestParseDiscovery(t *testing.T) {
	t.Parallel()
	const iss = "https://issuer.example"
	tests := []struct {
		name, doc, want, wantErr string
	}{
		{"ok", `{"issuer":"https://issuer.example","jwks_uri":"https://keys.example/jwks"}`, "https://keys.example/jwks", ""},
		{"loopback http", `{"issuer":"https://issuer.example","jwks_uri":"http://127.0.0.1:8080/jwks"}`, "http://127.0.0.1:8080/jwks", ""},
		{"other issuer", `{"issuer":"https://evil.example","jwks_uri":"https://keys.example/jwks"}`, "", "names issuer"},
		{"trailing slash differs", `{"issuer":"https://issuer.example/","jwks_uri":"https://keys.example/jwks"}`, "", "names issuer"},
		{"no jwks_uri", `{"issuer":"https://issuer.example"}`, "", "no jwks_uri"},
		{"jwks over http", `{"issuer":"https://issuer.example","jwks_uri":"http://keys.example/jwks"}`, "", "https"},
		{"jwks_uri relative", `{"issuer":"https://issuer.example","jwks_uri":"/jwks"}`, "", "no host"},
		{"not JSON", `issuer=x`, "", "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDiscovery([]byte(tt.doc), iss)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCacheMaxAge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header string
		age    time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"public, max-age=19766, must-revalidate, no-transform", 19766 * time.Second, true},
		{"Max-Age=60", time.Minute, true},
		{`max-age="60"`, time.Minute, true},
		{"no-store", 0, true},
		{"max-age=60, no-cache", 0, true},
		{"max-age=-5", 0, false},
		{"max-age=abc", 0, false},
		{"max-age=99999999999999999", 365 * 24 * time.Hour, true},
		{"private", 0, false},
	}
	for _, tt := range tests {
		age, ok := cacheMaxAge(tt.header)
		if age != tt.age || ok != tt.ok {
			t.Errorf("cacheMaxAge(%q) = %s, %v; want %s, %v", tt.header, age, ok, tt.age, tt.ok)
		}
	}
}

func TestCacheLifetime(t *testing.T) {
	t.Parallel()
	timing := cacheTiming{refreshInterval: 30 * time.Second, defaultAge: time.Hour, maxAge: 24 * time.Hour}
	tests := []struct {
		in   fetched
		want time.Duration
	}{
		{fetched{}, time.Hour},
		{fetched{hasMaxAge: true, maxAge: 0}, 30 * time.Second},
		{fetched{hasMaxAge: true, maxAge: 5 * time.Hour}, 5 * time.Hour},
		{fetched{hasMaxAge: true, maxAge: 100 * time.Hour}, 24 * time.Hour},
	}
	for _, tt := range tests {
		if got := timing.lifetime(tt.in); got != tt.want {
			t.Errorf("lifetime(%+v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestValidCodeVerifier(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		strings.Repeat("a", 42):          false,
		strings.Repeat("a", 43):          true,
		strings.Repeat("Z", 128):         true,
		strings.Repeat("Z", 129):         false,
		strings.Repeat("a", 40) + "-._~": true,
		strings.Repeat("a", 42) + "+":    false,
		strings.Repeat("a", 42) + "=":    false,
		strings.Repeat("a", 42) + "é":    false,
		"":                               false,
	}
	for v, want := range tests {
		if got := validCodeVerifier(v); got != want {
			t.Errorf("validCodeVerifier(%q) = %v", v, got)
		}
	}
}

// offlineVerifier trusts issuer.example with keys already cached and an
// HTTP client that counts and refuses every request, so that fuzzing never
// touches the network.
func offlineVerifier(tb testing.TB) (*Verifier, *atomic.Int64) {
	tb.Helper()
	var calls atomic.Int64
	client := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		calls.Add(1)
		return nil, errors.New("offline")
	})}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	v, err := NewVerifier(Config{
		Issuers:    []Issuer{{URL: "https://issuer.example", Audiences: []string{"client"}}},
		HTTPClient: client,
		Clock:      func() time.Time { return now },
	})
	if err != nil {
		tb.Fatal(err)
	}
	set, err := parseJWKS([]byte(`{"keys":[` + rsaJWK("r", "") + `,` + ecJWK("e", "") + `]}`))
	if err != nil {
		tb.Fatal(err)
	}
	keys := v.byIss["https://issuer.example"].keys
	keys.cached.Store(&cachedKeys{set: set, expires: now.Add(time.Hour)})
	keys.lastAttempt = now // unknown kids stay unknown: the refresh is rate-limited
	return v, &calls
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func signTest(tb testing.TB, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	tb.Helper()
	token := jwt.NewWithClaims(method, claims)
	token.Header["kid"] = kid
	s, err := token.SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func FuzzVerify(f *testing.F) {
	v, calls := offlineVerifier(f)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	claims := jwt.MapClaims{"iss": "https://issuer.example", "sub": "s", "aud": "client", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "nonce": "n"}
	good := []string{
		signTest(f, jwt.SigningMethodRS256, "r", testKeys.rsa, claims),
		signTest(f, jwt.SigningMethodES256, "e", testKeys.ec, claims),
	}
	for _, s := range good {
		if _, err := v.Verify(context.Background(), s, VerifyOptions{Nonce: "n"}); err != nil {
			f.Fatalf("seed token does not verify: %v", err)
		}
		f.Add(s)
	}
	f.Add(signTest(f, jwt.SigningMethodNone, "r", jwt.UnsafeAllowNoneSignatureType, claims))
	f.Add(signTest(f, jwt.SigningMethodHS256, "r", []byte("secret"), claims))
	f.Add("e30.e30.")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		got, err := v.Verify(context.Background(), token, VerifyOptions{})
		if err == nil {
			if got.Issuer != "https://issuer.example" || got.Subject == "" || len(got.Audience) == 0 {
				t.Fatalf("accepted claims without issuer, subject or audience: %+v", got)
			}
		} else if got != nil {
			t.Fatal("claims returned with an error")
		}
		if calls.Load() != 0 {
			t.Fatal("verification reached the network")
		}
	})
}

func FuzzParseJWKS(f *testing.F) {
	f.Add([]byte(`{"keys":[` + rsaJWK("r", "") + `,` + ecJWK("e", "") + `]}`))
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := parseJWKS(data)
		if err != nil {
			return
		}
		for _, k := range set.all {
			switch pub := k.key.(type) {
			case *rsa.PublicKey:
				if k.alg != algRS256 || pub.N.BitLen() < minRSABits || pub.E < 3 {
					t.Fatalf("unsafe RSA key accepted: %d bits, e=%d", pub.N.BitLen(), pub.E)
				}
			case *ecdsa.PublicKey:
				if k.alg != algES256 || pub.Curve != elliptic.P256() {
					t.Fatalf("unexpected EC key accepted")
				}
			default:
				t.Fatalf("key of type %T", pub)
			}
		}
	})
}

func FuzzCacheMaxAge(f *testing.F) {
	f.Add("public, max-age=300")
	f.Add("no-store")
	f.Fuzz(func(t *testing.T, header string) {
		if age, _ := cacheMaxAge(header); age < 0 || age > 365*24*time.Hour {
			t.Fatalf("cacheMaxAge(%q) = %s", header, age)
		}
	})
}

func FuzzUserInfoSubject(f *testing.F) {
	f.Add([]byte(`{"data":{"id":"2244994945"}}`), "data.id")
	f.Add([]byte(`{"id":80351110224678912}`), "id")
	f.Add([]byte(`{"id":-1}`), "id")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		obj, err := decodeObject(body)
		if err != nil {
			return
		}
		subject, err := lookupSubject(obj, path)
		if err != nil {
			return
		}
		if subject == "" {
			t.Fatal("empty subject accepted")
		}
		// A numeric subject is a non-negative integer, digit for digit.
		var value any = obj
		for field := range strings.SplitSeq(path, ".") {
			value = value.(map[string]any)[field]
		}
		if n, isNumber := value.(json.Number); isNumber {
			if i, ok := new(big.Int).SetString(subject, 10); !ok || i.Sign() < 0 || subject != n.String() {
				t.Fatalf("numeric subject %q from %s", subject, n)
			}
		}
	})
}
