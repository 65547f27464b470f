package coordinator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

func TestCreateAPIOnlyUsers(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	key, _ := newKey(t, stamp.CurveP256)
	res, _, err := s.root.CreateAPIOnlyUsers(bg, org, api.CreateAPIOnlyUsersIntent{APIOnlyUsers: []api.APIOnlyUserParams{{
		UserName: "robot", UserTags: []string{}, APIKeys: []api.APIKeyParams{{APIKeyName: "robot key", PublicKey: key.PublicKeyHex()}}}}})
	if err != nil || len(res.UserIDs) != 1 {
		t.Fatalf("create_api_only_users: %+v %v", res, err)
	}
	who, err := s.client(key).Whoami(context.Background(), org)
	if err != nil || who.UserID != res.UserIDs[0] {
		t.Fatalf("the API-only user's key: %+v %v", who, err)
	}
	_, _, err = s.root.CreateAPIOnlyUsers(bg, org, api.CreateAPIOnlyUsersIntent{APIOnlyUsers: []api.APIOnlyUserParams{{
		UserName: "bad", UserTags: []string{}, APIKeys: []api.APIKeyParams{{APIKeyName: "k", PublicKey: "02ab"}}}}})
	if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "parameters.apiOnlyUsers[0].apiKeys[0].publicKey") {
		t.Errorf("a bad key: %v", err)
	}
}

func TestDeleteWalletAccounts(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		accounts, err := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		if err != nil || len(accounts.Accounts) != 1 {
			t.Fatal(accounts, err)
		}
		id := accounts.Accounts[0].WalletAccountID
		if _, _, err := s.root.DeleteWalletAccounts(bg, org, api.DeleteWalletAccountsIntent{WalletAccountIDs: []string{id}}); err == nil || !strings.Contains(err.Error(), "never been exported") {
			t.Fatalf("deleting an account of a wallet never exported: %v", err)
		}
		yes := true
		if _, _, err := s.root.DeleteWalletAccounts(bg, org, api.DeleteWalletAccountsIntent{WalletAccountIDs: []string{id}, DeleteWithoutExport: &yes}); err != nil {
			t.Fatal(err)
		}
		accounts, _ = s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		if len(accounts.Accounts) != 0 {
			t.Fatalf("accounts after the deletion: %+v", accounts.Accounts)
		}
		if _, _, err := s.root.DeleteWalletAccounts(bg, org, api.DeleteWalletAccountsIntent{WalletAccountIDs: []string{id}, DeleteWithoutExport: &yes}); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("deleting it again: %v", err)
		}
	})
}
