package coordinator_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// TestConcurrentWritesOfOneOrganization sends writes of one organization at once (on PostgreSQL through two
// processes), whose keys are derived ahead of their transactions against the same cached document, and checks that
// what must be unique and what is limited stays so: the same accounts asked for by eight requests are added once,
// eight requests adding different accounts all land with places of their own, the wallets past the limit are refused,
// and one private key name is taken once.
func TestConcurrentWritesOfOneOrganization(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org := s.boot.OrganizationID
		urls := []string{s.srv.URL}
		if b.Name == "postgres" {
			urls = append(urls, secondCoordinator(t, s, b).URL)
		}
		clients := make([]*client.Client, 8)
		for i := range clients {
			clients[i] = client.New(urls[i%len(urls)], s.boot.APIKey)
			clients[i].Now = s.stamps.Now
		}
		at := func(paths ...int) []api.WalletAccountParams {
			out := make([]api.WalletAccountParams, len(paths))
			for i, p := range paths {
				out[i] = ethAccount()
				out[i].Path = fmt.Sprintf("m/44'/60'/0'/0/%d", p)
			}
			return out
		}
		all := func(f func(i int, c *client.Client) error) []error {
			errs := make([]error, len(clients))
			var wg sync.WaitGroup
			for i, c := range clients {
				wg.Go(func() { errs[i] = f(i, c) })
			}
			wg.Wait()
			return errs
		}
		succeeded := func(errs []error, refused apierr.Code) int {
			t.Helper()
			n := 0
			for _, err := range errs {
				var e *apierr.Error
				switch {
				case err == nil:
					n++
				case !errors.As(err, &e) || e.Code != refused:
					t.Fatalf("a concurrent write: %v, want success or code %d", err, refused)
				}
			}
			return n
		}
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: at(0)})
		if err != nil {
			t.Fatal(err)
		}

		// The same ten accounts, eight times at once: added once.
		errs := all(func(_ int, c *client.Client) error {
			_, _, err := c.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: at(100, 101, 102, 103, 104, 105, 106, 107, 108, 109)})
			return err
		})
		if n := succeeded(errs, apierr.InvalidArgument); n != 1 {
			t.Fatalf("%d of 8 requests for the same accounts succeeded, want 1", n)
		}
		// Different accounts, eight requests at once: all of them, each account once.
		errs = all(func(i int, c *client.Client) error {
			_, _, err := c.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: at(200+2*i, 201+2*i)})
			return err
		})
		if n := succeeded(errs, apierr.InvalidArgument); n != 8 {
			t.Fatalf("%d of 8 requests for different accounts succeeded, want 8", n)
		}
		list, err := s.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID, PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		paths := map[string]bool{}
		for _, a := range list.Accounts {
			if paths[a.Path] {
				t.Fatalf("the account at %s twice", a.Path)
			}
			paths[a.Path] = true
		}
		if len(list.Accounts) != 1+10+16 {
			t.Fatalf("%d accounts, want 27", len(list.Accounts))
		}

		// Wallets: 97 more (98 with the first), then eight at once for the last two places.
		for i := range 97 {
			if _, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: fmt.Sprint("filler ", i), Accounts: at(0)}); err != nil {
				t.Fatal(err)
			}
		}
		errs = all(func(i int, c *client.Client) error {
			_, _, err := c.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: fmt.Sprint("racing ", i), Accounts: at(0)})
			return err
		})
		if n := succeeded(errs, apierr.ResourceExhausted); n != 2 {
			t.Fatalf("%d of 8 wallets for the last 2 places were created, want 2", n)
		}
		wallets, err := s.root.ListWallets(ctx, org)
		if err != nil || len(wallets.Wallets) != 100 {
			t.Fatalf("%d wallets, %v; want 100", len(wallets.Wallets), err)
		}

		// One private key name, eight times at once: taken once.
		errs = all(func(_ int, c *client.Client) error {
			_, _, err := c.CreatePrivateKeys(ctx, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{PrivateKeyName: "hot",
				Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}, PrivateKeyTags: []string{}}}})
			return err
		})
		if n := succeeded(errs, apierr.AlreadyExists); n != 1 {
			t.Fatalf("%d of 8 private keys named alike were created, want 1", n)
		}
	})
}
