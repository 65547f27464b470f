package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
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
	node := startDevChain(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		create := func(args ...string) (string, error) {
			return capture(t, func() error {
				return runYield(ctx, append([]string{"keys", "create", "--dir", b.Dir, "--database-url", b.URL}, args...))
			})
		}
		out, err := create("--project", "acme", "--fee-set", "20")
		first := strings.TrimSuffix(out, "\n")
		if err != nil || !strings.HasPrefix(first, "sgy_") || len(first) != 47 || strings.Contains(first, "\n") {
			t.Fatalf("keys create printed %q, %v; want one key", out, err)
		}
		out, err = create("--project", "acme")
		second := strings.TrimSuffix(out, "\n")
		if err != nil || !strings.HasPrefix(second, "sgy_") || second == first {
			t.Fatalf("a second key of the project: %q, %v", out, err)
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
			if out, err := create(tc.args...); err == nil || !strings.Contains(err.Error(), tc.error) || out != "" {
				t.Fatalf("keys create %v: printed %q, %v; want an error with %q", tc.args, out, err, tc.error)
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

// sigil up's yield service records its URL and one key per fee set in bootstrap.json; the two keys see different
// allocator vaults. A file that lacks one of the keys gets it on the next start, and the other is kept.
func TestUpYieldBootstrap(t *testing.T) {
	ctx := context.Background()
	node := startDevChain(t)
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := writeBootstrap(dir, &bootstrapFile{OrganizationID: "o", CoordinatorURL: "http://127.0.0.1:8081"}); err != nil {
		t.Fatal(err)
	}
	start := func() *bootstrapFile {
		t.Helper()
		yf := yieldFlags{listen: "127.0.0.1:0"}
		srv, svc, err := yf.start(ctx, st, dir, node.Bootstrap(), quietLog)
		if err != nil {
			t.Fatal(err)
		}
		go srv.srv.Serve(srv.ln)
		t.Cleanup(func() { srv.srv.Close(); svc.Close() })
		b, err := readBootstrap(dir)
		if err != nil {
			t.Fatal(err)
		}
		if b.YieldURL != srv.url || b.OrganizationID != "o" || b.YieldAPIKey == "" || b.YieldAPIKey20 == "" || b.YieldAPIKey == b.YieldAPIKey20 {
			t.Fatalf("bootstrap.json after the yield service started: %+v (serving at %s)", b, srv.url)
		}
		if fees := allocatorFees(t, b.YieldURL, b.YieldAPIKey); !slices.Equal(fees, []string{"10.00"}) {
			t.Fatalf("yieldApiKey sees allocator vaults with fees %v, want the 10%% set's", fees)
		}
		if fees := allocatorFees(t, b.YieldURL, b.YieldAPIKey20); !slices.Equal(fees, []string{"20.00"}) {
			t.Fatalf("yieldApiKey20 sees allocator vaults with fees %v, want the 20%% set's", fees)
		}
		return b
	}
	first := start()

	// A file written when there was only the 10% key.
	first.YieldAPIKey20 = ""
	if err := writeBootstrap(dir, first); err != nil {
		t.Fatal(err)
	}
	second := start()
	if second.YieldAPIKey != first.YieldAPIKey {
		t.Fatal("the next start replaced the 10% key")
	}

	// Without bootstrap.json the start fails and leaves nothing listening.
	if err := os.Remove(bootstrapPath(dir)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	yf := yieldFlags{listen: addr}
	if _, _, err := yf.start(ctx, st, dir, node.Bootstrap(), quietLog); err == nil || !strings.Contains(err.Error(), "bootstrap.json") {
		t.Fatalf("start without bootstrap.json: %v", err)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the failed start left its listener open: %v", err)
	}
	ln.Close()
}
