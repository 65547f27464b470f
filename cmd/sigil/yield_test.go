package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/yield"
	"github.com/sigil/sigil/internal/yield/yieldtest"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// startDevChain starts an in-memory dev chain on a free port for one test.
func startDevChain(t *testing.T) *chain.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node, err := chain.Start(ctx, chain.Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatalf("start dev chain: %v", err)
	}
	t.Cleanup(func() { node.Close() })
	return node
}

// sigil yield keys create prints a new key once, on stdout alone; the key authenticates and sees its project's fee set,
// which a later key of the project takes when --fee-set is left out and may not contradict.
func TestYieldKeysCreate(t *testing.T) {
	t.Parallel()
	node := startDevChain(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		t.Parallel()
		ctx := context.Background()
		create := func(args ...string) (string, string, int) {
			return sigil(t, append([]string{"yield", "keys", "create", "--dir", b.Dir, "--database-url", b.URL}, args...)...)
		}
		out, errs, code := create("--project", "acme", "--fee-set", "20")
		first := strings.TrimSuffix(out, "\n")
		if code != 0 || !strings.HasPrefix(first, "sgy_") || len(first) != 47 || strings.Contains(first, "\n") {
			t.Fatalf("keys create printed %q, exit %d, %s; want one key", out, code, errs)
		}
		out, errs, code = create("--project", "acme")
		second := strings.TrimSuffix(out, "\n")
		if code != 0 || !strings.HasPrefix(second, "sgy_") || second == first {
			t.Fatalf("a second key of the project: %q, exit %d, %s", out, code, errs)
		}
		for _, tc := range []struct {
			args  []string
			error string
		}{
			{[]string{"--project", "acme", "--fee-set", "10"}, `project "acme" is on the 20% fee set`},
			{[]string{"--project", "newcomer"}, "needs a fee set"},
			{[]string{"--project", "other", "--fee-set", "15"}, "not 10 or 20"},
			{[]string{"--fee-set", "10"}, "--project is required"},
		} {
			if out, errs, code := create(tc.args...); code == 0 || !strings.Contains(errs, tc.error) || out != "" {
				t.Fatalf("keys create %v: printed %q, exit %d, %s; want an error with %q", tc.args, out, code, errs, tc.error)
			}
		}

		// Both keys authenticate to a service on the same database and see the 20% set's allocator vault.
		st, err := store.Open(ctx, b.URL, b.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cat, err := devcatalogue.Build(ctx, node.Bootstrap())
		if err != nil {
			t.Fatal(err)
		}
		svc, err := yield.New(yield.Config{Catalogue: cat, Store: st, Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		defer svc.Close()
		srv := httptest.NewServer(svc.Handler())
		defer srv.Close()
		for _, key := range []string{first, second} {
			if fees := yieldtest.AllocatorFees(t, srv.URL, key); !slices.Equal(fees, []string{"20.00"}) {
				t.Fatalf("a key of the 20%% project sees allocator vaults with fees %v", fees)
			}
		}
	})
}
