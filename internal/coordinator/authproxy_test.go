package coordinator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/clientsig"
)

// proxyStack is an OTP stack whose coordinator knows an auth proxy service identity.
type proxyStack struct {
	*otpStack
	id *authproxy.Identity
}

func newProxyStack(t *testing.T, b testdb.Backend) *proxyStack {
	t.Helper()
	id, err := authproxy.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	s := newOTPStack(t, b, coordinator.Config{AuthProxy: &coordinator.AuthProxyService{
		EncryptionKey: id.EncryptionPublicKey(), ServiceKey: id.ServicePublicKey()}})
	return &proxyStack{otpStack: s, id: id}
}

// service is a client stamping with the proxy service's key.
func (s *proxyStack) service() *client.Client { return s.clientFor(s.id.ServiceKey) }

// proxyKey resolves a configuration and opens its proxy key as the proxy does.
func (s *proxyStack) proxyKey(configID string) (*api.ResolveAuthProxyConfigResponse, *stamp.APIKey) {
	s.t.Helper()
	res, err := s.service().ResolveAuthProxyConfig(context.Background(), configID)
	if err != nil {
		s.t.Fatal(err)
	}
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(res.EncryptedProxyKey), &ct); err != nil {
		s.t.Fatal(err)
	}
	raw, err := bundle.Open(s.id.EncryptionKey, ct)
	if err != nil {
		s.t.Fatal(err)
	}
	var p api.AuthProxyKeyPlaintext
	if err := json.Unmarshal(raw, &p); err != nil {
		s.t.Fatal(err)
	}
	if p.ConfigID != configID || p.OrganizationID != s.boot.OrganizationID || p.PublicKey != res.Config.ProxyPublicKey {
		s.t.Fatalf("plaintext binds %+v, want configuration %s of %s", p, configID, s.boot.OrganizationID)
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, p.PrivateKey)
	if err != nil {
		s.t.Fatal(err)
	}
	return res, key
}

func code(err error) apierr.Code {
	if e, ok := err.(*apierr.Error); ok {
		return e.Code
	}
	return -1
}

func TestAuthProxyLifecycle(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newProxyStack(t, b)
		ctx, org := context.Background(), s.boot.OrganizationID
		enabled, _, err := s.root.EnableAuthProxy(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.root.GetAuthProxyConfig(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		cfg := got.Config
		if !cfg.Enabled || cfg.ConfigID != enabled.ConfigID || cfg.ProxyUserID != enabled.UserID || cfg.ProxyPublicKey == "" ||
			strings.Join(cfg.AllowedOrigins, ",") != "*" || strings.Join(cfg.AllowedAuthMethods, ",") != "email" || cfg.SessionExpirationSeconds != 900 {
			t.Fatalf("config after enable: %+v", cfg)
		}
		if _, _, err := s.root.EnableAuthProxy(ctx, org); code(err) != apierr.FailedPrecondition {
			t.Fatalf("second enable: %v", err)
		}

		// The coordinator holds ciphertext only; the proxy key acts as the proxy user, for the proxied activities only.
		res, key := s.proxyKey(cfg.ConfigID)
		if strings.Contains(res.EncryptedProxyKey, key.PrivateKeyHex()) {
			t.Fatal("the resolved configuration holds the proxy key in clear")
		}
		dump, err := s.store.GetOrg(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(dump.Data), key.PrivateKeyHex()) {
			t.Fatal("the organization document holds the proxy key in clear")
		}
		proxy := s.clientFor(key)
		if _, _, err := proxy.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "a@sigil.test", AppName: "App"}); err != nil {
			t.Fatalf("the proxy user could not send a code: %v", err)
		}
		for name, submit := range map[string]func() error{
			"create policy": func() error {
				_, _, err := proxy.CreatePolicy(ctx, org, api.CreatePolicyIntentV3{PolicyName: "mine", Effect: api.EffectAllow, Notes: ""})
				return err
			},
			"create wallet": func() error {
				_, _, err := proxy.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{{
					Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
				return err
			},
			"rotate its own key": func() error { _, _, err := proxy.RotateAuthProxyKey(ctx, org); return err },
			"update the configuration": func() error {
				_, _, err := proxy.UpdateAuthProxyConfig(ctx, org, api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{"https://evil.example"}})
				return err
			},
		} {
			if err := submit(); code(err) != apierr.PermissionDenied {
				t.Errorf("proxy user may %s: %v", name, err)
			}
		}

		// Settings change; invalid ones are refused.
		length, session, no := int32(8), int32(3600), false
		if _, _, err := s.root.UpdateAuthProxyConfig(ctx, org, api.UpdateAuthProxyConfigIntent{
			AllowedOrigins: []string{"https://App.example/", "http://localhost:3000"}, AllowedAuthMethods: []string{"sms", "email", "google"},
			OtpLength: &length, SessionExpirationSeconds: &session, OtpAlphanumeric: &no,
			EmailCustomizationParams: &api.EmailCustomizationParams{AppName: "Demo", LogoURL: "https://app.example/logo.png"},
			WalletKitSettings:        &api.WalletKitSettingsParams{OauthClientIDs: map[string]string{"google": "client-1"}},
		}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.root.GetAuthProxyConfig(ctx, org)
		c := got.Config
		if strings.Join(c.AllowedOrigins, ",") != "http://localhost:3000,https://app.example" || strings.Join(c.AllowedAuthMethods, ",") != "email,google,sms" ||
			c.OtpLength != 8 || c.SessionExpirationSeconds != 3600 || c.OtpAlphanumeric || c.EmailCustomization.AppName != "Demo" ||
			c.WalletKitSettings.OauthClientIDs["google"] != "client-1" || c.OtpExpirationSeconds != 300 {
			t.Fatalf("config after update: %+v", c)
		}
		bad, big := int32(5), int32(601)
		for name, p := range map[string]api.UpdateAuthProxyConfigIntent{
			"star with others": {AllowedOrigins: []string{"*", "https://a.example"}},
			"origin with path": {AllowedOrigins: []string{"https://a.example/app"}},
			"not an origin":    {AllowedOrigins: []string{"a.example"}},
			"unknown method":   {AllowedAuthMethods: []string{"carrier-pigeon"}},
			"short code":       {OtpLength: &bad},
			"long OTP":         {OtpExpirationSeconds: &big},
			"bad sender":       {SendFromEmailAddress: ptr("not an address")},
			"bad template":     {SmsCustomizationParams: &api.SmsCustomizationParams{Template: "{{.Nope"}},
			"bad redirect":     {WalletKitSettings: &api.WalletKitSettingsParams{OauthRedirectURL: ptr("javascript:alert(1)")}},
		} {
			if _, _, err := s.root.UpdateAuthProxyConfig(ctx, org, p); code(err) != apierr.InvalidArgument {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, _, err := s.root.UpdateAuthProxyConfig(ctx, org, api.UpdateAuthProxyConfigIntent{CaptchaEnabled: ptr(true)}); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("captchaEnabled: %v", err)
		}

		// Rotation: the old key stops working at once.
		rotated, _, err := s.root.RotateAuthProxyKey(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		if rotated.PublicKey == key.PublicKeyHex() {
			t.Fatal("rotation kept the key")
		}
		if _, _, err := proxy.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "a@sigil.test", AppName: "App"}); code(err) != apierr.Unauthenticated {
			t.Fatalf("old key after rotation: %v", err)
		}
		_, key2 := s.proxyKey(cfg.ConfigID)
		if key2.PublicKeyHex() != rotated.PublicKey {
			t.Fatal("resolved key is not the rotated one")
		}

		// Disable: no key, resolve says disabled; enable again keeps the id and the user.
		if _, _, err := s.root.DisableAuthProxy(ctx, org); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.clientFor(key2).InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "a@sigil.test", AppName: "App"}); code(err) != apierr.Unauthenticated {
			t.Fatalf("key after disable: %v", err)
		}
		off, err := s.service().ResolveAuthProxyConfig(ctx, cfg.ConfigID)
		if err != nil || off.Config.Enabled || off.EncryptedProxyKey != "" {
			t.Fatalf("resolve after disable: %+v, %v", off, err)
		}
		again, _, err := s.root.EnableAuthProxy(ctx, org)
		if err != nil || again.ConfigID != cfg.ConfigID || again.UserID != cfg.ProxyUserID {
			t.Fatalf("re-enable: %+v, %v", again, err)
		}
		pols, _ := s.root.ListPolicies(ctx, org)
		if n := len(pols.Policies); n != 1 {
			t.Fatalf("%d policies after re-enable, want the proxy's one", n)
		}
	})
}

func TestResolveAuthProxyConfigIsForTheServiceOnly(t *testing.T) {
	t.Parallel()
	s := newProxyStack(t, testdb.SQLite(t))
	ctx := context.Background()
	enabled, _, err := s.root.EnableAuthProxy(ctx, s.boot.OrganizationID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(api.ResolveAuthProxyConfigRequest{ConfigID: enabled.ConfigID})
	forged := append([]byte{}, body...)
	forged[len(forged)-3] ^= 1
	for _, c := range []struct {
		name   string
		body   []byte
		signer stamp.Stamper
		status int
	}{
		{"root user's key", body, s.boot.APIKey, http.StatusForbidden},
		{"no stamp", body, nil, http.StatusUnauthorized},
		{"unknown configuration", []byte(`{"configId":"6f1b8c52-2f44-4a52-9a4b-6d1c3c5d8e90"}`), s.id.ServiceKey, http.StatusNotFound},
		{"not an id", []byte(`{"configId":"nope"}`), s.id.ServiceKey, http.StatusBadRequest},
		{"unknown field", []byte(`{"configId":"` + enabled.ConfigID + `","x":1}`), s.id.ServiceKey, http.StatusBadRequest},
		{"service key", body, s.id.ServiceKey, http.StatusOK},
	} {
		var r response
		if c.signer == nil {
			r = s.post("/public/v1/query/resolve_auth_proxy_config", c.body, http.Header{})
		} else {
			r = s.stamped("/public/v1/query/resolve_auth_proxy_config", c.body, c.signer)
		}
		if r.status != c.status {
			t.Errorf("%s: %d %s", c.name, r.status, r.raw)
		}
	}
	// A stamp over another body does not verify.
	name, value, _ := s.id.ServiceKey.Stamp(forged)
	h := http.Header{}
	h.Set(name, value)
	if r := s.post("/public/v1/query/resolve_auth_proxy_config", body, h); r.status != http.StatusUnauthorized {
		t.Errorf("forged stamp: %d %s", r.status, r.raw)
	}
}

func TestEnableAuthProxyRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Without a proxy service configured.
	plain := newOTPStack(t, testdb.SQLite(t), coordinator.Config{})
	if _, _, err := plain.root.EnableAuthProxy(ctx, plain.boot.OrganizationID); code(err) != apierr.FailedPrecondition {
		t.Fatalf("enable without a proxy service: %v", err)
	}
	// In a sub-organization, and before any enable.
	s := newProxyStack(t, testdb.SQLite(t))
	subKey, params := newKey(t, stamp.CurveP256)
	one := int32(1)
	sub, _, err := s.root.CreateSubOrganization(ctx, s.boot.OrganizationID, api.CreateSubOrganizationIntentV8{SubOrganizationName: "sub",
		RootQuorumThreshold: &one, RootUsers: []api.RootUserParamsV5{{UserName: "u", APIKeys: []api.APIKeyParamsV2{params},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.clientFor(subKey).EnableAuthProxy(ctx, sub.SubOrganizationID); code(err) != apierr.FailedPrecondition {
		t.Fatalf("enable in a sub-organization: %v", err)
	}
	for name, f := range map[string]func() error{
		"rotate":  func() error { _, _, err := s.root.RotateAuthProxyKey(ctx, s.boot.OrganizationID); return err },
		"disable": func() error { _, _, err := s.root.DisableAuthProxy(ctx, s.boot.OrganizationID); return err },
		"update": func() error {
			_, _, err := s.root.UpdateAuthProxyConfig(ctx, s.boot.OrganizationID, api.UpdateAuthProxyConfigIntent{})
			return err
		},
	} {
		if err := f(); code(err) != apierr.FailedPrecondition {
			t.Errorf("%s before enable: %v", name, err)
		}
	}
	if _, err := s.root.GetAuthProxyConfig(ctx, s.boot.OrganizationID); code(err) != apierr.NotFound {
		t.Errorf("get before enable: %v", err)
	}
}

// TestSignupWithVerificationToken: a sub-organization created with a verification token starts with the contact
// verified; a token binding a key needs the client signature over exactly the root user created.
func TestSignupWithVerificationToken(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newProxyStack(t, b)
		ctx, org := context.Background(), s.boot.OrganizationID
		verify := func(email string, bind string) (string, tokens.VerificationClaims) {
			t.Helper()
			init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: email, AppName: "App"})
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: s.lastCode(email), PublicKey: bind})
			if err != nil {
				t.Fatal(err)
			}
			claims, err := tokens.VerifyVerificationToken(res.VerificationToken, s.tokenKey(), s.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			return res.VerificationToken, claims
		}
		clientKey, clientPub := newP256(t)
		_, apiKey := newKey(t, stamp.CurveP256)
		user := func(email string) api.RootUserParamsV5 {
			return api.RootUserParamsV5{UserName: email, UserEmail: email, APIKeys: []api.APIKeyParamsV2{apiKey},
				Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}
		}
		sign := func(claims tokens.VerificationClaims, u api.RootUserParamsV5) *api.ClientSignature {
			keysJSON, _ := json.Marshal(u.APIKeys)
			msg, err := clientsig.SignupMessage(claims.ID, clientsig.SignupUsage{APIKeys: keysJSON, Email: u.UserEmail})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := clientsig.Sign(clientKey, msg)
			if err != nil {
				t.Fatal(err)
			}
			return &cs
		}
		one := int32(1)
		create := func(u api.RootUserParamsV5, tok string, cs *api.ClientSignature) (*api.CreateSubOrganizationResult, *api.Activity, error) {
			return s.root.CreateSubOrganization(ctx, org, api.CreateSubOrganizationIntentV8{SubOrganizationName: "sub " + u.UserEmail,
				RootQuorumThreshold: &one, RootUsers: []api.RootUserParamsV5{u}, VerificationToken: tok, ClientSignature: cs})
		}

		tok, claims := verify("ada@sigil.test", clientPub)
		if _, _, err := create(user("ada@sigil.test"), tok, nil); code(err) != apierr.InvalidArgument {
			t.Fatalf("bound token without signature: %v", err)
		}
		if _, _, err := create(user("ada@sigil.test"), tok, sign(claims, user("bob@sigil.test"))); code(err) != apierr.InvalidArgument {
			t.Fatalf("signature over another user: %v", err)
		}
		if _, _, err := create(user("eve@sigil.test"), tok, sign(claims, user("eve@sigil.test"))); code(err) != apierr.InvalidArgument {
			t.Fatalf("token for another contact: %v", err)
		}
		res, activity, err := create(user("ada@sigil.test"), tok, sign(claims, user("ada@sigil.test")))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(activity.Intent["createSubOrganizationIntentV8"]), tok) {
			t.Fatal("the activity record holds the verification token")
		}
		if !emailVerified(t, s.store, res.SubOrganizationID) {
			t.Fatal("the root user's e-mail is not verified after a signup with a verification token")
		}
		// Without a token the contact stays unverified.
		plain, _, err := create(user("cy@sigil.test"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if emailVerified(t, s.store, plain.SubOrganizationID) {
			t.Fatal("e-mail verified without a token")
		}
	})
}

func emailVerified(t *testing.T, st *store.Store, orgID string) bool {
	t.Helper()
	row, err := st.GetOrg(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Users []struct {
			EmailVerified bool `json:"emailVerified"`
		} `json:"users"`
	}
	if err := json.Unmarshal(row.Data, &doc); err != nil {
		t.Fatal(err)
	}
	return len(doc.Users) == 1 && doc.Users[0].EmailVerified
}
