package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// The only signature algorithms accepted. Everything else, "none" and the
// HMAC family in particular, is refused before any key is looked up.
const (
	algRS256 = "RS256"
	algES256 = "ES256"
)

// RSA moduli outside this range are refused: below it the key is weak,
// above it verification becomes a denial-of-service lever.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// verificationKey is a public key from a JWKS together with the single
// algorithm it may verify.
type verificationKey struct {
	id  string
	alg string
	key crypto.PublicKey // *rsa.PublicKey or *ecdsa.PublicKey
}

// keySet is an issuer's usable keys, indexed by key id.
type keySet struct {
	byID map[string][]verificationKey
	all  []verificationKey
}

// find returns the key for a token header's kid and alg. A token without a
// kid is accepted only when the set has exactly one key for its algorithm,
// so that no key is ever guessed.
func (s *keySet) find(kid, alg string) (verificationKey, bool) {
	if s == nil {
		return verificationKey{}, false
	}
	if kid != "" {
		for _, k := range s.byID[kid] {
			if k.alg == alg {
				return k, true
			}
		}
		return verificationKey{}, false
	}
	var found verificationKey
	n := 0
	for _, k := range s.all {
		if k.alg == alg {
			found, n = k, n+1
		}
	}
	return found, n == 1
}

// jwk holds the members of RFC 7517/7518 keys that we use.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseJWKS extracts the RS256 and ES256 signing keys of a JWKS document.
// Keys of other types, curves, algorithms or uses are skipped (a provider
// may publish encryption keys next to signing keys); a set with no usable
// key at all is an error.
func parseJWKS(data []byte) (*keySet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("JWKS is not a JSON object with a keys array: %w", err)
	}
	set := &keySet{byID: make(map[string][]verificationKey)}
	var skipped []error
	for i, raw := range doc.Keys {
		key, err := parseJWK(raw)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("key %d: %w", i, err))
			continue
		}
		set.all = append(set.all, key)
		set.byID[key.id] = append(set.byID[key.id], key)
	}
	if len(set.all) == 0 {
		return nil, fmt.Errorf("JWKS has no usable RS256 or ES256 signing key (%d keys): %w", len(doc.Keys), errors.Join(skipped...))
	}
	return set, nil
}

func parseJWK(raw json.RawMessage) (verificationKey, error) {
	var k jwk
	if err := json.Unmarshal(raw, &k); err != nil {
		return verificationKey{}, err
	}
	if k.Use != "" && k.Use != "sig" {
		return verificationKey{}, fmt.Errorf("use %q is not sig", k.Use)
	}
	switch k.Kty {
	case "RSA":
		if k.Alg != "" && k.Alg != algRS256 {
			return verificationKey{}, fmt.Errorf("RSA key with alg %q", k.Alg)
		}
		pub, err := parseRSAKey(k.N, k.E)
		if err != nil {
			return verificationKey{}, err
		}
		return verificationKey{id: k.Kid, alg: algRS256, key: pub}, nil
	case "EC":
		if k.Alg != "" && k.Alg != algES256 {
			return verificationKey{}, fmt.Errorf("EC key with alg %q", k.Alg)
		}
		if k.Crv != "P-256" {
			return verificationKey{}, fmt.Errorf("EC key on curve %q, want P-256", k.Crv)
		}
		pub, err := parseP256Key(k.X, k.Y)
		if err != nil {
			return verificationKey{}, err
		}
		return verificationKey{id: k.Kid, alg: algES256, key: pub}, nil
	default:
		return verificationKey{}, fmt.Errorf("unsupported kty %q", k.Kty)
	}
}

func parseRSAKey(n64, e64 string) (*rsa.PublicKey, error) {
	nBytes, err := decodeB64URL(n64)
	if err != nil {
		return nil, fmt.Errorf("RSA modulus: %w", err)
	}
	eBytes, err := decodeB64URL(e64)
	if err != nil {
		return nil, fmt.Errorf("RSA exponent: %w", err)
	}
	n := new(big.Int).SetBytes(nBytes)
	if bits := n.BitLen(); bits < minRSABits || bits > maxRSABits {
		return nil, fmt.Errorf("RSA modulus of %d bits, want %d to %d", bits, minRSABits, maxRSABits)
	}
	if len(eBytes) == 0 || len(eBytes) > 4 {
		return nil, fmt.Errorf("RSA exponent of %d bytes", len(eBytes))
	}
	e := 0
	for _, b := range eBytes {
		e = e<<8 | int(b)
	}
	if e < 3 || e%2 == 0 {
		return nil, fmt.Errorf("RSA exponent %d is not an odd number above 2", e)
	}
	return &rsa.PublicKey{N: n, E: e}, nil
}

func parseP256Key(x64, y64 string) (*ecdsa.PublicKey, error) {
	x, err := decodeB64URL(x64)
	if err != nil {
		return nil, fmt.Errorf("EC x: %w", err)
	}
	y, err := decodeB64URL(y64)
	if err != nil {
		return nil, fmt.Errorf("EC y: %w", err)
	}
	// RFC 7518 §6.2.1.2: coordinates are the full field size.
	if len(x) != 32 || len(y) != 32 {
		return nil, fmt.Errorf("P-256 coordinates of %d and %d bytes, want 32", len(x), len(y))
	}
	point := make([]byte, 0, 65)
	point = append(append(append(point, 4), x...), y...)
	// Rejects points that are not on the curve.
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
}

// decodeB64URL decodes unpadded base64url, tolerating the padding some
// providers add anyway.
func decodeB64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
