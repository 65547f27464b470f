package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/bench"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkAccountsByOrgSize measures the store alone under what CREATE_WALLET_ACCOUNTS and get_wallet_account do, in
// an empty organization and in one of 1,000,000 accounts (SIGIL_ORG_SIZES overrides the sizes), side by side in one
// database and interleaved: a transaction that checks 100 new paths, stores 100 sealed keys and inserts 100 accounts
// (random UUIDv4 ids and addresses, as the API makes them), and a read of an account by address. It tells the
// store's part of sigil bench --org-size's ratios from the rest of the coordinator's.
//
//	go test ./internal/store -run '^$' -bench AccountsByOrgSize -benchtime 1x -timeout 30m
func BenchmarkAccountsByOrgSize(b *testing.B) {
	sizes := []int{0, 1_000_000}
	if env := os.Getenv("SIGIL_ORG_SIZES"); env != "" {
		sizes = nil
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
			db := testdb.SQLite(b)
			if backend == "postgres" {
				db = testdb.Postgres(b)
			}
			for range b.N {
				accountsBySize(b, db, sizes)
			}
		})
	}
}

func accountsBySize(b *testing.B, db testdb.Backend, sizes []int) {
	ctx := context.Background()
	s, err := store.Open(ctx, db.URL, db.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	raw, err := sql.Open(map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[db.Name], db.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	orgs := make([]string, len(sizes))
	for i, n := range sizes {
		orgs[i] = uuid.NewString()
		if err := bench.SeedAccounts(raw, db.Name, orgs[i], "w", 1, int64(n)); err != nil {
			b.Fatal(err)
		}
	}
	const rounds = 30
	writes, reads := map[int][]time.Duration{}, map[int][]time.Duration{}
	last := map[string]string{} // an address of each organization's, read back
	for round := range rounds {
		for j := range orgs {
			i := (round + j) % len(orgs)
			d, addr, err := insertHundred(ctx, s, orgs[i], round)
			if err != nil {
				b.Fatal(err)
			}
			writes[sizes[i]] = append(writes[sizes[i]], d)
			last[orgs[i]] = addr
		}
		for range 10 {
			for j := range orgs {
				i := (round + j) % len(orgs)
				start := time.Now()
				if _, err := s.WalletAccount(ctx, orgs[i], store.AccountKey{AddressKey: last[orgs[i]], WalletID: "w"}); err != nil {
					b.Fatal(err)
				}
				reads[sizes[i]] = append(reads[sizes[i]], time.Since(start))
			}
		}
	}
	for _, n := range sizes {
		w, r := median(writes[n]), median(reads[n])
		fmt.Printf("%s, %d accounts: 100 accounts stored p50 %.2f ms (%.2f×), an account read by address p50 %.1f µs (%.2f×)\n", db.Name, n,
			float64(w)/1e6, float64(w)/float64(median(writes[sizes[0]])), float64(r)/1e3, float64(r)/float64(median(reads[sizes[0]])))
	}
}

// insertHundred stores 100 accounts as CREATE_WALLET_ACCOUNTS does, and returns how long it took and one address.
func insertHundred(ctx context.Context, s *store.Store, org string, round int) (time.Duration, string, error) {
	accounts := make([]store.WalletAccount, 100)
	for j := range accounts {
		addr := "0x" + strings.ReplaceAll(uuid.NewString(), "-", "") + "00000000"
		accounts[j] = store.WalletAccount{OrgID: org, ID: uuid.NewString(), WalletID: "w", Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: fmt.Sprintf("m/44'/60'/0'/0/%d", round*100+j), AddressFormat: "ADDRESS_FORMAT_ETHEREUM", Address: addr, AddressKey: addr,
			PublicKey: "02" + strings.Repeat("ab", 32), KeySecret: uuid.NewString(), CreatedAt: "2026-12-02T00:00:00Z", UpdatedAt: "2026-12-02T00:00:00Z"}
	}
	start := time.Now()
	err := s.Write(ctx, func(tx *store.Tx) error {
		for _, a := range accounts {
			if _, err := tx.WalletAccount(ctx, org, store.AccountKey{WalletID: "w", Path: a.Path, Curve: a.Curve, AddressFormat: a.AddressFormat}); err != store.ErrNotFound {
				return fmt.Errorf("a new path is taken: %v", err)
			}
			if err := tx.PutSecret(ctx, store.Secret{ID: a.KeySecret, OrgID: org, Blob: make([]byte, 120), CreatedAt: 1}); err != nil {
				return err
			}
		}
		seq, err := tx.LastAccountSeq(ctx, org)
		if err != nil {
			return err
		}
		for j := range accounts {
			accounts[j].Seq = seq + int64(j) + 1
		}
		return tx.InsertWalletAccounts(ctx, accounts)
	})
	return time.Since(start), accounts[0].AddressKey, err
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
