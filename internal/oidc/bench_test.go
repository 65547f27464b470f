package oidc_test

import (
	"context"
	"testing"

	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
)

// Verification with the issuer's keys already cached: the cost of every
// login after the first.
func BenchmarkVerifyCached(b *testing.B) {
	f := newFixture(b)
	for _, alg := range []string{oidctest.AlgRS256, oidctest.AlgES256} {
		b.Run(alg, func(b *testing.B) {
			token := f.provider.IDToken(map[string]any{"nonce": "bench"}, oidctest.WithAlg(alg))
			opts := oidc.VerifyOptions{Nonce: "bench"}
			if _, err := f.verifier.Verify(context.Background(), token, opts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.verifier.Verify(context.Background(), token, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if d, j := f.fetches(); d != 1 || j != 1 {
		b.Fatalf("discovery %d, JWKS %d fetches during the benchmark", d, j)
	}
}
