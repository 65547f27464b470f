package coordinator_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// upgradeFixtureMasterKey seals the key material of the committed upgrade fixtures (testdata/upgrade): test data, no
// secret.
const upgradeFixtureMasterKey = "534947494c2075706772616465206669787475726520323032362d31322d3031"

// upgradeFixture is what TestWriteUpgradeFixture records beside the database it wrote, for TestUpgradeInPlace to
// compare with what the upgraded database answers.
type upgradeFixture struct {
	OrganizationID    string                         `json:"organizationId"`
	SubOrganizationID string                         `json:"subOrganizationId"`
	APIKeyPrivate     string                         `json:"apiKeyPrivate"` // the root user's P-256 API key, hex
	Wallets           []string                       `json:"wallets"`
	Addresses         []string                       `json:"addresses"` // one per wallet, first account
	PrivateKeyAddress string                         `json:"privateKeyAddress"`
	SubOrgAddress     string                         `json:"subOrgAddress"`
	Organization      json.RawMessage                `json:"organization"`
	WalletList        json.RawMessage                `json:"walletList"`
	AccountsByWallet  map[string]json.RawMessage     `json:"accountsByWallet"`
	AllAccounts       json.RawMessage                `json:"allAccounts"`
	AccountByAddress  map[string]json.RawMessage     `json:"accountByAddress"`
	SubOrgsByAddress  map[string][]string            `json:"subOrgsByAddress"`
	SubOrgAccounts    json.RawMessage                `json:"subOrgAccounts"`
	Extra             map[string]map[string][]string `json:"extra,omitempty"`
}

// TestWriteUpgradeFixture writes a database with the release that wrote it, for the upgrade tests of later releases:
// SIGIL_UPGRADE_FIXTURE_DB names the database (a SQLite file or a PostgreSQL URL), SIGIL_UPGRADE_FIXTURE_OUT the file of
// what it answers (upgradeFixture). Skipped unless both are set.
func TestWriteUpgradeFixture(t *testing.T) {
	dbURL, out := os.Getenv("SIGIL_UPGRADE_FIXTURE_DB"), os.Getenv("SIGIL_UPGRADE_FIXTURE_OUT")
	if dbURL == "" || out == "" {
		t.Skip("SIGIL_UPGRADE_FIXTURE_DB and SIGIL_UPGRADE_FIXTURE_OUT name the fixture to write")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, dbURL, filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, _ := hex.DecodeString(upgradeFixtureMasterKey)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	coord := coordinator.New(s, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring})
	if err := coord.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	defer srv.Close()
	boot, err := coord.CreateRootOrganization(ctx, "Upgrade fixture", "root")
	if err != nil {
		t.Fatal(err)
	}
	root := client.New(srv.URL, boot.APIKey)
	root.PollInterval = 10 * time.Millisecond
	org := boot.OrganizationID
	f := upgradeFixture{OrganizationID: org, APIKeyPrivate: boot.APIKey.PrivateKeyHex(),
		AccountsByWallet: map[string]json.RawMessage{}, AccountByAddress: map[string]json.RawMessage{}, SubOrgsByAddress: map[string][]string{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	eth := func(i int) api.WalletAccountParams {
		return api.WalletAccountParams{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: "m/44'/60'/0'/0/" + itoa(i), AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}
	}
	sol := api.WalletAccountParams{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/501'/0'/0'", AddressFormat: "ADDRESS_FORMAT_SOLANA"}
	btc := api.WalletAccountParams{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/0'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"}
	// Two wallets, accounts added in three activities, one deleted, so that the order of accounts is not the order of
	// their wallets.
	w1, _, err := root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "treasury", Accounts: []api.WalletAccountParams{eth(0), eth(1), sol}})
	must(err)
	w2, _, err := root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "deposits", Accounts: []api.WalletAccountParams{eth(0), btc}})
	must(err)
	named := eth(2)
	named.Name = "named account"
	_, _, err = root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: w1.WalletID, Accounts: []api.WalletAccountParams{named, eth(3)}})
	must(err)
	accounts, err := root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w1.WalletID})
	must(err)
	yes := true
	_, _, err = root.DeleteWalletAccounts(ctx, org, api.DeleteWalletAccountsIntent{WalletAccountIDs: []string{accounts.Accounts[1].WalletAccountID}, DeleteWithoutExport: &yes})
	must(err)
	pk, _, err := root.CreatePrivateKeys(ctx, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{PrivateKeyName: "hot key",
		Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}, PrivateKeyTags: []string{}}}})
	must(err)
	threshold := int32(1)
	subKey, err := stamp.GenerateAPIKey(stamp.CurveP256)
	must(err)
	sub, _, err := root.CreateSubOrganization(ctx, org, api.CreateSubOrganizationIntentV8{SubOrganizationName: "customer 1",
		RootQuorumThreshold: &threshold, RootUsers: []api.RootUserParamsV5{{UserName: "customer", APIKeys: []api.APIKeyParamsV2{{
			APIKeyName: "k", PublicKey: subKey.PublicKeyHex(), CurveType: api.CurveP256}}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParamsV2{}}},
		Wallet: &api.WalletParams{WalletName: "default", Accounts: []api.WalletAccountParams{eth(0), sol}}})
	must(err)
	_, _, err = root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: w1.Addresses[0], Payload: "deadbeef",
		Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_KECCAK256"})
	must(err)

	f.SubOrganizationID = sub.SubOrganizationID
	f.Wallets = []string{w1.WalletID, w2.WalletID}
	f.Addresses = []string{w1.Addresses[0], w2.Addresses[0]}
	f.PrivateKeyAddress = pk.PrivateKeys[0].Addresses[0].Address
	f.SubOrgAddress = sub.Wallet.Addresses[0]
	raw := func(v any, err error) json.RawMessage {
		t.Helper()
		must(err)
		b, err := json.Marshal(v)
		must(err)
		return b
	}
	f.Organization = raw(root.GetOrganization(ctx, org))
	f.WalletList = raw(root.ListWallets(ctx, org))
	for _, w := range f.Wallets {
		f.AccountsByWallet[w] = raw(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w,
			PaginationOptions: &api.Pagination{Limit: "100"}}))
	}
	f.AllAccounts = raw(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "100"}}))
	for i, a := range f.Addresses {
		f.AccountByAddress[a] = raw(root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: org, WalletID: f.Wallets[i], Address: a}))
	}
	f.SubOrgAccounts = raw(root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: sub.SubOrganizationID}))
	for _, a := range []string{f.SubOrgAddress, f.Addresses[0]} {
		res, err := root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: org, FilterType: "WALLET_ACCOUNT_ADDRESS", FilterValue: a})
		must(err)
		f.SubOrgsByAddress[a] = res.OrganizationIDs
	}
	data, err := json.MarshalIndent(f, "", "  ")
	must(err)
	must(os.WriteFile(out, append(data, '\n'), 0o644))
}

func itoa(i int) string { return string(rune('0' + i)) }
