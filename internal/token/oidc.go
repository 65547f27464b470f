package token

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// IDClaims are the claims of an OIDC ID token the coordinator issues itself
// (OAUTH2_AUTHENTICATE), to be presented later to OAUTH_LOGIN.
type IDClaims struct {
	Issuer    string
	Subject   string
	Audience  string
	IssuedAt  time.Time
	ExpiresAt time.Time
	// Nonce is hex(sha256(client public key hex)), binding the token to the
	// key that will log in with it.
	Nonce string
	// Extra claims, for example "email" or "encrypted_bearer_token". They may
	// not override the registered claims above.
	Extra map[string]any
}

var registeredIDClaims = []string{"iss", "sub", "aud", "exp", "iat", "nonce"}

// IssueIDToken signs a standard ES256 JWT with a "kid" header equal to
// KeyID(&key.PublicKey), so relying parties find the key in the JWKS.
func IssueIDToken(key *ecdsa.PrivateKey, c IDClaims) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if c.Issuer == "" || c.Subject == "" || c.Audience == "" || c.ExpiresAt.IsZero() || c.IssuedAt.IsZero() {
		return "", fmt.Errorf("issuing ID token: %w: iss, sub, aud, iat and exp are all required", ErrMissingClaim)
	}
	claims := jwt.MapClaims{}
	for k, v := range c.Extra {
		claims[k] = v
	}
	for _, k := range registeredIDClaims {
		if _, ok := claims[k]; ok {
			return "", fmt.Errorf("issuing ID token: extra claim %q would override a registered claim", k)
		}
	}
	claims["iss"] = c.Issuer
	claims["sub"] = c.Subject
	claims["aud"] = c.Audience
	claims["iat"] = c.IssuedAt.Unix()
	claims["exp"] = c.ExpiresAt.Unix()
	if c.Nonce != "" {
		claims["nonce"] = c.Nonce
	}
	kid, err := KeyID(&key.PublicKey)
	if err != nil {
		return "", err
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["kid"] = kid
	return t.SignedString(key)
}

// NonceForPublicKey returns hex(sha256(publicKeyHex)), the nonce an OIDC token
// must carry to log in the client key publicKeyHex (the hash is over the hex
// string as the client sent it, not over the key bytes).
func NonceForPublicKey(publicKeyHex string) string {
	h := sha256.Sum256([]byte(publicKeyHex))
	return hex.EncodeToString(h[:])
}

// JWK is one P-256 public key as a JSON Web Key (RFC 7517, 7518).
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

// JWKS is the document served at /.well-known/jwks.json.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// NewJWKS lists the given public keys, newest first by convention, each with
// its RFC 7638 thumbprint as kid.
func NewJWKS(pubs ...*ecdsa.PublicKey) (JWKS, error) {
	set := JWKS{Keys: make([]JWK, 0, len(pubs))}
	for _, pub := range pubs {
		k, err := NewJWK(pub)
		if err != nil {
			return JWKS{}, err
		}
		set.Keys = append(set.Keys, k)
	}
	return set, nil
}

// NewJWK describes a P-256 public key as a signing JWK for ES256.
func NewJWK(pub *ecdsa.PublicKey) (JWK, error) {
	x, y, err := coordinates(pub)
	if err != nil {
		return JWK{}, err
	}
	kid, err := KeyID(pub)
	if err != nil {
		return JWK{}, err
	}
	return JWK{Kty: "EC", Crv: "P-256", X: x, Y: y, Kid: kid, Alg: "ES256", Use: "sig"}, nil
}

// KeyID is the RFC 7638 JWK thumbprint of a P-256 key: base64url(SHA-256) of
// the canonical JSON {"crv","kty","x","y"}. It is stable for a key and
// changes when the key is rotated.
func KeyID(pub *ecdsa.PublicKey) (string, error) {
	x, y, err := coordinates(pub)
	if err != nil {
		return "", err
	}
	// Members in lexicographic order, no whitespace, as RFC 7638 §3.3 requires;
	// x and y are base64url and need no JSON escaping.
	canonical, _ := json.Marshal(struct {
		Crv string `json:"crv"`
		Kty string `json:"kty"`
		X   string `json:"x"`
		Y   string `json:"y"`
	}{"P-256", "EC", x, y})
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func coordinates(pub *ecdsa.PublicKey) (x, y string, err error) {
	if pub == nil || pub.Curve != elliptic.P256() {
		return "", "", errors.New("token: JWKs are only made for P-256 keys")
	}
	raw, err := pub.Bytes()
	if err != nil {
		return "", "", fmt.Errorf("token: invalid public key: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw[1:33]), base64.RawURLEncoding.EncodeToString(raw[33:]), nil
}
