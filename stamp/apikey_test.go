package stamp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/stamp"
)

var allCurves = []stamp.Curve{stamp.CurveP256, stamp.CurveSecp256k1, stamp.CurveEd25519}

// testBody is a realistic activity body, with a non-ASCII character to catch any re-encoding.
const testBody = `{"type":"ACTIVITY_TYPE_CREATE_WALLET","timestampMs":"1767225600000","organizationId":"5f7a3f4e-1c55-4b8e-9a9a-3e0d2f6b8c11","parameters":{"walletName":"Treasury ✓","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]}}`

// fixedKey derives a deterministic private key for curve from seed.
func fixedKey(t testing.TB, curve stamp.Curve, seed string) *stamp.APIKey {
	t.Helper()
	d := sha256.Sum256([]byte(seed))
	k, err := stamp.ParseAPIKey(curve, hex.EncodeToString(d[:]))
	if err != nil {
		t.Fatalf("ParseAPIKey(%s): %v", curve, err)
	}
	return k
}

func mustStamp(t testing.TB, s stamp.Stamper, body string) (string, string) {
	t.Helper()
	h, v, err := s.Stamp([]byte(body))
	if err != nil {
		t.Fatalf("Stamp: %v", err)
	}
	return h, v
}

func wantKind(t *testing.T, err error, sentinel error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", sentinel)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want kind %v", err, sentinel)
	}
	var se *stamp.Error
	if !errors.As(err, &se) || se.Error() == "" {
		t.Fatalf("error %q is not a *stamp.Error", err)
	}
}

func TestAPIKeyStampRoundTrip(t *testing.T) {
	for _, curve := range allCurves {
		t.Run(string(curve), func(t *testing.T) {
			k, err := stamp.GenerateAPIKey(curve)
			if err != nil {
				t.Fatal(err)
			}
			if k.Curve() != curve || k.Scheme() != curve.Scheme() {
				t.Fatalf("curve %s scheme %s", k.Curve(), k.Scheme())
			}
			header, value := mustStamp(t, k, testBody)
			if header != stamp.HeaderAPIKey {
				t.Fatalf("header %q", header)
			}
			st, err := stamp.FromHeaders(http.Header{header: {value}})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := st.(*stamp.APIKeyStamp)
			if !ok {
				t.Fatalf("FromHeaders returned %T", st)
			}
			if s.PublicKey != k.PublicKeyHex() || s.Curve != curve || s.Scheme != curve.Scheme() {
				t.Fatalf("parsed %s %s %s, want %s %s", s.PublicKey, s.Curve, s.Scheme, k.PublicKeyHex(), curve)
			}
			if err := s.Verify([]byte(testBody)); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			tampered := []byte(testBody)
			tampered[len(tampered)-2] ^= 1
			wantKind(t, s.Verify(tampered), stamp.ErrInvalidSignature)

			// The private key survives a round trip through its hex form.
			again, err := stamp.ParseAPIKey(curve, k.PrivateKeyHex())
			if err != nil {
				t.Fatal(err)
			}
			if again.PublicKeyHex() != k.PublicKeyHex() || again.PrivateKeyHex() != k.PrivateKeyHex() {
				t.Fatal("ParseAPIKey(PrivateKeyHex()) is a different key")
			}
			_, v2 := mustStamp(t, again, testBody)
			s2, err := stamp.ParseAPIKeyStamp(v2)
			if err != nil {
				t.Fatal(err)
			}
			if err := s2.Verify([]byte(testBody)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAPIKeyStampWireFormat(t *testing.T) {
	k := fixedKey(t, stamp.CurveSecp256k1, "wire format")
	_, value := mustStamp(t, k, "hello")
	if strings.ContainsAny(value, "=+/") {
		t.Fatalf("value %q is not unpadded base64url", value)
	}
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		t.Fatal(err)
	}
	// Same member order and names as the Go SDK.
	prefix := fmt.Sprintf(`{"publicKey":"%s","signature":"`, k.PublicKeyHex())
	if !strings.HasPrefix(string(raw), prefix) || !strings.HasSuffix(string(raw), `","scheme":"SIGNATURE_SCHEME_TK_API_SECP256K1"}`) {
		t.Fatalf("stamp JSON %s", raw)
	}
	// secp256k1 signatures are deterministic (RFC 6979).
	_, again := mustStamp(t, k, "hello")
	if again != value {
		t.Fatal("secp256k1 stamps of the same body differ")
	}
}

// Vectors made once with @turnkey/api-key-stamper 0.6.17 (Node 20), private key sha256("sigil stamp test vector
// p256"), over testBody, with its "node" (node:crypto) and "purejs" (@noble/curves) signers.
func TestTurnkeyAPIKeyStamperVectors(t *testing.T) {
	const (
		private = "2fcdf64c5f050de998643c46f7596907a12cab4a53a501bd671ef7c49979de89"
		public  = "021a2469dfdafb2c565fd1faaf3809df537d1fece23b7a5311f8df816d0e657d99"
	)
	vectors := map[string]string{
		"node":   "eyJwdWJsaWNLZXkiOiIwMjFhMjQ2OWRmZGFmYjJjNTY1ZmQxZmFhZjM4MDlkZjUzN2QxZmVjZTIzYjdhNTMxMWY4ZGY4MTZkMGU2NTdkOTkiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NDAyMjAzYjY0Mjg0Zjk2ZjYyMDE4MGQwYjA2MDk3NmFjZDBlOWYyMzAzMTVhMDgyZDM2YTc1ZTYzZDE5MzA3YzJhNTE3MDIyMDIzM2EzNDcxZDVlOWFjZjY5ZDVkMDgyYWM0MmIyZjA4ZmU4YTY2YjdlYjAxZjhjZTlkYWZjNjA1NTE3OGM4YTEifQ",
		"purejs": "eyJwdWJsaWNLZXkiOiIwMjFhMjQ2OWRmZGFmYjJjNTY1ZmQxZmFhZjM4MDlkZjUzN2QxZmVjZTIzYjdhNTMxMWY4ZGY4MTZkMGU2NTdkOTkiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NDAyMjA2MTYwYWI1N2VmOWExNDE0YWJkODBhYTdiZTg1MjBkZjg0ODg3MDk2YWJkMzg1NDFjMzY4YzIzNDE0ZTY4ZjJhMDIyMDcyODIyZGUzYTJjY2IwZjBiZDAzYjVkZTMwNzNkZTMzOTQ1OTcxZTNjZDU0YzA2ODMzNzYwNjM4OTJkYzRhZjkifQ",
	}
	k, err := stamp.ParseAPIKey(stamp.CurveP256, private)
	if err != nil {
		t.Fatal(err)
	}
	if k.PublicKeyHex() != public {
		t.Fatalf("public key %s, want %s (as derived by node:crypto)", k.PublicKeyHex(), public)
	}
	for runtime, value := range vectors {
		t.Run(runtime, func(t *testing.T) {
			s, err := stamp.ParseAPIKeyStamp(value)
			if err != nil {
				t.Fatal(err)
			}
			if s.PublicKey != public || s.Scheme != stamp.SchemeP256 {
				t.Fatalf("parsed %s %s", s.PublicKey, s.Scheme)
			}
			if err := s.Verify([]byte(testBody)); err != nil {
				t.Fatalf("vector does not verify: %v", err)
			}
			for _, i := range []int{0, len(testBody) / 2, len(testBody) - 1} {
				changed := []byte(testBody)
				changed[i] ^= 0x20
				wantKind(t, s.Verify(changed), stamp.ErrInvalidSignature)
			}
			wantKind(t, s.Verify([]byte(testBody+" ")), stamp.ErrInvalidSignature)
		})
	}
}

// The Go SDK's own test key: an OpenSSL-generated P-256 key and its compressed public key.
func TestGoSDKKeyDerivation(t *testing.T) {
	k, err := stamp.ParseAPIKey(stamp.CurveP256, "487f361ddfd73440e707f4daa6775b376859e8a3c9f29b3bb694a12927c0213c")
	if err != nil {
		t.Fatal(err)
	}
	if want := "02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316"; k.PublicKeyHex() != want {
		t.Fatalf("public key %s, want %s", k.PublicKeyHex(), want)
	}
}

func TestParseAPIKeyEd25519Forms(t *testing.T) {
	k := fixedKey(t, stamp.CurveEd25519, "ed seed")
	full := k.PrivateKeyHex()
	if len(full) != 128 || !strings.HasSuffix(full, k.PublicKeyHex()) {
		t.Fatalf("Ed25519 PrivateKeyHex %d chars, want seed||public", len(full))
	}
	fromFull, err := stamp.ParseAPIKey(stamp.CurveEd25519, strings.ToUpper(full))
	if err != nil {
		t.Fatal(err)
	}
	if fromFull.PublicKeyHex() != k.PublicKeyHex() {
		t.Fatal("64-byte form gives a different key than the seed")
	}
}

func TestParseAPIKeyErrors(t *testing.T) {
	// Group orders: P-256 n and secp256k1 n.
	const (
		p256N = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
		k1N   = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
	)
	good := fixedKey(t, stamp.CurveEd25519, "x")
	otherPub := fixedKey(t, stamp.CurveEd25519, "y").PublicKeyHex()
	mismatched := good.PrivateKeyHex()[:64] + otherPub
	zero := strings.Repeat("00", 32)
	tests := []struct {
		name    string
		curve   stamp.Curve
		private string
		want    string
	}{
		{"not hex", stamp.CurveP256, strings.Repeat("zz", 32), "not hex"},
		{"short P-256", stamp.CurveP256, "01", "32 bytes"},
		{"long P-256", stamp.CurveP256, strings.Repeat("01", 33), "32 bytes"},
		{"zero P-256", stamp.CurveP256, zero, "not a valid scalar"},
		{"order P-256", stamp.CurveP256, p256N, "not a valid scalar"},
		{"short secp256k1", stamp.CurveSecp256k1, "0102", "32 bytes"},
		{"zero secp256k1", stamp.CurveSecp256k1, zero, "not a valid scalar"},
		{"order secp256k1", stamp.CurveSecp256k1, k1N, "not a valid scalar"},
		{"Ed25519 wrong length", stamp.CurveEd25519, strings.Repeat("01", 48), "32-byte seed or 64 bytes"},
		{"Ed25519 mismatched public half", stamp.CurveEd25519, mismatched, "does not match"},
		{"unknown curve", stamp.Curve("API_KEY_CURVE_RSA"), zero, "unknown API key curve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := stamp.ParseAPIKey(tt.curve, tt.private)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.private) {
				t.Fatal("error message contains the private key")
			}
		})
	}
}

func TestAPIKeyStringHidesSecret(t *testing.T) {
	for _, curve := range allCurves {
		k := fixedKey(t, curve, "secret")
		for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(format, k); strings.Contains(out, k.PrivateKeyHex()[:16]) {
				t.Fatalf("%s of an APIKey shows the private key: %s", format, out)
			}
		}
	}
}

func TestCurveAndScheme(t *testing.T) {
	for _, curve := range allCurves {
		c, err := stamp.ParseCurve(string(curve))
		if err != nil || c != curve {
			t.Fatalf("ParseCurve(%s) = %s, %v", curve, c, err)
		}
		back, ok := curve.Scheme().Curve()
		if !ok || back != curve {
			t.Fatalf("%s -> %s -> %s", curve, curve.Scheme(), back)
		}
	}
	for _, bad := range []string{"", "CURVE_P256", "api_key_curve_p256"} {
		if _, err := stamp.ParseCurve(bad); err == nil {
			t.Fatalf("ParseCurve(%q) accepted", bad)
		}
	}
	if _, ok := stamp.SchemeSecp256k1EIP191.Curve(); ok {
		t.Fatal("EIP-191 scheme claims a curve")
	}
}

func TestNormalizePublicKey(t *testing.T) {
	for _, curve := range allCurves {
		pub := fixedKey(t, curve, "normalize").PublicKeyHex()
		got, err := stamp.NormalizePublicKey(curve, strings.ToUpper(pub))
		if err != nil || got != pub {
			t.Fatalf("%s: NormalizePublicKey(upper) = %q, %v; want %q", curve, got, err, pub)
		}
	}

	p256 := fixedKey(t, stamp.CurveP256, "p").PublicKeyHex()
	k1 := fixedKey(t, stamp.CurveSecp256k1, "k").PublicKeyHex()
	tests := []struct {
		name  string
		curve stamp.Curve
		key   string
		want  string
	}{
		{"not hex", stamp.CurveP256, "0x" + p256[2:], "not hex"},
		{"odd length", stamp.CurveP256, p256[:65], "not hex"},
		{"uncompressed prefix", stamp.CurveP256, "04" + p256[2:], "starting with 02 or 03"},
		{"P-256 too short", stamp.CurveP256, p256[:64], "33-byte compressed point"},
		{"P-256 uncompressed", stamp.CurveP256, "04" + strings.Repeat("11", 64), "33-byte compressed point"},
		// x = 1 has no square root on P-256; x = p is not reduced.
		{"P-256 not on curve", stamp.CurveP256, "02" + strings.Repeat("00", 31) + "01", "not a point on the curve"},
		{"P-256 x not reduced", stamp.CurveP256, "02ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", "not a point on the curve"},
		// secp256k1: x = 5 has no square root (y^2 = 132 is a non-residue); x = p is not reduced.
		{"secp256k1 not on curve", stamp.CurveSecp256k1, "02" + strings.Repeat("00", 31) + "05", "not a point on the curve"},
		{"secp256k1 x not reduced", stamp.CurveSecp256k1, "02fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", "not a point on the curve"},
		{"secp256k1 too long", stamp.CurveSecp256k1, k1 + "00", "33-byte compressed point"},
		{"Ed25519 too short", stamp.CurveEd25519, strings.Repeat("11", 31), "32 bytes"},
		{"Ed25519 compressed EC key", stamp.CurveEd25519, p256, "32 bytes"},
		// The identity point (y = 1) and the order-2 point (y = -1) are of small order.
		{"Ed25519 identity", stamp.CurveEd25519, "01" + strings.Repeat("00", 31), "small order"},
		{"Ed25519 order 2", stamp.CurveEd25519, "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "small order"},
		// y = 2 is not the y of any point.
		{"Ed25519 not a point", stamp.CurveEd25519, "02" + strings.Repeat("00", 31), "not a point on the curve"},
		{"unknown curve", stamp.Curve("API_KEY_CURVE_X"), p256, "unknown API key curve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := stamp.NormalizePublicKey(tt.curve, tt.key)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// stampJSON builds an X-Stamp value from raw members, for malformed-input tests.
func stampJSON(t testing.TB, members map[string]any) string {
	t.Helper()
	j, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(j)
}

// decodeStamp returns the members of a valid X-Stamp value.
func decodeStamp(t testing.TB, value string) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func with(m map[string]any, key string, value any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	if value == nil {
		delete(out, key)
	} else {
		out[key] = value
	}
	return out
}

func TestParseAPIKeyStampMalformed(t *testing.T) {
	p256 := fixedKey(t, stamp.CurveP256, "p")
	ed := fixedKey(t, stamp.CurveEd25519, "e")
	_, pValue := mustStamp(t, p256, testBody)
	_, eValue := mustStamp(t, ed, testBody)
	_, kValue := mustStamp(t, fixedKey(t, stamp.CurveSecp256k1, "k"), testBody)
	pm, em, km := decodeStamp(t, pValue), decodeStamp(t, eValue), decodeStamp(t, kValue)
	sig := pm["signature"].(string)

	// DER edits of a valid P-256 signature: 30 len 02 rlen r 02 slen s.
	der, _ := hex.DecodeString(sig)
	trailing := hex.EncodeToString(append(append([]byte{}, der...), 0))
	longForm := hex.EncodeToString(append([]byte{0x30, 0x81, der[1]}, der[2:]...))
	rLen := int(der[3])
	padded := append([]byte{0x30, der[1] + 1, 0x02, byte(rLen + 1), 0x00}, der[4:]...) // r with a needless 00
	rawSig := strings.Repeat("ab", 64)                                                 // IEEE P1363 r||s, not DER

	tests := []struct {
		name  string
		value string
		kind  error
		want  string
	}{
		{"empty", "", stamp.ErrMalformed, "not the expected JSON"},
		{"not base64url", "!!!!", stamp.ErrMalformed, "not base64url"},
		{"standard base64 alphabet", strings.ReplaceAll(strings.ReplaceAll(pValue, "-", "+"), "_", "/") + "+/", stamp.ErrMalformed, "not base64url"},
		{"bad padding", pValue + "===", stamp.ErrMalformed, "not base64url"},
		{"not JSON", base64.RawURLEncoding.EncodeToString([]byte("publicKey=02ab")), stamp.ErrMalformed, "not the expected JSON"},
		{"JSON array", base64.RawURLEncoding.EncodeToString([]byte(`["a"]`)), stamp.ErrMalformed, "not the expected JSON"},
		{"trailing JSON", base64.RawURLEncoding.EncodeToString([]byte(`{} {}`)), stamp.ErrMalformed, "not the expected JSON"},
		{"number member", stampJSON(t, with(pm, "signature", 12)), stamp.ErrMalformed, "not the expected JSON"},
		{"missing publicKey", stampJSON(t, with(pm, "publicKey", nil)), stamp.ErrMalformed, `"publicKey" is missing`},
		{"missing signature", stampJSON(t, with(pm, "signature", nil)), stamp.ErrMalformed, `"signature" is missing`},
		{"missing scheme", stampJSON(t, with(pm, "scheme", nil)), stamp.ErrMalformed, `"scheme" is missing`},
		{"empty signature", stampJSON(t, with(pm, "signature", "")), stamp.ErrMalformed, `"signature" is missing`},
		{"unknown scheme", stampJSON(t, with(pm, "scheme", "SIGNATURE_SCHEME_TK_API_RSA")), stamp.ErrUnknownScheme, "unknown scheme"},
		{"lower-case scheme", stampJSON(t, with(pm, "scheme", "signature_scheme_tk_api_p256")), stamp.ErrUnknownScheme, "unknown scheme"},
		{"EIP-191 scheme", stampJSON(t, with(pm, "scheme", string(stamp.SchemeSecp256k1EIP191))), stamp.ErrUnknownScheme, "not supported"},
		{"key not hex", stampJSON(t, with(pm, "publicKey", "zz"+pm["publicKey"].(string)[2:])), stamp.ErrMalformed, "not hex"},
		{"wrong-length key", stampJSON(t, with(pm, "publicKey", pm["publicKey"].(string)[:64])), stamp.ErrMalformed, "33-byte compressed point"},
		{"point not on curve", stampJSON(t, with(pm, "publicKey", "02"+strings.Repeat("00", 31)+"01")), stamp.ErrMalformed, "not a point on the curve"},
		{"Ed25519 key under P-256 scheme", stampJSON(t, with(em, "scheme", string(stamp.SchemeP256))), stamp.ErrMalformed, "33-byte compressed point"},
		{"P-256 key under Ed25519 scheme", stampJSON(t, with(pm, "scheme", string(stamp.SchemeEd25519))), stamp.ErrMalformed, "32 bytes"},
		// sha256("\x01") as a secp256k1 key has an x that is not on P-256.
		{"secp256k1 key under P-256 scheme", stampJSON(t, with(pm, "publicKey", "02d415b187c6e7ce9da46ac888d20df20737d6f16a41639e68ea055311e1535dd9")), stamp.ErrMalformed, "not a point on the curve"},
		{"signature not hex", stampJSON(t, with(pm, "signature", "3044zz")), stamp.ErrMalformed, "signature is not hex"},
		{"signature garbage", stampJSON(t, with(pm, "signature", "deadbeef")), stamp.ErrMalformed, "not a valid DER"},
		{"signature raw r||s", stampJSON(t, with(pm, "signature", rawSig)), stamp.ErrMalformed, "not a valid DER"},
		{"DER trailing byte", stampJSON(t, with(pm, "signature", trailing)), stamp.ErrMalformed, "not a valid DER"},
		{"DER long-form length", stampJSON(t, with(pm, "signature", longForm)), stamp.ErrMalformed, "not a valid DER"},
		{"DER non-minimal integer", stampJSON(t, with(pm, "signature", hex.EncodeToString(padded))), stamp.ErrMalformed, "not a valid DER"},
		{"DER zero r", stampJSON(t, with(pm, "signature", "3006020100020101")), stamp.ErrMalformed, "not a valid DER"},
		{"secp256k1 DER trailing byte", stampJSON(t, with(km, "signature", km["signature"].(string)+"00")), stamp.ErrMalformed, "API_KEY_CURVE_SECP256K1 signature is not a valid DER"},
		{"secp256k1 raw r||s", stampJSON(t, with(km, "signature", rawSig)), stamp.ErrMalformed, "not a valid DER"},
		{"Ed25519 short signature", stampJSON(t, with(em, "signature", em["signature"].(string)[:126])), stamp.ErrMalformed, "must be 64 bytes"},
		{"Ed25519 DER signature", stampJSON(t, with(em, "signature", sig)), stamp.ErrMalformed, "must be 64 bytes"},
		{"too long", strings.Repeat("A", stamp.MaxHeaderValueLen+1), stamp.ErrMalformed, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.ParseAPIKeyStamp(tt.value)
			if s != nil {
				t.Fatalf("parsed %+v", s)
			}
			wantKind(t, err, tt.kind)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestAPIKeyStampInvalidSignature(t *testing.T) {
	p256 := fixedKey(t, stamp.CurveP256, "p")
	other := fixedKey(t, stamp.CurveP256, "other")
	k1 := fixedKey(t, stamp.CurveSecp256k1, "k")
	ed := fixedKey(t, stamp.CurveEd25519, "e")
	_, pValue := mustStamp(t, p256, testBody)
	_, otherBody := mustStamp(t, p256, testBody+"x")
	_, k1Value := mustStamp(t, k1, testBody)
	_, edValue := mustStamp(t, ed, testBody)
	pm, km, em := decodeStamp(t, pValue), decodeStamp(t, k1Value), decodeStamp(t, edValue)
	flipped, _ := hex.DecodeString(em["signature"].(string))
	flipped[5] ^= 1

	tests := []struct {
		name  string
		value string
	}{
		{"signature over other bytes", otherBody},
		{"another key's public key", stampJSON(t, with(pm, "publicKey", other.PublicKeyHex()))},
		// sha256("\x00") as a secp256k1 key is also a valid P-256 point: it parses, then cannot verify.
		{"secp256k1 stamp relabelled P-256", stampJSON(t, with(with(km, "scheme", string(stamp.SchemeP256)), "publicKey", "0243311589af63c2adda04fcd7792c038a05c12a4fe40351b3eb1612ff6b2e5a0e"))},
		{"P-256 signature relabelled secp256k1", stampJSON(t, with(with(pm, "scheme", string(stamp.SchemeSecp256k1)), "publicKey", k1.PublicKeyHex()))},
		{"Ed25519 signature bit flipped", stampJSON(t, with(em, "signature", hex.EncodeToString(flipped)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := stamp.ParseAPIKeyStamp(tt.value)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = s.Verify([]byte(testBody))
			wantKind(t, err, stamp.ErrInvalidSignature)
			if !strings.HasPrefix(err.Error(), "could not verify api key signature: ") {
				t.Fatalf("message %q", err)
			}
		})
	}
}

func TestAPIKeyStampAcceptsPadding(t *testing.T) {
	k := fixedKey(t, stamp.CurveEd25519, "pad")
	_, value := mustStamp(t, k, "x")
	raw, _ := base64.RawURLEncoding.DecodeString(value)
	if len(raw)%3 == 0 { // Ed25519 stamps have a fixed length
		t.Fatal("this stamp has no padding in base64; the test needs one that has")
	}
	s, err := stamp.ParseAPIKeyStamp(base64.URLEncoding.EncodeToString(raw))
	if err != nil {
		t.Fatalf("padded base64url rejected: %v", err)
	}
	if err := s.Verify([]byte("x")); err != nil {
		t.Fatal(err)
	}
}

func TestAPIKeyStampAcceptsHighSAndUpperCase(t *testing.T) {
	// The SDKs do not normalise S, so a valid high-S signature must verify; a public key in upper-case hex is
	// accepted and reported in lower case.
	k := fixedKey(t, stamp.CurveP256, "p")
	_, value := mustStamp(t, k, testBody)
	m := decodeStamp(t, value)
	der, _ := hex.DecodeString(m["signature"].(string))
	highS := hex.EncodeToString(negateS(t, der))
	s, err := stamp.ParseAPIKeyStamp(stampJSON(t, with(with(m, "signature", strings.ToUpper(highS)), "publicKey", strings.ToUpper(k.PublicKeyHex()))))
	if err != nil {
		t.Fatal(err)
	}
	if s.PublicKey != k.PublicKeyHex() {
		t.Fatalf("public key %s not normalised", s.PublicKey)
	}
	if err := s.Verify([]byte(testBody)); err != nil {
		t.Fatalf("high-S signature rejected: %v", err)
	}
}

func TestParseAPIKeyString(t *testing.T) {
	for _, tt := range []struct {
		suffix string
		curve  stamp.Curve
	}{{"", stamp.CurveP256}, {":p256", stamp.CurveP256}, {":secp256k1", stamp.CurveSecp256k1}, {":ed25519", stamp.CurveEd25519}, {":ED25519", stamp.CurveEd25519}} {
		want := fixedKey(t, tt.curve, "suffix")
		got, err := stamp.ParseAPIKeyString(want.PrivateKeyHex() + tt.suffix)
		if err != nil {
			t.Fatalf("%q: %v", tt.suffix, err)
		}
		if got.Curve() != tt.curve || got.PublicKeyHex() != want.PublicKeyHex() {
			t.Fatalf("%q: got %s %s", tt.suffix, got.Curve(), got.PublicKeyHex())
		}
	}
	for _, bad := range []string{strings.Repeat("11", 32) + ":rsa", strings.Repeat("11", 32) + ":", "zz"} {
		if _, err := stamp.ParseAPIKeyString(bad); err == nil {
			t.Fatalf("ParseAPIKeyString(%q) accepted", bad)
		}
	}
}

func TestSecp256k1AcceptsHighS(t *testing.T) {
	// decred signs with low S; a high-S signature is as valid and the SDKs may send one.
	k := fixedKey(t, stamp.CurveSecp256k1, "high s")
	_, value := mustStamp(t, k, testBody)
	m := decodeStamp(t, value)
	der, _ := hex.DecodeString(m["signature"].(string))
	for name, sig := range map[string][]byte{"low S": der, "high S": negateSMod(t, der, secp256k1N)} {
		s, err := stamp.ParseAPIKeyStamp(stampJSON(t, with(m, "signature", hex.EncodeToString(sig))))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Verify([]byte(testBody)); err != nil {
			t.Fatalf("%s rejected: %v", name, err)
		}
		wantKind(t, s.Verify([]byte(testBody+"!")), stamp.ErrInvalidSignature)
	}
}
