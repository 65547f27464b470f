package authproxy_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/oidc/oidctest"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp/clientsig"
)

const origin = "https://app.example"

// allMethods enables e-mail and SMS OTP and the social logins the tests use, for the test origin.
var allMethods = api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{origin},
	AllowedAuthMethods: []string{api.AuthMethodEmail, api.AuthMethodSMS, api.AuthMethodGoogle, api.AuthMethodX}}

func call[R any](t *testing.T, p *client.Proxy, path string, req any) R {
	t.Helper()
	var r R
	if err := p.Call(context.Background(), path, req, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func loginSignature(t *testing.T, k clientKey, verificationToken, sessionKey string) *api.ClientSignature {
	t.Helper()
	claims, err := unverifiedID(verificationToken)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := client.LoginSignature(k.priv, claims, sessionKey)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// unverifiedID reads a verification token's id, as @turnkey/core does to sign the login message.
func unverifiedID(tok string) (string, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", errors.New("not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", err
	}
	var c struct {
		ID string `json:"id"`
	}
	return c.ID, json.Unmarshal(payload, &c)
}

// whoami checks the session and stamps a query with its key, returning who the coordinator says it is.
func (e *env) whoami(t *testing.T, ten *tenant, session string, k clientKey) *api.WhoamiResponse {
	t.Helper()
	claims, err := token.VerifySession(session, e.tokenKey(ten.configID), time.Now())
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	if claims.PublicKey != k.pub {
		t.Fatalf("session key %s, want %s", claims.PublicKey, k.pub)
	}
	c := client.New(e.coordSrv.URL, k.stamper(t))
	who, err := c.Whoami(context.Background(), claims.OrganizationID)
	if err != nil {
		t.Fatalf("whoami with the session key: %v", err)
	}
	if who.UserID != claims.UserID {
		t.Fatalf("whoami user %s, session user %s", who.UserID, claims.UserID)
	}
	return who
}

// expectStatus checks that err is an API error answered with the HTTP status.
func expectStatus(t *testing.T, what string, err error, status int) *apierr.Error {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status() != status {
		t.Fatalf("%s: got %v, want HTTP %d", what, err, status)
	}
	return e
}

// TestOTPSignupThenLogin is the legacy flow: sign up with an e-mail address, then log in with an e-mail code
// (signup → otp_init → code from the dev outbox → otp_verify → otp_login → the session stamps whoami).
func TestOTPSignupThenLogin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := newEnv(t, b, authproxy.Config{})
		ten := e.tenant("Acme", allMethods)
		p := e.proxy(ten.configID, origin)
		email := "ada@sigil.test"
		apiKey := newClientKey(t)
		signup := call[api.ProxySignupResponse](t, p, "/v1/signup", api.ProxySignupRequest[api.OauthProviderParams]{UserEmail: email,
			APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "device", PublicKey: apiKey.pub, CurveType: api.CurveP256}},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{},
			Wallet: &api.WalletParams{WalletName: "main", Accounts: []api.WalletAccountParams{{Curve: "CURVE_SECP256K1",
				PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}}})
		if signup.OrganizationID == "" || signup.UserID == "" || signup.Wallet == nil || len(signup.Wallet.Addresses) != 1 {
			t.Fatalf("signup = %+v", signup)
		}
		if len(signup.AppProofs) == 0 {
			t.Fatal("signup passed no app proofs through")
		}

		init := call[api.ProxyInitOtpResponse](t, p, "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: email})
		device := newClientKey(t)
		verified := call[api.ProxyVerifyOtpResponse](t, p, "/v1/otp_verify", api.ProxyVerifyOtpRequest{OtpID: init.OtpID,
			OtpCode: e.lastCode(email), PublicKey: device.pub})
		session := newClientKey(t)
		login := call[api.ProxySessionResponse](t, p, "/v1/otp_login", api.ProxyOtpLoginRequest{VerificationToken: verified.VerificationToken,
			PublicKey: session.pub, ClientSignature: loginSignature(t, device, verified.VerificationToken, session.pub)})
		who := e.whoami(t, ten, login.Session, session)
		if who.OrganizationID != signup.OrganizationID || who.UserID != signup.UserID {
			t.Fatalf("whoami = %+v, want the signed-up user %s of %s", who, signup.UserID, signup.OrganizationID)
		}
	})
}

// TestOTPCurrentFlow is @turnkey/core's current flow: encrypted OTP, account look-up with the verification token,
// signup with the token and the client signature, login with the client signature.
func TestOTPCurrentFlow(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := newEnv(t, b, authproxy.Config{})
		ten := e.tenant("Acme", allMethods)
		p := e.proxy(ten.configID, origin)
		email := "grace@sigil.test"
		init := call[api.ProxyInitOtpV2Response](t, p, "/v1/otp_init_v2", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: email})
		device := newClientKey(t)
		encrypted, err := bundle.EncryptOTP(init.OtpEncryptionTargetBundle, e.tokenKey(ten.configID), e.lastCode("grace@sigil.test"), device.pub)
		if err != nil {
			t.Fatal(err)
		}
		verified := call[api.ProxyVerifyOtpResponse](t, p, "/v1/otp_verify_v2", api.ProxyVerifyOtpV2Request{OtpID: init.OtpID, EncryptedOtpBundle: encrypted})
		lookup := api.ProxyAccountRequest{FilterType: api.FilterEmail, FilterValue: "Grace@sigil.test", VerificationToken: verified.VerificationToken}
		if acct := call[api.ProxyAccountResponse](t, p, "/v1/account", lookup); acct.OrganizationID != "" {
			t.Fatalf("account before signup = %+v", acct)
		}
		keys := []api.APIKeyParamsV2{{APIKeyName: "device", PublicKey: device.pub, CurveType: api.CurveP256}}
		claimsID, _ := unverifiedID(verified.VerificationToken)
		keysJSON, _ := json.Marshal(keys)
		msg, err := clientsig.SignupMessage(claimsID, clientsig.SignupUsage{APIKeys: keysJSON, Email: "grace@sigil.test"})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := clientsig.Sign(device.priv, msg)
		if err != nil {
			t.Fatal(err)
		}
		signup := call[api.ProxySignupResponse](t, p, "/v1/signup_v2", api.ProxySignupRequest[api.OauthProviderParamsV2]{
			UserEmail: "grace@sigil.test", VerificationToken: verified.VerificationToken, APIKeys: keys,
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{},
			ClientSignature: &cs})
		if acct := call[api.ProxyAccountResponse](t, p, "/v1/account", lookup); acct.OrganizationID != signup.OrganizationID {
			t.Fatalf("account after signup = %+v, want %s", acct, signup.OrganizationID)
		}
		session := newClientKey(t)
		login := call[api.ProxySessionResponse](t, p, "/v1/otp_login_v2", api.ProxyOtpLoginRequest{VerificationToken: verified.VerificationToken,
			PublicKey: session.pub, OrganizationID: signup.OrganizationID, ClientSignature: loginSignature(t, device, verified.VerificationToken, session.pub)})
		if who := e.whoami(t, ten, login.Session, session); who.OrganizationID != signup.OrganizationID {
			t.Fatalf("whoami = %+v", who)
		}
		// The configuration's session lifetime applies.
		kit := call[api.ProxyWalletKitConfigResponse](t, p, "/v1/wallet_kit_config", struct{}{})
		if kit.OrganizationID != ten.orgID || kit.SessionExpirationSeconds != "900" || kit.OtpLength != "6" ||
			strings.Join(kit.EnabledProviders, ",") != "email,google,sms,x" {
			t.Fatalf("wallet_kit_config = %+v", kit)
		}
	})
}

// TestOAuthLogin signs up and logs in with an ID token of the local OIDC provider, then with an X login exchanged
// by the coordinator (oauth2_authenticate).
func TestOAuthLogin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := newEnv(t, b, authproxy.Config{})
		ten := e.tenant("Acme", allMethods)
		p := e.proxy(ten.configID, origin)
		ctx := context.Background()

		signupWith := func(oidcToken string) api.ProxySignupResponse {
			return call[api.ProxySignupResponse](t, p, "/v1/signup_v2", api.ProxySignupRequest[api.OauthProviderParamsV2]{
				APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
				OauthProviders: []api.OauthProviderParamsV2{{ProviderName: "test", OidcToken: oidcToken}}})
		}
		// An ID token of a trusted issuer.
		session := newClientKey(t)
		idToken := e.idp.IDToken(map[string]any{"nonce": token.NonceForPublicKey(session.pub)})
		signup := signupWith(idToken)
		login := call[api.ProxySessionResponse](t, p, "/v1/oauth_login", api.ProxyOauthLoginRequest{OidcToken: idToken, PublicKey: session.pub})
		if who := e.whoami(t, ten, login.Session, session); who.OrganizationID != signup.OrganizationID {
			t.Fatalf("whoami = %+v, want %s", who, signup.OrganizationID)
		}

		// X: the coordinator redeems the code and issues its own OIDC token.
		if _, _, err := ten.root.CreateOauth2Credential(ctx, ten.orgID, api.CreateOauth2CredentialIntent{Provider: api.Oauth2ProviderX,
			ClientID: oidctest.ClientID, EncryptedClientSecret: oidctest.ClientSecret}); err != nil {
			t.Fatal(err)
		}
		x := newClientKey(t)
		verifier := base64.RawURLEncoding.EncodeToString(randomBytes(32))
		redirect := "https://app.example/oauth/callback"
		authCode := e.idp.Authorize(oidctest.Authorization{ClientID: oidctest.ClientID, RedirectURI: redirect,
			CodeChallenge: oidctest.Challenge(verifier), Subject: "x-user-7"})
		issued := call[api.ProxyOauth2AuthenticateResponse](t, p, "/v1/oauth2_authenticate", api.ProxyOauth2AuthenticateRequest{
			Provider: api.Oauth2ProviderX, AuthCode: authCode, RedirectURI: redirect, CodeVerifier: verifier,
			Nonce: token.NonceForPublicKey(x.pub), ClientID: oidctest.ClientID})
		xSignup := signupWith(issued.OidcToken)
		acct := call[api.ProxyAccountResponse](t, p, "/v1/account", api.ProxyAccountRequest{FilterType: api.FilterOIDCToken, FilterValue: issued.OidcToken})
		if acct.OrganizationID != xSignup.OrganizationID {
			t.Fatalf("account by OIDC token = %+v, want %s", acct, xSignup.OrganizationID)
		}
		xLogin := call[api.ProxySessionResponse](t, p, "/v1/oauth_login", api.ProxyOauthLoginRequest{OidcToken: issued.OidcToken, PublicKey: x.pub})
		if who := e.whoami(t, ten, xLogin.Session, x); who.OrganizationID != xSignup.OrganizationID {
			t.Fatalf("X whoami = %+v", who)
		}
		// An unknown client id of the provider.
		err := p.Call(ctx, "/v1/oauth2_authenticate", api.ProxyOauth2AuthenticateRequest{Provider: api.Oauth2ProviderX, AuthCode: "c",
			RedirectURI: redirect, CodeVerifier: verifier, Nonce: token.NonceForPublicKey(x.pub), ClientID: "someone-else"}, &struct{}{})
		expectStatus(t, "unknown client id", err, 404)
	})
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
