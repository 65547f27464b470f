package clientsig_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/clientsig"
)

// The messages are byte for byte the ones @turnkey/core builds (internal/token/testdata/sdk_vectors.json, where the
// coordinator checks the SDK's own signatures over them).
func TestMessagesAreTheSDKs(t *testing.T) {
	t.Parallel()
	const tokenID, session = "0b4d1f8e-3c47-4a8e-9a52-5f0c2f6f8d11", "02abababababababababababababababababababababababababababababababab"
	login, err := clientsig.LoginMessage(tokenID, session)
	if want := `{"login":{"publicKey":"` + session + `"},"tokenId":"` + tokenID + `","type":"USAGE_TYPE_LOGIN"}`; err != nil || login != want {
		t.Errorf("LoginMessage = %s, %v\nwant %s", login, err, want)
	}
	const sdkSignup = `{"signupV2":{"apiKeys":[{"apiKeyName":"api-key-1","publicKey":"` + session + `","curveType":"API_KEY_CURVE_P256","expirationSeconds":"900"}],"authenticators":[],"oauthProviders":[{"providerName":"google","oidcToken":"x.y.z"}],"email":"a~b?c@example.com"},"tokenId":"` + tokenID + `","type":"USAGE_TYPE_SIGNUP"}`
	var u clientsig.Usage
	if err := json.Unmarshal([]byte(sdkSignup), &u); err != nil {
		t.Fatal(err)
	}
	if signup, err := clientsig.SignupMessage(tokenID, *u.SignupV2); err != nil || signup != sdkSignup {
		t.Errorf("SignupMessage = %s, %v\nwant %s", signup, err, sdkSignup)
	}
	// JSON.stringify escapes neither HTML characters nor the line and paragraph separators.
	odd, _ := clientsig.SignupMessage(tokenID, clientsig.SignupUsage{Email: "a<b>&c\u2028@example.com"})
	if !strings.Contains(odd, "\"email\":\"a<b>&c\u2028@example.com\"") {
		t.Errorf("escaped as JSON.stringify would not: %s", odd)
	}
}

// Sign's signature is P-256 ECDSA over SHA-256 of the message, 64-byte r||s, by the key it names, compressed.
func TestSign(t *testing.T) {
	t.Parallel()
	d := sha256.Sum256([]byte("client"))
	key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clientsig.Sign(key, "message")
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := stamp.P256PublicKeyHex(&key.PublicKey)
	sig, err := hex.DecodeString(cs.Signature)
	if err != nil || len(sig) != 64 || cs.PublicKey != pub || cs.Scheme != clientsig.SchemeP256 || cs.Message != "message" {
		t.Fatalf("signature %+v", cs)
	}
	digest := sha256.Sum256([]byte("message"))
	if !ecdsa.Verify(&key.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Error("the signature does not verify")
	}
	other, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := clientsig.Sign(other, "message"); err == nil {
		t.Error("a P-384 key signed")
	}
}
