package coordinator_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// TestUpgradeInPlace opens a database written by the release before wallet accounts left the organization document
// (testdata/upgrade, made by TestWriteUpgradeFixture at that release: a SQLite file, and a dump of a PostgreSQL
// schema), lets the store migrate it on its first start, and checks that every answer the old release gave is given
// again, byte for byte, and that the migrated accounts sign, are found by address, and take new accounts after them.
func TestUpgradeInPlace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		var f upgradeFixture
		data, err := os.ReadFile(filepath.Join("testdata", "upgrade", b.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		restoreUpgradeFixture(t, b)
		s, err := store.Open(ctx, b.URL, b.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		key, _ := hex.DecodeString(upgradeFixtureMasterKey)
		ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		st := &stack{t: t, store: s, ring: ring, stamps: &stampClock{}}
		st.coord = coordinator.New(s, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring})
		if err := st.coord.Start(ctx); err != nil {
			t.Fatal(err)
		}
		st.srv = httptest.NewServer(st.coord.Handler())
		defer st.srv.Close()
		apiKey, err := stamp.ParseAPIKey(stamp.CurveP256, f.APIKeyPrivate)
		if err != nil {
			t.Fatal(err)
		}
		root := st.client(apiKey)
		org := f.OrganizationID

		same := func(what string, want json.RawMessage) func(any, error) {
			return func(got any, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				gotJSON, _ := json.Marshal(got)
				if !jsonEqual(t, want, gotJSON) {
					t.Errorf("%s after the upgrade:\n got %s\nwant %s", what, gotJSON, want)
				}
			}
		}
		same("get_organization", f.Organization)(root.GetOrganization(ctx, org))
		same("list_wallets", f.WalletList)(root.ListWallets(ctx, org))
		for _, w := range f.Wallets {
			same("list_wallet_accounts of "+w, f.AccountsByWallet[w])(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{
				OrganizationID: org, WalletID: w, PaginationOptions: &api.Pagination{Limit: "100"}}))
		}
		same("list_wallet_accounts", f.AllAccounts)(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org,
			PaginationOptions: &api.Pagination{Limit: "100"}}))
		for i, a := range f.Addresses {
			same("get_wallet_account "+a, f.AccountByAddress[a])(root.GetWalletAccount(ctx, api.GetWalletAccountRequest{
				OrganizationID: org, WalletID: f.Wallets[i], Address: strings.ToLower(a)}))
		}
		same("the sub-organization's accounts", f.SubOrgAccounts)(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: f.SubOrganizationID}))
		for a, want := range f.SubOrgsByAddress {
			res, err := root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: org, FilterType: "WALLET_ACCOUNT_ADDRESS", FilterValue: a})
			if err != nil || strings.Join(res.OrganizationIDs, ",") != strings.Join(want, ",") {
				t.Errorf("list_suborgs by %s: %v, %v; want %v", a, res, err, want)
			}
		}

		// The migrated keys sign, by wallet account and by private key.
		for _, signWith := range []string{f.Addresses[0], f.Addresses[1], f.PrivateKeyAddress} {
			res, _, err := root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: signWith, Payload: "0x" + strings.Repeat("ab", 32),
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
			if err != nil || res.R == "" {
				t.Fatalf("signing with %s after the upgrade: %+v, %v", signWith, res, err)
			}
		}
		// New accounts come after the migrated ones.
		added, _, err := root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: f.Wallets[1], Accounts: []api.WalletAccountParams{{
			Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/7", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
		if err != nil {
			t.Fatal(err)
		}
		all, err := root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		var before api.ListWalletAccountsResponse
		_ = json.Unmarshal(f.AllAccounts, &before)
		if n := len(all.Accounts); n != len(before.Accounts)+1 || all.Accounts[n-1].Address != added.Addresses[0] {
			t.Fatalf("accounts after adding one: %d, last %+v; want %d, last %s", n, all.Accounts[n-1], len(before.Accounts)+1, added.Addresses[0])
		}
		// The old index entries of wallet accounts' addresses are gone; the private key's stays.
		raw, err := sql.Open(map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[b.Name], b.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		var values []string
		rows, err := raw.Query("SELECT value FROM org_index WHERE kind = 'WALLET_ACCOUNT_ADDRESS' ORDER BY value")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			_ = rows.Scan(&v)
			values = append(values, v)
		}
		rows.Close()
		if len(values) != 1 || values[0] != strings.ToLower(f.PrivateKeyAddress) {
			t.Fatalf("address index entries after the upgrade: %v; want only the private key's %s", values, strings.ToLower(f.PrivateKeyAddress))
		}
		// And the documents hold no account any more.
		var doc string
		if err := raw.QueryRow("SELECT data FROM organizations WHERE id = $1", org).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(doc, `"accounts"`) || strings.Contains(doc, f.Addresses[0]) {
			t.Fatalf("the organization document still holds its accounts: %s", doc)
		}
	})
}

// restoreUpgradeFixture puts the fixture of b's backend into b's fresh database: the SQLite file copied, or the
// PostgreSQL dump run in the test's schema (pg_dump names its own schema, and resets search_path: both are dropped).
func restoreUpgradeFixture(t *testing.T, b testdb.Backend) {
	t.Helper()
	if b.Name == "sqlite" {
		data, err := os.ReadFile(filepath.Join("testdata", "upgrade", "sigil.db"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b.URL, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	dump, err := os.ReadFile(filepath.Join("testdata", "upgrade", "postgres.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for _, line := range strings.Split(string(dump), "\n") {
		if strings.HasPrefix(line, `\`) || strings.Contains(line, "set_config('search_path'") || strings.HasPrefix(line, "CREATE SCHEMA ") {
			continue
		}
		script.WriteString(strings.ReplaceAll(line, "sigil_upgrade_fixture.", ""))
		script.WriteString("\n")
	}
	db, err := sql.Open("pgx", b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script.String()); err != nil {
		t.Fatal(err)
	}
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}
