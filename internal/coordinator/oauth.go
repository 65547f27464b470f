package coordinator

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/token"
)

// The activity types of this file.
var (
	createOauthProvidersV2 = activity(api.CreateOauthProvidersV2, on(resCredential, actCreate), validateCreateOauthProviders, execCreateOauthProviders)
	deleteOauthProviders   = activity(api.DeleteOauthProviders, on(resCredential, actDelete), validateDeleteOauthProviders, execDeleteOauthProviders)
	oauthLogin             = activity(api.OauthLogin, on(resAuth, actCreate, policy.ParamSessionProfile), validateOauthLogin, execOauthLogin).byParent().proxied()
)

// The queries of this file.
var (
	getOauthProviders = query(api.GetOauthProviders, queryGetOauthProviders)
)

// The OAuth family: OIDC identities on users, OAUTH_LOGIN, and the verification of every OIDC token the coordinator
// accepts (oauthProviders of new users, OAUTH_LOGIN, list_suborgs OIDC_TOKEN, X-Stamp-Attested). Tokens come from
// two kinds of issuer: the trusted issuers of Config.OIDC (Google, Apple, any configured URL), and the coordinator
// itself (Config.OIDCIssuerURL), which issues tokens after an OAuth 2.0 code exchange (oauth2.go) and verifies them
// with its token key, never over the network.

// maxOIDCTokenLen bounds an ID token (one to two KiB in practice).
const maxOIDCTokenLen = 8192

// oauthState is what the OAuth family keeps beside the configuration.
type oauthState struct {
	mu     sync.Mutex
	own    *oidc.Verifier // verifies the coordinator's own tokens; rebuilt when the token key changes
	ownKID string
	http   *http.Client // the code exchange's client
}

func newOAuthState(cfg Config) *oauthState {
	client := cfg.OAuth2HTTPClient
	if client == nil {
		client = oidc.NewHTTPClient()
	}
	return &oauthState{http: client}
}

// keyFunc returns the token key: inside an activity through its transaction (execution.tokenKey), elsewhere through
// the store (Coordinator.ownKey).
type keyFunc func() (*ecdsa.PrivateKey, error)

func (c *Coordinator) storedTokenKey(ctx context.Context) keyFunc {
	return func() (*ecdsa.PrivateKey, error) { return c.ownKey(ctx, tokenKeyName) }
}

// verifyOIDC verifies an OIDC ID token from a trusted issuer or from the coordinator itself; a non-empty nonce must
// equal the token's. The token's unverified issuer only chooses the verifier: each verifier checks everything.
func (c *Coordinator) verifyOIDC(ctx context.Context, path, raw string, key keyFunc, nonce string) (*oidc.Claims, error) {
	v, err := c.verifierFor(raw, key)
	if err != nil {
		return nil, err
	}
	claims, err := v.Verify(ctx, raw, oidc.VerifyOptions{Nonce: nonce})
	if err != nil {
		return nil, oidcError(path, err)
	}
	if claims.Subject == "" || len(claims.Audience) == 0 {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_OIDC_TOKEN", "%s: the token must carry sub and aud claims", path)
	}
	return claims, nil
}

func (c *Coordinator) verifierFor(raw string, key keyFunc) (*oidc.Verifier, error) {
	own := c.cfg.OIDCIssuerURL
	switch {
	case own != "" && unverifiedIssuer(raw) == own:
		return c.ownVerifier(key)
	case c.cfg.OIDC != nil:
		return c.cfg.OIDC, nil
	case own != "":
		return c.ownVerifier(key) // it refuses the token's issuer as untrusted
	}
	return nil, apierr.New(apierr.FailedPrecondition, "INVALID_OIDC_TOKEN", "this server trusts no OIDC issuer: configure trusted issuers (sigil up --trusted-oidc-issuer) to accept OIDC tokens")
}

// ownVerifier trusts only the coordinator's own issuer, with the token key as a static JWKS and any audience (the
// audience is the OAuth 2.0 client id, matched against the identity stored on the user).
func (c *Coordinator) ownVerifier(key keyFunc) (*oidc.Verifier, error) {
	k, err := key()
	if err != nil {
		return nil, err
	}
	kid, err := token.KeyID(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	s := c.oauth
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own != nil && s.ownKID == kid {
		return s.own, nil
	}
	set, err := token.NewJWKS(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	jwks, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	v, err := oidc.NewVerifier(oidc.Config{Clock: c.cfg.Now,
		Issuers: []oidc.Issuer{{URL: c.cfg.OIDCIssuerURL, JWKS: jwks, AnyAudience: true}}})
	if err != nil {
		return nil, fmt.Errorf("own OIDC issuer %q: %w", c.cfg.OIDCIssuerURL, err)
	}
	s.own, s.ownKID = v, kid
	return v, nil
}

// unverifiedIssuer reads the iss claim of a JWT without verifying anything; "" when there is none.
func unverifiedIssuer(raw string) string {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Iss string `json:"iss"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return ""
	}
	return c.Iss
}

// oidcError maps a verification failure: an issuer that cannot be reached is a transient failure of this server,
// everything else is the token's fault.
func oidcError(path string, err error) error {
	switch {
	case errors.Is(err, oidc.ErrDiscovery):
		return apierr.New(apierr.Unavailable, "INVALID_OIDC_TOKEN", "%s: the token's issuer could not be reached to read its signing keys; try again later (%s)", path, err.Error())
	case errors.Is(err, oidc.ErrNonceMismatch):
		return apierr.New(apierr.InvalidArgument, "INVALID_OIDC_TOKEN", "%s: the token's nonce must be the lower-case hex SHA-256 of parameters.publicKey as sent (%s)", path, err.Error())
	}
	return apierr.New(apierr.InvalidArgument, "INVALID_OIDC_TOKEN", "%s: %s", path, err.Error())
}

// identity is the (issuer, subject, audience) a verified token names. A token with several audiences is identified
// by its first, as the reference stores one audience per provider.
func identity(c *oidc.Claims) *api.OidcClaims {
	return &api.OidcClaims{Iss: c.Issuer, Sub: c.Subject, Aud: c.Audience[0]}
}

// oidcIdentity verifies an oauthProviders token inside an activity and returns its identity.
func (x *execution) oidcIdentity(path, raw string) (*api.OidcClaims, error) {
	if len(raw) > maxOIDCTokenLen {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_OIDC_TOKEN", "%s is longer than %d bytes", path, maxOIDCTokenLen)
	}
	claims, err := x.c.verifyOIDC(x.ctx, path, raw, x.tokenKey, "")
	if err != nil {
		return nil, err
	}
	return identity(claims), nil
}

// userWithIdentity finds the user of org holding the token's identity (any of its audiences).
func userWithIdentity(org *Org, c *oidc.Claims) (*User, *OAuthProvider) {
	for _, u := range org.Users {
		for _, op := range u.OAuthProviders {
			if op.Issuer == c.Issuer && op.Subject == c.Subject && slices.Contains(c.Audience, op.Audience) {
				return u, op
			}
		}
	}
	return nil, nil
}

func validateOauthLogin(p *api.OauthLoginIntent) error {
	if p.OidcToken == "" || len(p.OidcToken) > maxOIDCTokenLen {
		return apierr.Invalid("parameters.oidcToken must be an OIDC ID token of at most %d bytes", maxOIDCTokenLen)
	}
	if _, err := sessionKeyHex("parameters.publicKey", p.PublicKey); err != nil {
		return err
	}
	return checkExpiration(p.ExpirationSeconds)
}

// execOauthLogin verifies the token (bound to publicKey by its nonce), finds the user holding its identity and opens
// a session for that user, exactly as OTP_LOGIN does.
func execOauthLogin(x *execution, p *api.OauthLoginIntent) (*api.OauthLoginResult, error) {
	ttl, err := x.sessionTTL(p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	sessionKey, err := sessionKeyHex("parameters.publicKey", p.PublicKey)
	if err != nil {
		return nil, err
	}
	claims, err := x.c.verifyOIDC(x.ctx, "parameters.oidcToken", p.OidcToken, x.tokenKey, token.NonceForPublicKey(p.PublicKey))
	if err != nil {
		return nil, err
	}
	u, identity := userWithIdentity(x.org, claims)
	if u == nil {
		return nil, apierr.NotFoundf("no user of organization %s has the OIDC identity the token names (issuer %s); link it with CREATE_OAUTH_PROVIDERS_V2 or log in to the organization that holds it", x.org.ID, claims.Issuer)
	}
	session, err := x.openSession(u, sessionKeySpec{publicKey: sessionKey, ttl: ttl, invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting,
		credType: api.CredentialOAuthP256, profileID: p.SessionProfileID, from: x.madeWithIdentity(u, identity)})
	if err != nil {
		return nil, err
	}
	setSessionMethod(u, sessionKey, api.AuthOAuth)
	return &api.OauthLoginResult{Session: session}, nil
}

func validateCreateOauthProviders(p *api.CreateOauthProvidersIntentV2) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if len(p.OauthProviders) == 0 || len(p.OauthProviders) > maxItemsPerCall {
		return apierr.Invalid("parameters.oauthProviders must list between 1 and %d providers", maxItemsPerCall)
	}
	for i, op := range oauthV2(p.OauthProviders) {
		if err := checkOAuthSpec(fmt.Sprintf("parameters.oauthProviders[%d]", i), op); err != nil {
			return err
		}
	}
	return nil
}

func execCreateOauthProviders(x *execution, p *api.CreateOauthProvidersIntentV2) (*api.CreateOauthProvidersResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	before := len(u.OAuthProviders)
	if err := x.addOAuthProviders(x.org, u, "parameters.oauthProviders", oauthV2(p.OauthProviders), x.madeByStamp()); err != nil {
		return nil, err
	}
	res := &api.CreateOauthProvidersResult{ProviderIDs: []string{}}
	for _, op := range u.OAuthProviders[before:] {
		res.ProviderIDs = append(res.ProviderIDs, op.ID)
	}
	u.UpdatedAt = x.now
	return res, nil
}

func validateDeleteOauthProviders(p *api.DeleteOauthProvidersIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkIDs("parameters.providerIds", p.ProviderIDs, false)
}

func execDeleteOauthProviders(x *execution, p *api.DeleteOauthProvidersIntent) (*api.DeleteOauthProvidersResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	for _, id := range p.ProviderIDs {
		if !slices.ContainsFunc(u.OAuthProviders, func(op *OAuthProvider) bool { return op.ID == id }) {
			return nil, apierr.NotFoundf("OAuth provider %s not found on user %s", id, u.ID)
		}
	}
	u.OAuthProviders = slices.DeleteFunc(u.OAuthProviders, func(op *OAuthProvider) bool { return slices.Contains(p.ProviderIDs, op.ID) })
	u.UpdatedAt = x.now
	return &api.DeleteOauthProvidersResult{ProviderIDs: p.ProviderIDs}, nil
}

// queryGetOauthProviders lists a user's OIDC identities; without userId, the caller's own.
func queryGetOauthProviders(r *reader, q *api.GetOauthProvidersRequest) (*api.GetOauthProvidersResponse, error) {
	u := r.who.User
	if q.UserID != "" || r.who.ViaParent {
		var err error
		if u, err = r.user(q.UserID); err != nil {
			return nil, err
		}
	}
	return &api.GetOauthProvidersResponse{OauthProviders: renderUser(u).OauthProviders}, nil
}

// oidcFilterValue is the list_suborgs OIDC_TOKEN filter: the index value of the identity a verified token names.
func (r *reader) oidcFilterValue(raw string) (string, error) {
	if len(raw) > maxOIDCTokenLen {
		return "", apierr.New(apierr.InvalidArgument, "INVALID_OIDC_TOKEN", "filterValue is longer than %d bytes", maxOIDCTokenLen)
	}
	claims, err := r.c.verifyOIDC(r.ctx, "filterValue", raw, r.c.storedTokenKey(r.ctx), "")
	if err != nil {
		return "", err
	}
	id := identity(claims)
	return oidcIdentity(id.Iss, id.Sub, id.Aud), nil
}

// OpenIDConfigurationHandler serves GET /.well-known/openid-configuration: the discovery document of the
// coordinator's own issuer, so relying parties find the JWKS that verifies the tokens OAUTH2_AUTHENTICATE issues.
// Without Config.OIDCIssuerURL there is no issuer and it answers 404.
func (c *Coordinator) OpenIDConfigurationHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		iss := c.cfg.OIDCIssuerURL
		if iss == "" {
			edge.Fail(w, r, apierr.NotFoundf("this server issues no OIDC tokens (no issuer URL configured)"))
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=300")
		edge.Respond(w, r, map[string]any{
			"issuer":                                iss,
			"jwks_uri":                              strings.TrimSuffix(iss, "/") + "/.well-known/jwks.json",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"ES256"},
			"claims_supported":                      []string{"iss", "sub", "aud", "exp", "iat", "nonce", "encrypted_bearer_token"},
		}, nil)
	})
}
