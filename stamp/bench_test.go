package stamp_test

import (
	"net/http"
	"testing"

	"github.com/sigil/sigil/stamp"
)

// BenchmarkVerifyAPIKeyStamp measures what a server pays per request: parse the X-Stamp (decode, decompress and
// validate the public key, check the DER) and verify the signature over the body.
func BenchmarkVerifyAPIKeyStamp(b *testing.B) {
	body := []byte(testBody)
	for _, curve := range allCurves {
		b.Run(string(curve), func(b *testing.B) {
			_, value := mustStamp(b, fixedKey(b, curve, "bench"), testBody)
			b.ReportAllocs()
			for b.Loop() {
				s, err := stamp.ParseAPIKeyStamp(value)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Verify(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseAPIKeyStamp isolates the parsing share of the above.
func BenchmarkParseAPIKeyStamp(b *testing.B) {
	for _, curve := range allCurves {
		b.Run(string(curve), func(b *testing.B) {
			_, value := mustStamp(b, fixedKey(b, curve, "bench"), testBody)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := stamp.ParseAPIKeyStamp(value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAPIKeyStamp(b *testing.B) {
	body := []byte(testBody)
	for _, curve := range allCurves {
		b.Run(string(curve), func(b *testing.B) {
			k := fixedKey(b, curve, "bench")
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := k.Stamp(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyWebAuthnStamp: FromHeaders + Verify of a passkey assertion (ES256).
func BenchmarkVerifyWebAuthnStamp(b *testing.B) {
	a, cred := registered(b)
	header, value := mustStamp(b, a, testBody)
	h := http.Header{header: {value}}
	body := []byte(testBody)
	cred.SignCount = 0
	a.SetSignCount(^uint32(0)) // a 0 counter verifies repeatedly against a stored 0
	_, value = mustStamp(b, a, testBody)
	h.Set(header, value)
	b.ReportAllocs()
	for b.Loop() {
		s, err := stamp.FromHeaders(h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.(*stamp.WebAuthnStamp).Verify(body, cred); err != nil {
			b.Fatal(err)
		}
	}
}
