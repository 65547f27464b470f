package stamp

import (
	"fmt"
	"strings"
	"testing"
)

// A parsed key is remembered; an invalid one never is; the cache forgets everything rather than grow past its bound.
func TestParsedKeysAreCachedWithinABound(t *testing.T) {
	saved := parsedKeys.keys
	defer func() { parsedKeys.keys = saved }()
	parsedKeys.keys = nil

	k, err := GenerateAPIKey(CurveP256)
	if err != nil {
		t.Fatal(err)
	}
	first, err := parsePublicKey(CurveP256, k.PublicKeyHex())
	if err != nil {
		t.Fatal(err)
	}
	again, err := parsePublicKey(CurveP256, k.PublicKeyHex())
	if err != nil || again.p256 != first.p256 {
		t.Fatalf("the second parse of a key did not come from the cache (err %v)", err)
	}
	// The same bytes may or may not be a secp256k1 point; either way the P-256 key must not come back for that curve.
	if other, err := parsePublicKey(CurveSecp256k1, k.PublicKeyHex()); err == nil && (other.curve != CurveSecp256k1 || other.p256 != nil) {
		t.Fatal("the P-256 key came back for secp256k1: the cache must be keyed by curve too")
	}
	bad := "02" + strings.Repeat("ff", 32) // x is not below the field prime
	for range 2 {
		if _, err := parsePublicKey(CurveP256, bad); err == nil {
			t.Fatal("an invalid key parsed")
		}
	}
	if _, ok := parsedKeys.get(CurveP256, bad); ok {
		t.Fatal("an invalid key was cached")
	}

	c := keyCache{max: 3}
	for i := range 7 {
		c.put(CurveP256, fmt.Sprint(i), publicKey{})
		if len(c.keys) > c.max {
			t.Fatalf("%d keys cached, bound %d", len(c.keys), c.max)
		}
	}
	if _, ok := c.get(CurveP256, "6"); !ok {
		t.Fatal("the newest key is not cached")
	}
}
