package coordinator_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/testdb"
)

// TestPagingStableWhileRowsAreAdded pages through a wallet's accounts and a parent's sub-organizations while more are
// added between the pages: every one that was there is seen once, in creation order, the new ones come at the end,
// a page backward (before) is the page forward's mirror, and a cursor that names nothing of the organization is
// refused.
func TestPagingStableWhileRowsAreAdded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org := s.boot.OrganizationID
		paths := func(from, to int) []api.WalletAccountParams {
			var out []api.WalletAccountParams
			for i := from; i < to; i++ {
				a := ethAccount()
				a.Path = fmt.Sprintf("m/44'/60'/0'/0/%d", i)
				out = append(out, a)
			}
			return out
		}
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: paths(0, 25)})
		if err != nil {
			t.Fatal(err)
		}
		var order []string // addresses in creation order
		order = append(order, w.Addresses...)
		var seen []string
		after := ""
		for page := 0; ; page++ {
			res, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
				PaginationOptions: &api.Pagination{Limit: "10", After: after}})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range res.Accounts {
				seen = append(seen, a.Address)
			}
			if page < 3 { // more accounts between the pages
				added, _, err := s.root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: paths(100+page*5, 105+page*5)})
				if err != nil {
					t.Fatal(err)
				}
				order = append(order, added.Addresses...)
			}
			if len(res.Accounts) < 10 {
				break
			}
			after = res.Accounts[len(res.Accounts)-1].WalletAccountID
		}
		if !slices.Equal(seen, order) {
			t.Fatalf("paged while adding:\n got %v\nwant %v", seen, order)
		}
		// Backward from the last account: the 10 before it, in order.
		all, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID, PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		lastID := all.Accounts[len(all.Accounts)-1].WalletAccountID
		back, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
			PaginationOptions: &api.Pagination{Limit: "10", Before: lastID}})
		if err != nil {
			t.Fatal(err)
		}
		var backAddrs []string
		for _, a := range back.Accounts {
			backAddrs = append(backAddrs, a.Address)
		}
		if want := order[len(order)-11 : len(order)-1]; !slices.Equal(backAddrs, want) {
			t.Fatalf("the page before the last account:\n got %v\nwant %v", backAddrs, want)
		}
		// A cursor of no account of the organization.
		_, err = s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{After: "00000000-0000-4000-8000-000000000000"}})
		if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != apierr.NotFound {
			t.Fatalf("a cursor naming no account: %v, want NOT_FOUND", err)
		}

		// Sub-organizations, created between the pages.
		var subs []string
		for i := range 12 {
			res, _, err := s.root.CreateSubOrganization(ctx, org, newSubOrgIntent(t, fmt.Sprint("sub ", i)))
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, res.SubOrganizationID)
		}
		var seenSubs []string
		after = ""
		for page := 0; ; page++ {
			res, err := s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "5", After: after}})
			if err != nil {
				t.Fatal(err)
			}
			seenSubs = append(seenSubs, res.OrganizationIDs...)
			if page < 2 {
				more, _, err := s.root.CreateSubOrganization(ctx, org, newSubOrgIntent(t, fmt.Sprint("between ", page)))
				if err != nil {
					t.Fatal(err)
				}
				subs = append(subs, more.SubOrganizationID)
			}
			if len(res.OrganizationIDs) < 5 {
				break
			}
			after = res.OrganizationIDs[len(res.OrganizationIDs)-1]
		}
		if !slices.Equal(seenSubs, subs) {
			t.Fatalf("sub-organizations paged while adding:\n got %v\nwant %v", seenSubs, subs)
		}
	})
}
