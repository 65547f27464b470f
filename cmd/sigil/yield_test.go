package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"sigil/chain"
	"sigil/internal/testdb"
	"sigil/store"
	"sigil/yield"
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

// allocatorFees lists the performance fees of the allocator vaults a key sees: "10.00" or "20.00" by its fee set.
func allocatorFees(t *testing.T, url, key string) []string {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/v1/yields?type=vault&limit=100", nil)
	req.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Items []struct {
			Mechanics struct {
				Fee struct {
					Performance string `json:"performance"`
				} `json:"fee"`
			} `json:"mechanics"`
		} `json:"items"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /v1/yields with a key: %d, %v", res.StatusCode, err)
	}
	var fees []string
	for _, y := range page.Items {
		if y.Mechanics.Fee.Performance != "0.00" {
			fees = append(fees, y.Mechanics.Fee.Performance)
		}
	}
	return fees
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
		cat, err := yield.DevCatalogue(ctx, node.Bootstrap())
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
			if fees := allocatorFees(t, srv.URL, key); !slices.Equal(fees, []string{"20.00"}) {
				t.Fatalf("a key of the 20%% project sees allocator vaults with fees %v", fees)
			}
		}
	})
}
