package coordinator_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"sigil/api"
	"sigil/apierr"
	"sigil/internal/testdb"
	"sigil/keys"
)

// Every address format of the public API derives a wallet account at the official SDKs' default path, and its
// address is the keys package's of the account's public key; a private key gets every format of its curve.
func TestEveryAddressFormat(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		var accounts []api.WalletAccountParams
		byCurve := map[keys.Curve][]string{}
		for _, f := range keys.AddressFormats() {
			for _, c := range f.Curves {
				byCurve[c] = append(byCurve[c], string(f.Format))
			}
			if f.DefaultPath == "" {
				continue
			}
			accounts = append(accounts, api.WalletAccountParams{Curve: string(f.Curves[0]), PathFormat: "PATH_FORMAT_BIP32",
				Path: f.DefaultPath, AddressFormat: string(f.Format)})
		}
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "every format", Accounts: accounts})
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID,
			PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Accounts) != len(accounts) || len(w.Addresses) != len(accounts) {
			t.Fatalf("%d accounts listed, %d addresses, want %d", len(list.Accounts), len(w.Addresses), len(accounts))
		}
		for _, a := range list.Accounts {
			pub, _ := hex.DecodeString(a.PublicKey)
			want, err := keys.Address(keys.Curve(a.Curve), keys.AddressFormat(a.AddressFormat), pub)
			if err != nil || a.Address != want {
				t.Errorf("%s: address %s, want %s (%v)", a.AddressFormat, a.Address, want, err)
			}
			if a.Path != keys.DefaultPath(keys.AddressFormat(a.AddressFormat)) {
				t.Errorf("%s: path %s", a.AddressFormat, a.Path)
			}
		}
		for _, c := range []keys.Curve{keys.CurveSecp256k1, keys.CurveEd25519, keys.CurveP256} {
			res, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
				PrivateKeyName: "every format " + string(c), Curve: string(c), PrivateKeyTags: []string{}, AddressFormats: byCurve[c]}}})
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if got := len(res.PrivateKeys[0].Addresses); got != len(byCurve[c]) {
				t.Errorf("%s: %d addresses, want %d", c, got, len(byCurve[c]))
			}
		}

		// A format on a curve it does not fit is refused by name, before anything is derived.
		for _, bad := range []api.WalletAccountParams{
			{Curve: "CURVE_P256", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"},
			{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/195'/0'", AddressFormat: "ADDRESS_FORMAT_TRON"},
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/0'/0'", AddressFormat: "ADDRESS_FORMAT_LITECOIN"},
		} {
			_, _, err := s.root.CreateWalletAccounts(bg, org, api.CreateWalletAccountsIntent{WalletID: w.WalletID, Accounts: []api.WalletAccountParams{bad}})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, bad.AddressFormat) {
				t.Errorf("%s on %s: %v", bad.AddressFormat, bad.Curve, err)
			}
		}
	})
}
