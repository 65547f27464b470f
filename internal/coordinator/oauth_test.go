package coordinator_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
)

// ownIssuer is the issuer URL of the tokens the test coordinators issue.
const ownIssuer = "https://sigil.test/oidc"

const redirectURI = "https://app.example/oauth/callback"

// oauthStack is an OTP stack whose coordinator trusts a local OIDC provider (tokens for oidctest.ClientID only),
// issues its own OIDC tokens, and reaches that provider as X.
type oauthStack struct {
	*otpStack
	idp *oidctest.Provider
}

func newOAuthStack(t *testing.T, b testdb.Backend) *oauthStack {
	t.Helper()
	idp := oidctest.New()
	t.Cleanup(idp.Close)
	var now func() time.Time // the stack's clock, known once it is built
	verifier, err := oidc.NewVerifier(oidc.Config{
		Issuers: []oidc.Issuer{{URL: idp.Issuer(), Audiences: []string{oidctest.ClientID}}},
		Clock:   func() time.Time { return now() },
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newOTPStack(t, b, coordinator.Config{OIDC: verifier, OIDCIssuerURL: ownIssuer,
		OAuth2Providers: map[string]oidc.Provider{api.Oauth2ProviderX: {TokenURL: idp.TokenURL(), UserInfoURL: idp.XUserInfoURL(),
			ClientAuth: oidc.ClientSecretBasic, SubjectField: "data.id"}}})
	now = s.clock.Now
	idp.SetClock(s.clock.Now)
	return &oauthStack{otpStack: s, idp: idp}
}

// subOrgWithIdentities creates a sub-organization whose root user (with an API key) holds the OIDC identities.
func (s *oauthStack) subOrgWithIdentities(name string, providers ...api.OauthProviderParamsV2) (string, string) {
	s.t.Helper()
	_, params := newKey(s.t, stamp.CurveP256)
	one := int32(1)
	res, _, err := s.root.CreateSubOrganization(context.Background(), s.boot.OrganizationID, api.CreateSubOrganizationIntentV8{
		SubOrganizationName: "sub " + name, RootQuorumThreshold: &one,
		RootUsers: []api.RootUserParamsV5{{UserName: name, APIKeys: []api.APIKeyParamsV2{params},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: providers}},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.SubOrganizationID, res.RootUserIDs[0]
}

// login submits OAUTH_LOGIN with the parent organization's key, as the auth proxy does.
func (s *oauthStack) login(orgID, oidcToken, publicKey string) (*api.OauthLoginResult, error) {
	res, _, err := s.root.OauthLogin(context.Background(), orgID, api.OauthLoginIntent{OidcToken: oidcToken, PublicKey: publicKey})
	return res, err
}

// orgVersion is the stored version of an organization: it moves only when an activity changed the organization.
func (s *oauthStack) orgVersion(orgID string) int64 {
	s.t.Helper()
	row, err := s.store.GetOrg(context.Background(), orgID)
	if err != nil {
		s.t.Fatal(err)
	}
	return row.Version
}

func nonceFor(publicKey string) map[string]any {
	return map[string]any{"nonce": tokens.NonceForPublicKey(publicKey)}
}

func with(claims map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range claims {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func TestOAuthLogin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOAuthStack(t, b)
		sub, userID := s.subOrgWithIdentities("alice", api.OauthProviderParamsV2{ProviderName: "Local", OidcToken: s.idp.IDToken(nil)})
		user, err := s.root.GetUser(ctx, sub, userID)
		if err != nil {
			t.Fatal(err)
		}
		if ps := user.User.OauthProviders; len(ps) != 1 || ps[0].Issuer != s.idp.Issuer() || ps[0].Subject != oidctest.DefaultSubject || ps[0].Audience != oidctest.ClientID {
			t.Fatalf("stored identity = %+v", ps)
		}

		key, pub := newP256(t)
		tok := s.idp.IDToken(nonceFor(pub))
		res, a, err := s.root.OauthLogin(ctx, sub, api.OauthLoginIntent{OidcToken: tok, PublicKey: pub})
		if err != nil {
			t.Fatal(err)
		}
		var recorded api.OauthLoginIntent
		if err := json.Unmarshal(a.Intent["oauthLoginIntent"], &recorded); err != nil || recorded.OidcToken != api.Redacted {
			t.Errorf("the activity record holds the OIDC token: %s", a.Intent["oauthLoginIntent"])
		}
		claims, err := tokens.VerifySession(res.Session, s.tokenKey(), s.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if claims.UserID != userID || claims.OrganizationID != sub || claims.PublicKey != pub {
			t.Fatalf("session claims = %+v", claims)
		}
		who, err := s.clientFor(sessionStamper(t, key)).Whoami(ctx, sub)
		if err != nil || who.UserID != userID {
			t.Fatalf("whoami with the session key: %+v, %v", who, err)
		}
		keys, err := s.root.GetAPIKeys(ctx, sub, userID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(keys.APIKeys); n != 2 || keys.APIKeys[1].Credential.Type != api.CredentialOAuthP256 || keys.APIKeys[1].Credential.PublicKey != pub {
			t.Fatalf("credentials after login = %+v", keys.APIKeys)
		}

		otherSub, _ := s.subOrgWithIdentities("bob", api.OauthProviderParamsV2{ProviderName: "Local", OidcToken: s.idp.IDToken(map[string]any{"sub": "bob"})})
		_, otherPub := newP256(t)
		now := s.clock.Now()
		nonce := nonceFor(pub)
		version := s.orgVersion(sub)
		for _, tc := range []struct {
			name, org, token string
			code             apierr.Code
			msg              string
		}{
			{"wrong nonce", sub, s.idp.IDToken(nonceFor(otherPub)), apierr.InvalidArgument, "nonce mismatch"},
			{"no nonce", sub, s.idp.IDToken(nil), apierr.InvalidArgument, "nonce"},
			{"wrong audience", sub, s.idp.IDToken(with(nonce, map[string]any{"aud": "another-client"})), apierr.InvalidArgument, "wrong audience"},
			{"expired", sub, s.idp.IDToken(with(nonce, map[string]any{"iat": now.Add(-2 * time.Hour).Unix(), "exp": now.Add(-time.Hour).Unix()})), apierr.InvalidArgument, "token expired"},
			{"alg none", sub, s.idp.IDToken(nonce, oidctest.WithAlg(oidctest.AlgNone)), apierr.InvalidArgument, "unsupported signing algorithm"},
			{"alg HS256 with the public key", sub, s.idp.IDToken(nonce, oidctest.WithAlg(oidctest.AlgHS256)), apierr.InvalidArgument, "unsupported signing algorithm"},
			{"RS256 header over an HS256 signature", sub, s.idp.IDToken(nonce, oidctest.WithAlg(oidctest.AlgHS256), oidctest.WithHeader("alg", "RS256")), apierr.InvalidArgument, "bad signature"},
			{"untrusted issuer", sub, s.idp.IDToken(with(nonce, map[string]any{"iss": "https://evil.example"})), apierr.InvalidArgument, "untrusted issuer"},
			{"identity of another organization", otherSub, tok, apierr.NotFound, "no user of organization"},
			{"identity of nobody", sub, s.idp.IDToken(with(nonce, map[string]any{"sub": "mallory"})), apierr.NotFound, "no user of organization"},
		} {
			_, err := s.login(tc.org, tc.token, pub)
			expectErr(t, tc.name, err, tc.code, tc.msg)
		}
		if v := s.orgVersion(sub); v != version {
			t.Errorf("refused logins changed the organization (version %d, was %d)", v, version)
		}
	})
}

// An unknown key id refreshes the issuer's keys once per refresh interval: a token of a rotated key is refused
// until then, with no extra fetch, and accepted after.
func TestOAuthLoginKeyRotation(t *testing.T) {
	t.Parallel()
	s := newOAuthStack(t, testdb.SQLite(t))
	sub, _ := s.subOrgWithIdentities("alice", api.OauthProviderParamsV2{ProviderName: "Local", OidcToken: s.idp.IDToken(nil)})
	_, pub := newP256(t)
	if _, err := s.login(sub, s.idp.IDToken(nonceFor(pub)), pub); err != nil {
		t.Fatal(err)
	}
	fetches := s.idp.Requests(oidctest.JWKSPath)

	s.idp.RotateKeys()
	rotated := s.idp.IDToken(nonceFor(pub))
	_, err := s.login(sub, rotated, pub)
	expectErr(t, "new key within the refresh interval", err, apierr.InvalidArgument, "unknown signing key")
	if n := s.idp.Requests(oidctest.JWKSPath); n != fetches {
		t.Fatalf("JWKS fetched %d times, want %d: an unknown kid inside the refresh interval must not fetch", n, fetches)
	}
	_, err = s.login(sub, s.idp.IDToken(nonceFor(pub), oidctest.WithHeader("kid", "no-such-key")), pub)
	expectErr(t, "unknown kid", err, apierr.InvalidArgument, "unknown signing key")

	s.clock.Advance(oidc.DefaultRefreshInterval + time.Second)
	if _, err := s.login(sub, rotated, pub); err != nil {
		t.Fatalf("new key after the refresh interval: %v", err)
	}
	if n := s.idp.Requests(oidctest.JWKSPath); n != fetches+1 {
		t.Fatalf("JWKS fetched %d times, want %d", n, fetches+1)
	}
}

func TestOAuthProvidersOnUsers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOAuthStack(t, b)
		parent := s.boot.OrganizationID
		carol, _ := s.createUser(parent, s.root, "carol")
		carolToken := s.idp.IDToken(map[string]any{"sub": "carol"})
		res, a, err := s.root.CreateOauthProviders(ctx, parent, api.CreateOauthProvidersIntentV2{UserID: carol, OauthProviders: []api.OauthProviderParamsV2{
			{ProviderName: "Local", OidcToken: carolToken},
			{ProviderName: "Google", OidcClaims: &api.OidcClaims{Iss: oidc.GoogleIssuer, Sub: "g-1", Aud: "app.apps.googleusercontent.com"}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Type != "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2" || len(res.ProviderIDs) != 2 {
			t.Fatalf("result = %+v (%s)", res, a.Type)
		}
		got, err := s.root.GetOauthProviders(ctx, parent, carol)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.OauthProviders) != 2 || got.OauthProviders[0].ProviderID != res.ProviderIDs[0] || got.OauthProviders[0].Subject != "carol" || got.OauthProviders[1].Issuer != oidc.GoogleIssuer {
			t.Fatalf("get_oauth_providers = %+v", got.OauthProviders)
		}

		dave, _ := s.createUser(parent, s.root, "dave")
		add := func(userID, token string) error {
			_, _, err := s.root.CreateOauthProviders(ctx, parent, api.CreateOauthProvidersIntentV2{UserID: userID,
				OauthProviders: []api.OauthProviderParamsV2{{ProviderName: "Local", OidcToken: token}}})
			return err
		}
		expectErr(t, "identity of another user of the organization", add(dave, carolToken), apierr.AlreadyExists, "already belongs to a user")
		expectErr(t, "forged token", add(dave, s.idp.IDToken(map[string]any{"sub": "dave"}, oidctest.WithAlg(oidctest.AlgNone))), apierr.InvalidArgument, "unsupported signing algorithm")
		expectErr(t, "untrusted issuer", add(dave, s.idp.IDToken(map[string]any{"sub": "dave", "iss": "https://evil.example"})), apierr.InvalidArgument, "untrusted issuer")
		_, _, err = s.root.CreateUsers(ctx, parent, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "erin",
			APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{}, UserTags: []string{},
			OauthProviders: []api.OauthProviderParamsV2{{ProviderName: "Local", OidcToken: s.idp.IDToken(map[string]any{"sub": "erin"}, oidctest.WithAlg(oidctest.AlgHS256))}}}}})
		expectErr(t, "forged token in CREATE_USERS_V4", err, apierr.InvalidArgument, "oauthProviders[0].oidcToken")

		// The same identity may belong to a user of another organization, and list_suborgs finds it by token.
		sub, _ := s.subOrgWithIdentities("carol", api.OauthProviderParamsV2{ProviderName: "Local", OidcToken: carolToken})
		found, err := s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: parent, FilterType: api.FilterOIDCToken, FilterValue: s.idp.IDToken(map[string]any{"sub": "carol"})})
		if err != nil {
			t.Fatal(err)
		}
		if len(found.OrganizationIDs) != 1 || found.OrganizationIDs[0] != sub {
			t.Fatalf("list_suborgs OIDC_TOKEN = %v, want [%s]", found.OrganizationIDs, sub)
		}
		_, err = s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: parent, FilterType: api.FilterOIDCToken,
			FilterValue: s.idp.IDToken(map[string]any{"sub": "carol"}, oidctest.WithAlg(oidctest.AlgNone))})
		expectErr(t, "list_suborgs with a forged token", err, apierr.InvalidArgument, "unsupported signing algorithm")

		del, _, err := s.root.DeleteOauthProviders(ctx, parent, api.DeleteOauthProvidersIntent{UserID: carol, ProviderIDs: res.ProviderIDs[:1]})
		if err != nil || len(del.ProviderIDs) != 1 {
			t.Fatalf("delete: %+v, %v", del, err)
		}
		if got, _ := s.root.GetOauthProviders(ctx, parent, carol); len(got.OauthProviders) != 1 || got.OauthProviders[0].ProviderID != res.ProviderIDs[1] {
			t.Fatalf("after delete: %+v", got.OauthProviders)
		}
		_, _, err = s.root.DeleteOauthProviders(ctx, parent, api.DeleteOauthProvidersIntent{UserID: carol, ProviderIDs: res.ProviderIDs[:1]})
		expectErr(t, "delete twice", err, apierr.NotFound, "not found on user")
		if err := add(dave, carolToken); err != nil {
			t.Fatalf("the identity is free again after its deletion: %v", err)
		}
	})
}

// pkceVerifier is a random RFC 7636 code verifier.
func pkceVerifier(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestOAuth2Authenticate(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOAuthStack(t, b)
		parent := s.boot.OrganizationID
		cred, a, err := s.root.CreateOauth2Credential(ctx, parent, api.CreateOauth2CredentialIntent{Provider: api.Oauth2ProviderX,
			ClientID: oidctest.ClientID, EncryptedClientSecret: oidctest.ClientSecret})
		if err != nil {
			t.Fatal(err)
		}
		if intent := string(a.Intent["createOauth2CredentialIntent"]); strings.Contains(intent, oidctest.ClientSecret) {
			t.Errorf("the activity record holds the client secret: %s", intent)
		}
		secretID := s.credentialSecretID(parent, cred.Oauth2CredentialID)
		if sealed, err := s.store.GetSecret(ctx, secretID); err != nil || strings.Contains(string(sealed.Blob), oidctest.ClientSecret) {
			t.Fatalf("the client secret is not sealed: %v", err)
		}
		got, err := s.root.GetOauth2Credential(ctx, parent, cred.Oauth2CredentialID)
		if err != nil {
			t.Fatal(err)
		}
		if c := got.Oauth2Credential; c.Provider != api.Oauth2ProviderX || c.ClientID != oidctest.ClientID || c.EncryptedClientSecret != api.Redacted || c.OrganizationID != parent {
			t.Fatalf("get_oauth2_credential = %+v", c)
		}

		key, pub := newP256(t)
		nonce := tokens.NonceForPublicKey(pub)
		authenticate := func(clientID, subject, sentVerifier string, target string) (*api.Oauth2AuthenticateResult, error) {
			verifier := pkceVerifier(t)
			if sentVerifier == "" {
				sentVerifier = verifier
			}
			code := s.idp.Authorize(oidctest.Authorization{ClientID: clientID, RedirectURI: redirectURI, CodeChallenge: oidctest.Challenge(verifier), Subject: subject})
			res, a, err := s.root.Oauth2Authenticate(ctx, parent, api.Oauth2AuthenticateIntent{Oauth2CredentialID: cred.Oauth2CredentialID,
				AuthCode: code, RedirectURI: redirectURI, CodeVerifier: sentVerifier, Nonce: nonce, BearerTokenTargetPublicKey: target})
			if a != nil {
				if intent := string(a.Intent["oauth2AuthenticateIntent"]); strings.Contains(intent, code) || strings.Contains(intent, sentVerifier) {
					t.Errorf("the activity record holds the code or the verifier: %s", intent)
				}
			}
			return res, err
		}
		res, err := authenticate(oidctest.ClientID, "x-user-42", "", "")
		if err != nil {
			t.Fatal(err)
		}
		claims := s.verifyOwnToken(res.OidcToken, nonce)
		if claims.Issuer != ownIssuer || claims.Subject != "x-user-42" || len(claims.Audience) != 1 || claims.Audience[0] != oidctest.ClientID {
			t.Fatalf("issued token claims = %+v", claims)
		}

		// The issued token signs the user up, finds the sub-organization, logs in, and attests a stamp.
		sub, userID := s.subOrgWithIdentities("x user", api.OauthProviderParamsV2{ProviderName: "X", OidcToken: res.OidcToken})
		found, err := s.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: parent, FilterType: api.FilterOIDCToken, FilterValue: res.OidcToken})
		if err != nil || len(found.OrganizationIDs) != 1 || found.OrganizationIDs[0] != sub {
			t.Fatalf("list_suborgs with the issued token = %+v, %v", found, err)
		}
		login, err := s.login(sub, res.OidcToken, pub)
		if err != nil {
			t.Fatal(err)
		}
		if sc, err := tokens.VerifySession(login.Session, s.tokenKey(), s.clock.Now()); err != nil || sc.UserID != userID {
			t.Fatalf("session = %+v, %v", sc, err)
		}
		_, sessionPub := newP256(t)
		attested := s.clientFor(client.AttestedStamper{Key: key, Token: res.OidcToken, Scheme: stamp.AttestedSchemeOIDC})
		if _, _, err := attested.StampLogin(ctx, sub, api.StampLoginIntent{PublicKey: sessionPub}); err != nil {
			t.Fatalf("STAMP_LOGIN attested by the issued token: %v", err)
		}

		// The provider's access token, encrypted to the client, works at the provider.
		target, err := bundle.NewTargetKey()
		if err != nil {
			t.Fatal(err)
		}
		res, err = authenticate(oidctest.ClientID, "x-user-42", "", hex.EncodeToString(target.PublicKey().Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		s.checkBearerToken(s.verifyOwnToken(res.OidcToken, nonce), target)

		// Failed exchanges store nothing.
		version := s.orgVersion(parent)
		_, err = authenticate(oidctest.ClientID, "x-user-43", pkceVerifier(t), "")
		expectErr(t, "PKCE verifier mismatch", err, apierr.InvalidArgument, "PKCE verification failed")
		s.idp.SetDown(true)
		_, err = authenticate(oidctest.ClientID, "x-user-43", "", "")
		expectErr(t, "provider down", err, apierr.Unavailable, "could not be reached or failed; nothing was issued")
		s.idp.SetDown(false)
		if v := s.orgVersion(parent); v != version {
			t.Errorf("failed exchanges changed the organization (version %d, was %d)", v, version)
		}

		// A public client (PKCE only, no secret) after an update; the old secret is gone.
		if _, _, err := s.root.UpdateOauth2Credential(ctx, parent, api.UpdateOauth2CredentialIntent{Oauth2CredentialID: cred.Oauth2CredentialID,
			Provider: api.Oauth2ProviderX, ClientID: oidctest.PublicClientID}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.store.GetSecret(ctx, secretID); err == nil {
			t.Error("the replaced client secret is still stored")
		}
		if res, err = authenticate(oidctest.PublicClientID, "x-user-44", "", ""); err != nil {
			t.Fatalf("public client: %v", err)
		}
		if c := s.verifyOwnToken(res.OidcToken, nonce); c.Audience[0] != oidctest.PublicClientID {
			t.Fatalf("audience = %v", c.Audience)
		}

		_, _, err = s.root.CreateOauth2Credential(ctx, parent, api.CreateOauth2CredentialIntent{Provider: api.Oauth2ProviderX, ClientID: oidctest.PublicClientID})
		expectErr(t, "second credential for one client", err, apierr.AlreadyExists, "already has OAuth 2.0 credential")
		_, _, err = s.root.CreateOauth2Credential(ctx, parent, api.CreateOauth2CredentialIntent{Provider: "OAUTH2_PROVIDER_NOPE", ClientID: "c", EncryptedClientSecret: "s"})
		expectErr(t, "unknown provider", err, apierr.InvalidArgument, "not a provider this server knows")

		if _, _, err := s.root.DeleteOauth2Credential(ctx, parent, api.DeleteOauth2CredentialIntent{Oauth2CredentialID: cred.Oauth2CredentialID}); err != nil {
			t.Fatal(err)
		}
		if list, err := s.root.ListOauth2Credentials(ctx, parent); err != nil || len(list.Oauth2Credentials) != 0 {
			t.Fatalf("list after delete = %+v, %v", list, err)
		}
		_, err = authenticate(oidctest.PublicClientID, "x-user-45", "", "")
		expectErr(t, "deleted credential", err, apierr.NotFound, "not found in organization")
	})
}

// credentialSecretID reads the sealed secret's row id from the stored organization document.
func (s *oauthStack) credentialSecretID(orgID, credentialID string) string {
	s.t.Helper()
	row, err := s.store.GetOrg(context.Background(), orgID)
	if err != nil {
		s.t.Fatal(err)
	}
	var doc struct {
		Credentials []struct {
			ID       string `json:"id"`
			SecretID string `json:"secretId"`
		} `json:"oauth2Credentials"`
	}
	if err := json.Unmarshal(row.Data, &doc); err != nil {
		s.t.Fatal(err)
	}
	for _, c := range doc.Credentials {
		if c.ID == credentialID && c.SecretID != "" {
			return c.SecretID
		}
	}
	s.t.Fatalf("credential %s has no sealed secret", credentialID)
	return ""
}

// verifyOwnToken checks a token the coordinator issued against its published JWKS, as a relying party would.
func (s *oauthStack) verifyOwnToken(raw, nonce string) *oidc.Claims {
	s.t.Helper()
	set, err := s.coord.JWKS(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	jwks, _ := json.Marshal(set)
	v, err := oidc.NewVerifier(oidc.Config{Clock: s.clock.Now, Issuers: []oidc.Issuer{{URL: ownIssuer, JWKS: jwks, AnyAudience: true}}})
	if err != nil {
		s.t.Fatal(err)
	}
	claims, err := v.Verify(context.Background(), raw, oidc.VerifyOptions{Nonce: nonce})
	if err != nil {
		s.t.Fatal(err)
	}
	return claims
}

// checkBearerToken opens the encrypted_bearer_token claim and uses the access token at the provider's user info.
func (s *oauthStack) checkBearerToken(claims *oidc.Claims, target *ecdh.PrivateKey) {
	s.t.Helper()
	sealed, ok := claims.Raw["encrypted_bearer_token"].(string)
	if !ok {
		s.t.Fatalf("no encrypted_bearer_token claim in %v", claims.Raw)
	}
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(sealed), &ct); err != nil {
		s.t.Fatal(err)
	}
	access, err := bundle.Open(target, ct)
	if err != nil {
		s.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.idp.XUserInfoURL(), nil)
	req.Header.Set("Authorization", "Bearer "+string(access))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != http.StatusOK || info.Data.ID != claims.Subject {
		s.t.Fatalf("user info with the decrypted access token: HTTP %d, %+v, %v", resp.StatusCode, info, err)
	}
}

// The coordinator publishes its issuer's discovery document; without an issuer URL it issues nothing.
func TestOpenIDConfiguration(t *testing.T) {
	t.Parallel()
	s := newOAuthStack(t, testdb.SQLite(t))
	rec := httptest.NewRecorder()
	s.coord.OpenIDConfigurationHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/openid-configuration", nil))
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	if doc["issuer"] != ownIssuer || doc["jwks_uri"] != ownIssuer+"/.well-known/jwks.json" {
		t.Fatalf("discovery document = %v", doc)
	}

	plain := newOTPStack(t, testdb.SQLite(t), coordinator.Config{})
	rec = httptest.NewRecorder()
	plain.coord.OpenIDConfigurationHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/openid-configuration", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("without an issuer: HTTP %d", rec.Code)
	}
	ctx := context.Background()
	cred, _, err := plain.root.CreateOauth2Credential(ctx, plain.boot.OrganizationID, api.CreateOauth2CredentialIntent{Provider: api.Oauth2ProviderDiscord, ClientID: "discord-app", EncryptedClientSecret: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = plain.root.Oauth2Authenticate(ctx, plain.boot.OrganizationID, api.Oauth2AuthenticateIntent{Oauth2CredentialID: cred.Oauth2CredentialID,
		AuthCode: "code", RedirectURI: redirectURI, CodeVerifier: pkceVerifier(t), Nonce: tokens.NonceForPublicKey("02ab")})
	expectErr(t, "no issuer URL", err, apierr.FailedPrecondition, "issues no OIDC tokens")
	_, err = plain.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: plain.boot.OrganizationID, FilterType: api.FilterOIDCToken, FilterValue: "a.b.c"})
	expectErr(t, "no trusted issuer", err, apierr.FailedPrecondition, "trusts no OIDC issuer")
}

// An issuer that cannot be reached is a transient failure that says so, and nothing is stored; the same token logs in
// once the issuer is back and the refresh interval has passed.
func TestOAuthLoginIssuerDown(t *testing.T) {
	t.Parallel()
	s := newOAuthStack(t, testdb.SQLite(t))
	sub, _ := s.subOrgWithIdentities("alice", api.OauthProviderParamsV2{ProviderName: "Local", OidcClaims: &api.OidcClaims{
		Iss: s.idp.Issuer(), Sub: oidctest.DefaultSubject, Aud: oidctest.ClientID}})
	_, pub := newP256(t)
	tok := s.idp.IDToken(nonceFor(pub))
	version := s.orgVersion(sub)
	s.idp.SetDown(true)
	_, err := s.login(sub, tok, pub)
	expectErr(t, "issuer down", err, apierr.Unavailable, "could not be reached")
	if v := s.orgVersion(sub); v != version {
		t.Errorf("a login against an unreachable issuer changed the organization")
	}
	s.idp.SetDown(false)
	s.clock.Advance(oidc.DefaultRefreshInterval + time.Second) // failed fetches are retried once per refresh interval
	if _, err := s.login(sub, tok, pub); err != nil {
		t.Fatalf("login once the issuer is back: %v", err)
	}
}
