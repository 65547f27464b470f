package bench_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/bench"
)

// BenchmarkOrganizationSize is sigil bench --org-size on each backend (PostgreSQL when SIGIL_TEST_POSTGRES_URL names
// a server): organizations of 0, 10,000, 100,000 and 1,000,000 wallet accounts, or of the sizes SIGIL_ORG_SIZES lists.
//
//	go test ./internal/bench -run '^$' -bench OrganizationSize -benchtime 1x -timeout 90m
func BenchmarkOrganizationSize(b *testing.B) {
	var sizes []int
	if env := os.Getenv("SIGIL_ORG_SIZES"); env != "" {
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("SIGIL_ORG_SIZES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			url := ""
			if backend == "postgres" {
				if url = os.Getenv("SIGIL_TEST_POSTGRES_URL"); url == "" {
					b.Skip("SIGIL_TEST_POSTGRES_URL is not set")
				}
			}
			for range b.N {
				if err := bench.OrgSizes(context.Background(), bench.OrgSizeConfig{Sizes: sizes, DatabaseURL: url, Stdout: os.Stdout, Logf: b.Logf}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
