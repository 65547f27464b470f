package coordinator_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/bench"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// TestLargeOrganization is an organization of 30,000 wallet accounts in one wallet and 30,000 sub-organizations
// (written as rows, as a long-lived deposit-address service would have made them): signing by a real account's address
// and by its id, finding any account by address or path, paging to the end of the wallet in pages of 100 that neither
// skip nor repeat an account, a new account after them all, list_suborgs by a sub-organization's address, and its last
// page. What it costs is measured by sigil bench --org-size (package bench), not here.
func TestLargeOrganization(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		const n = 30_000
		ctx := context.Background()
		s := newStack(t, b)
		raw, err := sql.Open(map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[b.Name], b.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		org := s.boot.OrganizationID
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "deposits", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		if err := bench.SeedAccounts(raw, b.Name, org, w.WalletID, 2, n+1); err != nil {
			t.Fatal(err)
		}
		if err := bench.SeedSubOrgs(raw, b.Name, org, n); err != nil {
			t.Fatal(err)
		}
		newest := newSubOrgIntent(t, "newest")
		newest.Wallet = &api.WalletParams{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}}
		sub, _, err := s.root.CreateSubOrganization(ctx, org, newest)
		if err != nil {
			t.Fatal(err)
		}

		// Signing, by address and by id.
		got, err := s.root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: org, WalletID: w.WalletID, Address: w.Addresses[0]})
		if err != nil {
			t.Fatal(err)
		}
		for _, signWith := range []string{w.Addresses[0], strings.ToLower(w.Addresses[0]), got.Account.WalletAccountID} {
			if _, _, err := s.root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: signWith, Payload: "0x" + strings.Repeat("cd", 32),
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
				t.Fatalf("signing with %s among %d accounts: %v", signWith, n, err)
			}
		}
		// Any account by address and by path.
		prefix := strings.ReplaceAll(org, "-", "")[:8]
		filler := fmt.Sprintf("0x%s%032x", prefix, 12_345)
		a, err := s.root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: org, WalletID: w.WalletID, Address: filler})
		if err != nil || a.Account.Path != "m/44'/60'/1'/0/12345" {
			t.Fatalf("get_wallet_account of a filler: %+v, %v", a, err)
		}
		a, err = s.root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: org, WalletID: w.WalletID, Path: "m/44'/60'/1'/0/29999"})
		if err != nil || a.Account.Address != fmt.Sprintf("0x%s%032x", prefix, 29_999) {
			t.Fatalf("get_wallet_account by path: %+v, %v", a, err)
		}
		// Every page, to the end: no account skipped or repeated.
		seen, after := map[string]bool{}, ""
		for pages := 0; ; pages++ {
			page, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
				PaginationOptions: &api.Pagination{Limit: "100", After: after}})
			if err != nil {
				t.Fatalf("page %d: %v", pages, err)
			}
			for _, a := range page.Accounts {
				if seen[a.WalletAccountID] {
					t.Fatalf("page %d repeats %s", pages, a.WalletAccountID)
				}
				seen[a.WalletAccountID] = true
			}
			if len(page.Accounts) < 100 {
				break
			}
			after = page.Accounts[len(page.Accounts)-1].WalletAccountID
		}
		if len(seen) != n+1 {
			t.Fatalf("%d accounts paged, want %d", len(seen), n+1)
		}
		// One more, after them all.
		next := ethAccount()
		next.Path = "m/44'/60'/0'/0/1"
		added, _, err := s.root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: []api.WalletAccountParams{next}})
		if err != nil {
			t.Fatal(err)
		}
		last, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
			PaginationOptions: &api.Pagination{Limit: "100", After: after}})
		if err != nil || last.Accounts[len(last.Accounts)-1].Address != added.Addresses[0] {
			t.Fatalf("the last page after adding an account: %v, %v", last, err)
		}

		// Sub-organizations: found by their wallet's address among 30,000, and the last page.
		found, err := s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: org, FilterType: "WALLET_ACCOUNT_ADDRESS", FilterValue: sub.Wallet.Addresses[0]})
		if err != nil || len(found.OrganizationIDs) != 1 || found.OrganizationIDs[0] != sub.SubOrganizationID {
			t.Fatalf("list_suborgs by address: %+v, %v; want %s", found, err, sub.SubOrganizationID)
		}
		var beforeLast string
		if err := raw.QueryRow(rebindFor(b.Name, "SELECT id FROM organizations WHERE parent_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 3"), org).Scan(&beforeLast); err != nil {
			t.Fatal(err)
		}
		end, err := s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "10", After: beforeLast}})
		if err != nil || len(end.OrganizationIDs) != 3 || end.OrganizationIDs[2] != sub.SubOrganizationID {
			t.Fatalf("the last page of sub-organizations: %+v, %v", end, err)
		}
	})
}

// newSubOrgIntent is a sub-organization of one root user with an API key, as a sign-up makes.
func newSubOrgIntent(t testing.TB, name string) api.CreateSubOrganizationIntentV8 {
	threshold := int32(1)
	_, key := newKey(t, stamp.CurveP256)
	return api.CreateSubOrganizationIntentV8{SubOrganizationName: name, RootQuorumThreshold: &threshold,
		RootUsers: []api.RootUserParamsV5{{UserName: "end user", APIKeys: []api.APIKeyParamsV2{key},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}}
}

func rebindFor(backend, q string) string {
	if backend == "sqlite" {
		return q
	}
	for i := 1; strings.Contains(q, "?"); i++ {
		q = strings.Replace(q, "?", "$"+strconv.Itoa(i), 1)
	}
	return q
}
