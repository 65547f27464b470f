package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

// overLimit fails the test unless err is the reference's answer to a resource limit: RESOURCE_EXHAUSTED, HTTP 429.
func overLimit(t *testing.T, what string, err error) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.ResourceExhausted || e.Code.HTTPStatus() != 429 {
		t.Fatalf("%s past its limit: %v, want RESOURCE_EXHAUSTED (429)", what, err)
	}
}

func mustOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestOrganizationLimits fills an organization to each of the reference's limits (at the limit succeeds, one more is
// refused with RESOURCE_EXHAUSTED), and shows that wallet accounts have none: a wallet takes more than the 1,000 it
// used to be refused past.
func TestOrganizationLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org := s.boot.OrganizationID

		// Wallets: 100.
		var first string
		for i := range 100 {
			w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: fmt.Sprint("w", i), Accounts: []api.WalletAccountParams{ethAccount()}})
			mustOK(t, fmt.Sprint("wallet ", i), err)
			if i == 0 {
				first = w.WalletID
			}
		}
		_, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "one more", Accounts: []api.WalletAccountParams{ethAccount()}})
		overLimit(t, "the 101st wallet", err)

		// Wallet accounts: none. 1,100 in one wallet, where 1,000 were the most.
		for batch := range 11 {
			accounts := make([]api.WalletAccountParams, 100)
			for i := range accounts {
				accounts[i] = ethAccount()
				accounts[i].Path = fmt.Sprintf("m/44'/60'/0'/0/%d", 1+batch*100+i)
			}
			_, _, err := s.root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: first, Accounts: accounts})
			mustOK(t, fmt.Sprint("accounts batch ", batch), err)
		}
		// A wallet still has one account per curve, path and address format, stored or in the same request.
		_, _, err = s.root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: first, Accounts: []api.WalletAccountParams{ethAccount()}})
		if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != apierr.InvalidArgument {
			t.Fatalf("an account the wallet has: %v, want INVALID_ARGUMENT", err)
		}
		twice := ethAccount()
		twice.Path = "m/44'/60'/0'/0/5000"
		_, _, err = s.root.CreateWalletAccounts(ctx, org, api.CreateWalletAccountsIntent{WalletID: first, Accounts: []api.WalletAccountParams{twice, twice}})
		if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != apierr.InvalidArgument {
			t.Fatalf("one account twice in a request: %v, want INVALID_ARGUMENT", err)
		}

		// Policies: 100.
		for i := range 100 {
			_, _, err := s.root.CreatePolicy(ctx, org, api.CreatePolicyIntentV3{PolicyName: fmt.Sprint("p", i), Effect: api.EffectAllow, Condition: "false"})
			mustOK(t, fmt.Sprint("policy ", i), err)
		}
		_, _, err = s.root.CreatePolicy(ctx, org, api.CreatePolicyIntentV3{PolicyName: "one more", Effect: api.EffectAllow, Condition: "false"})
		overLimit(t, "the 101st policy", err)

		// Users: 100, the root user among them.
		users := make([]api.UserParamsV4, 99)
		for i := range users {
			users[i] = api.UserParamsV4{UserName: fmt.Sprint("u", i), APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
				OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}
		}
		_, _, err = s.root.CreateUsers(ctx, org, api.CreateUsersIntentV4{Users: users})
		mustOK(t, "99 users", err)
		_, _, err = s.root.CreateUsers(ctx, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "one more", APIKeys: []api.APIKeyParamsV2{},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
		overLimit(t, "the 101st user", err)

		// Tags: 100, user and private key tags together.
		for i := range 60 {
			_, _, err := s.root.CreateUserTag(ctx, org, api.CreateUserTagIntent{UserTagName: fmt.Sprint("t", i), UserIDs: []string{}})
			mustOK(t, fmt.Sprint("user tag ", i), err)
		}
		for i := range 40 {
			_, _, err := s.root.CreatePrivateKeyTag(ctx, org, api.CreatePrivateKeyTagIntent{PrivateKeyTagName: fmt.Sprint("k", i), PrivateKeyIDs: []string{}})
			mustOK(t, fmt.Sprint("private key tag ", i), err)
		}
		_, _, err = s.root.CreateUserTag(ctx, org, api.CreateUserTagIntent{UserTagName: "one more", UserIDs: []string{}})
		overLimit(t, "the 101st tag", err)

		// Private keys: 1,000.
		for batch := range 10 {
			keys := make([]api.PrivateKeyParams, 100)
			for i := range keys {
				keys[i] = api.PrivateKeyParams{PrivateKeyName: fmt.Sprint("key ", batch*100+i), Curve: "CURVE_ED25519", AddressFormats: []string{}, PrivateKeyTags: []string{}}
			}
			_, _, err := s.root.CreatePrivateKeys(ctx, org, api.CreatePrivateKeysIntentV2{PrivateKeys: keys})
			mustOK(t, fmt.Sprint("private keys batch ", batch), err)
		}
		_, _, err = s.root.CreatePrivateKeys(ctx, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{PrivateKeyName: "one more",
			Curve: "CURVE_ED25519", AddressFormats: []string{}, PrivateKeyTags: []string{}}}})
		overLimit(t, "the 1,001st private key", err)

		// A sub-organization holds 10 tags.
		threshold := int32(1)
		_, rootKey := newKey(t, stamp.CurveP256)
		subKey, _ := newKey(t, stamp.CurveP256)
		rootKey.PublicKey = subKey.PublicKeyHex()
		sub, _, err := s.root.CreateSubOrganization(ctx, org, api.CreateSubOrganizationIntentV8{SubOrganizationName: "sub", RootQuorumThreshold: &threshold,
			RootUsers: []api.RootUserParamsV5{{UserName: "root", APIKeys: []api.APIKeyParamsV2{rootKey}, Authenticators: []api.AuthenticatorParamsV2{},
				OauthProviders: []api.OauthProviderParamsV2{}}}})
		mustOK(t, "sub-organization", err)
		subRoot := s.client(subKey)
		for i := range 10 {
			_, _, err := subRoot.CreateUserTag(ctx, sub.SubOrganizationID, api.CreateUserTagIntent{UserTagName: fmt.Sprint("t", i), UserIDs: []string{}})
			mustOK(t, fmt.Sprint("sub-organization tag ", i), err)
		}
		_, _, err = subRoot.CreateUserTag(ctx, sub.SubOrganizationID, api.CreateUserTagIntent{UserTagName: "one more", UserIDs: []string{}})
		overLimit(t, "a sub-organization's 11th tag", err)
	})
}

// TestUserCredentialLimits fills one user to each per-user limit: 10 API keys that never expire, 10 authenticators,
// 10 OAuth providers, each refused past it; and 10 expiring keys, past which a new expiring key takes the place of an
// expired one when there is one, else of the oldest, as the reference does.
func TestUserCredentialLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		clk := newClock()
		s := newStackAt(t, b, clk)
		org := s.boot.OrganizationID
		userID, _ := s.createUser(org, s.root, "holder") // one API key that never expires

		key := func(expires string) api.APIKeyParamsV2 {
			_, p := newKey(t, stamp.CurveP256)
			p.ExpirationSeconds = expires
			return p
		}
		addKey := func(p api.APIKeyParamsV2) error {
			_, _, err := s.root.CreateAPIKeys(ctx, org, api.CreateAPIKeysIntentV2{UserID: userID, APIKeys: []api.APIKeyParamsV2{p}})
			return err
		}
		for i := range 9 {
			mustOK(t, fmt.Sprint("long-lived key ", i), addKey(key("")))
		}
		overLimit(t, "the 11th key that never expires", addKey(key("")))

		// Expiring keys: 10, the first created to expire first.
		var expiring []string
		for i := range 10 {
			p := key("3600")
			if i == 0 {
				p.ExpirationSeconds = "60"
			}
			mustOK(t, fmt.Sprint("expiring key ", i), addKey(p))
			expiring = append(expiring, p.PublicKey)
			clk.Advance(time.Second) // each key older than the next
		}
		keys := func() []string {
			res, err := s.root.GetAPIKeys(ctx, org, userID)
			mustOK(t, "get_api_keys", err)
			var out []string
			for _, k := range res.APIKeys {
				if k.ExpirationSeconds != "" {
					out = append(out, k.Credential.PublicKey)
				}
			}
			return out
		}
		// None expired: the 11th replaces the oldest (the first).
		eleventh := key("3600")
		mustOK(t, "the 11th expiring key", addKey(eleventh))
		if got := keys(); len(got) != 10 || slices.Contains(got, expiring[0]) || !slices.Contains(got, eleventh.PublicKey) {
			t.Fatalf("expiring keys after the 11th: %v; want the first (%s) replaced", got, expiring[0])
		}
		// One expired (the second, made to last 60 s), however new: it is replaced before the oldest.
		clk.Advance(time.Minute)
		p := key("60")
		mustOK(t, "a short expiring key", addKey(p))
		clk.Advance(2 * time.Minute) // p has expired; the others have not
		twelfth := key("3600")
		mustOK(t, "the 12th expiring key", addKey(twelfth))
		got := keys()
		if len(got) != 10 || slices.Contains(got, p.PublicKey) || !slices.Contains(got, twelfth.PublicKey) {
			t.Fatalf("expiring keys after the 12th: %v; want the expired %s replaced", got, p.PublicKey)
		}

		// Authenticators: 10.
		for range 10 {
			s.addPasskey(org, userID)
		}
		_, _, err := s.root.CreateAuthenticators(ctx, org, api.CreateAuthenticatorsIntentV2{UserID: userID, Authenticators: []api.AuthenticatorParamsV2{passkeyParams(t)}})
		overLimit(t, "the 11th authenticator", err)

		// OAuth providers: 10.
		provider := func(i int) api.OauthProviderParamsV2 {
			return api.OauthProviderParamsV2{ProviderName: "Google", OidcClaims: &api.OidcClaims{Iss: "https://accounts.google.com", Sub: fmt.Sprint("sub-", i), Aud: "app"}}
		}
		for i := range 10 {
			_, _, err := s.root.CreateOauthProviders(ctx, org, api.CreateOauthProvidersIntentV2{UserID: userID, OauthProviders: []api.OauthProviderParamsV2{provider(i)}})
			mustOK(t, fmt.Sprint("OAuth provider ", i), err)
		}
		_, _, err = s.root.CreateOauthProviders(ctx, org, api.CreateOauthProvidersIntentV2{UserID: userID, OauthProviders: []api.OauthProviderParamsV2{provider(10)}})
		overLimit(t, "the 11th OAuth provider", err)
	})
}

// passkeyParams registers a new software passkey and returns its registration as CREATE_AUTHENTICATORS takes it.
func passkeyParams(t *testing.T) api.AuthenticatorParamsV2 {
	t.Helper()
	passkey, err := softauthn.New("app.example", "https://app.example")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := passkey.Register(softauthn.NewChallenge())
	if err != nil {
		t.Fatal(err)
	}
	var params api.AuthenticatorParamsV2
	raw, _ := json.Marshal(reg)
	_ = json.Unmarshal(raw, &params)
	params.AuthenticatorName = "passkey"
	return params
}
