package coordinator_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sigil/sigil/internal/testdb"
)

// getJSON decodes the JSON answer of a GET to the test server.
func (s *stack) getJSON(t *testing.T, path string, out any) {
	t.Helper()
	resp, err := http.Get(s.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// The signer document names both keys a browser app pins: the signer key, and the token key that the JWKS publishes.
func TestSignerDocumentNamesTheTokenKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		var doc struct{ PublicKey, TokenPublicKey string }
		s.getJSON(t, "/.well-known/sigil-signer.json", &doc)
		var jwks struct{ Keys []struct{ X, Y string } }
		s.getJSON(t, "/.well-known/jwks.json", &jwks)
		if len(jwks.Keys) != 1 {
			t.Fatalf("jwks has %d keys", len(jwks.Keys))
		}
		x, _ := base64.RawURLEncoding.DecodeString(jwks.Keys[0].X)
		y, _ := base64.RawURLEncoding.DecodeString(jwks.Keys[0].Y)
		if want := "04" + hex.EncodeToString(x) + hex.EncodeToString(y); doc.TokenPublicKey != want {
			t.Fatalf("tokenPublicKey %s, the JWKS key is %s", doc.TokenPublicKey, want)
		}
		s.signerKey(t) // a P-256 point
		if doc.PublicKey == doc.TokenPublicKey {
			t.Fatalf("the signer key is the token key %s", doc.PublicKey)
		}
	})
}
