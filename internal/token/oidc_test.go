package token

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sigil/sigil/stamp"
)

// keyFromJWK rebuilds the public key a relying party would read from the JWKS.
func keyFromJWK(t *testing.T, k JWK) *ecdsa.PublicKey {
	t.Helper()
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil || len(x) != 32 {
		t.Fatalf("x = %q: %v", k.X, err)
	}
	y, err := base64.RawURLEncoding.DecodeString(k.Y)
	if err != nil || len(y) != 32 {
		t.Fatalf("y = %q: %v", k.Y, err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func TestJWKSAndIDToken(t *testing.T) {
	key := testKey(t, "token")
	iss, err := NewIssuer(key, func() time.Time { return t0 })
	if err != nil {
		t.Fatal(err)
	}
	set, err := iss.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 {
		t.Fatalf("%d keys", len(set.Keys))
	}
	k := set.Keys[0]
	if k.Kty != "EC" || k.Crv != "P-256" || k.Alg != "ES256" || k.Use != "sig" || k.Kid != iss.KeyID() {
		t.Errorf("jwk = %+v", k)
	}
	// RFC 7638: the thumbprint is over {"crv","kty","x","y"} in that order.
	sum := sha256.Sum256([]byte(fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}`, k.X, k.Y)))
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); k.Kid != want {
		t.Errorf("kid = %s, want %s", k.Kid, want)
	}
	if other, _ := KeyID(&testKey(t, "other").PublicKey); other == k.Kid {
		t.Error("two keys share a kid")
	}
	doc, _ := json.Marshal(set)
	var generic struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(doc, &generic); err != nil || len(generic.Keys[0]) != 7 {
		t.Errorf("JWKS JSON %s", doc)
	}

	nonce := NonceForPublicKey("02abcdef")
	tok, err := iss.IDToken(IDClaims{Issuer: "https://sigil.example", Subject: "user-1", Audience: "client-1", Nonce: nonce,
		Extra: map[string]any{"email": "user@example.com"}}, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	pub := keyFromJWK(t, k)
	claims := jwt.MapClaims{}
	parsed, err := jwt.ParseWithClaims(tok, claims, func(tk *jwt.Token) (any, error) {
		if tk.Header["kid"] != k.Kid {
			return nil, errors.New("unknown kid")
		}
		return pub, nil
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithTimeFunc(func() time.Time { return t0 }),
		jwt.WithIssuer("https://sigil.example"), jwt.WithAudience("client-1"), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	if err != nil || !parsed.Valid {
		t.Fatalf("relying party rejects our ID token: %v", err)
	}
	if claims["sub"] != "user-1" || claims["nonce"] != nonce || claims["email"] != "user@example.com" ||
		claims["exp"] != float64(t0.Add(10*time.Minute).Unix()) || claims["iat"] != float64(t0.Unix()) {
		t.Errorf("claims = %v", claims)
	}
	if _, err := iss.IDToken(IDClaims{Issuer: "i", Subject: "s", Audience: "a", Extra: map[string]any{"sub": "admin"}}, time.Minute); err == nil {
		t.Error("an extra claim overrode sub")
	}
	if _, err := iss.IDToken(IDClaims{Issuer: "i", Audience: "a"}, time.Minute); !errors.Is(err, ErrMissingClaim) {
		t.Errorf("missing sub: %v", err)
	}
}

func TestNonceForPublicKey(t *testing.T) {
	// sha256("abc") from FIPS 180-2.
	if got := NonceForPublicKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("nonce = %s", got)
	}
}

func TestParseP256PublicKey(t *testing.T) {
	// Both parities of y decompress to the original point.
	for i := range 16 {
		k := testKey(t, fmt.Sprintf("key %d", i))
		c, err := stamp.P256PublicKeyHex(&k.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		if pub, err := ParseP256PublicKey(c); err != nil || !pub.Equal(&k.PublicKey) {
			t.Fatalf("%s: %v", c, err)
		}
	}
	key := testKey(t, "client")
	compressed, _ := stamp.P256PublicKeyHex(&key.PublicKey)
	raw, _ := key.PublicKey.Bytes()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{compressed, true},
		{fmt.Sprintf("%x", raw), true},
		{"02" + "ff" + compressed[4:], false},
		{compressed[:64], false},
		{"zz", false},
		{"", false},
	} {
		pub, err := ParseP256PublicKey(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v", tc.in, err)
		}
		if tc.ok && !pub.Equal(&key.PublicKey) {
			t.Errorf("%q: wrong key", tc.in)
		}
	}
}
