package coordinator

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/token"
)

// The activity types of this file.
var (
	createOauth2Credential = activity(api.CreateOauth2Credential, on(resConfig, actCreate), validateCreateOauth2Credential, execCreateOauth2Credential)
	updateOauth2Credential = activity(api.UpdateOauth2Credential, on(resConfig, actUpdate), validateUpdateOauth2Credential, execUpdateOauth2Credential)
	deleteOauth2Credential = activity(api.DeleteOauth2Credential, on(resConfig, actDelete), validateDeleteOauth2Credential, execDeleteOauth2Credential)
	oauth2Authenticate     = activity(api.Oauth2Authenticate, on(resAuth, actVerify), validateOauth2Authenticate, execOauth2Authenticate).proxied()
)

// The queries of this file.
var (
	getOauth2Credential   = query(api.GetOauth2Credential, queryGetOauth2Credential)
	listOauth2Credentials = query(api.ListOauth2Credentials, queryListOauth2Credentials)
)

// OAuth 2.0 providers that issue no ID token of their own (X, Discord, any configured one): an organization
// registers its client with CREATE_OAUTH2_CREDENTIAL (the secret sealed like key material), and OAUTH2_AUTHENTICATE
// redeems a user's authorization code, reads the provider's user id and answers with an OIDC token the coordinator
// issues itself, which OAUTH_LOGIN, signup and list_suborgs accept like any trusted issuer's.

// OAuth2Credential is an organization's client registration with an OAuth 2.0 provider. The client secret is a
// sealed row (vault.go); SecretID is empty for a public client, which proves itself with PKCE alone.
type OAuth2Credential struct {
	ID        string    `json:"id"`
	Provider  string    `json:"provider"`
	ClientID  string    `json:"clientId"`
	SecretID  string    `json:"secretId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Limits of the OAuth 2.0 family.
const (
	maxOAuth2Credentials = 32
	maxClientSecretLen   = 4096
	maxAuthCodeLen       = 4096
	maxRedirectURILen    = 2048
	// oauth2TokenTTL is the lifetime of the OIDC tokens OAUTH2_AUTHENTICATE issues, as long as a Google ID token's.
	oauth2TokenTTL = time.Hour
)

// RFC 7636 §4.1: a code verifier is 43 to 128 unreserved characters.
var (
	codeVerifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)
	noncePattern        = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// oauth2Credential finds a credential of the organization.
func (o *Org) oauth2Credential(id string) *OAuth2Credential {
	for _, c := range o.OAuth2Credentials {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// oauth2Provider is the provider a credential names, with the credential's client: a configured provider of that name
// (which may replace a built-in one), else the built-in X or Discord.
func (c *Coordinator) oauth2Provider(name, clientID, secret string) (oidc.Provider, bool) {
	if p, ok := c.cfg.OAuth2Providers[name]; ok {
		if p.Name == "" {
			p.Name = name
		}
		p.ClientID, p.ClientSecret = clientID, secret
		return p, true
	}
	p, err := oidc.BuiltinProvider(name, clientID, secret)
	return p, err == nil
}

// credentialParams are the fields CREATE and UPDATE_OAUTH2_CREDENTIAL share.
type credentialParams struct{ provider, clientID, secret string }

func (p credentialParams) validate() error {
	if err := checkName("parameters.provider", p.provider); err != nil {
		return err
	}
	if err := checkName("parameters.clientId", p.clientID); err != nil {
		return err
	}
	if len(p.secret) > maxClientSecretLen {
		return apierr.Invalid("parameters.encryptedClientSecret is longer than %d bytes", maxClientSecretLen)
	}
	return nil
}

// check refuses a provider this server does not know and a second credential for the same client.
func (x *execution) checkCredential(p credentialParams, self *OAuth2Credential) error {
	if _, ok := x.c.oauth2Provider(p.provider, p.clientID, ""); !ok {
		return apierr.Invalid("parameters.provider: %q is not a provider this server knows; use %s or %s, or configure it", p.provider, api.Oauth2ProviderX, api.Oauth2ProviderDiscord)
	}
	for _, c := range x.org.OAuth2Credentials {
		if c != self && c.Provider == p.provider && c.ClientID == p.clientID {
			return apierr.Conflict("organization %s already has OAuth 2.0 credential %s for client %s of %s; update that one", x.org.ID, c.ID, p.clientID, p.provider)
		}
	}
	return nil
}

// sealClientSecret stores the secret sealed and returns its row id ("" for a public client).
func (x *execution) sealClientSecret(secret string) (string, error) {
	if secret == "" {
		return "", nil
	}
	return x.putSecret([]byte(secret))
}

func validateCreateOauth2Credential(p *api.CreateOauth2CredentialIntent) error {
	return credentialParams{p.Provider, p.ClientID, p.EncryptedClientSecret}.validate()
}

func execCreateOauth2Credential(x *execution, p *api.CreateOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, error) {
	params := credentialParams{p.Provider, p.ClientID, p.EncryptedClientSecret}
	if err := x.checkCredential(params, nil); err != nil {
		return nil, err
	}
	if len(x.org.OAuth2Credentials) >= maxOAuth2Credentials {
		return nil, apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", "organization %s has %d OAuth 2.0 credentials, the most it may have; delete one first", x.org.ID, maxOAuth2Credentials)
	}
	secretID, err := x.sealClientSecret(p.EncryptedClientSecret)
	if err != nil {
		return nil, err
	}
	cred := &OAuth2Credential{ID: newID(), Provider: p.Provider, ClientID: p.ClientID, SecretID: secretID, CreatedAt: x.now, UpdatedAt: x.now}
	x.org.OAuth2Credentials = append(x.org.OAuth2Credentials, cred)
	return &api.Oauth2CredentialIDResult{Oauth2CredentialID: cred.ID}, nil
}

func validateUpdateOauth2Credential(p *api.UpdateOauth2CredentialIntent) error {
	if err := checkID("parameters.oauth2CredentialId", p.Oauth2CredentialID); err != nil {
		return err
	}
	return credentialParams{p.Provider, p.ClientID, p.EncryptedClientSecret}.validate()
}

func execUpdateOauth2Credential(x *execution, p *api.UpdateOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, error) {
	cred, err := x.credential(p.Oauth2CredentialID)
	if err != nil {
		return nil, err
	}
	params := credentialParams{p.Provider, p.ClientID, p.EncryptedClientSecret}
	if err := x.checkCredential(params, cred); err != nil {
		return nil, err
	}
	secretID, err := x.sealClientSecret(p.EncryptedClientSecret)
	if err != nil {
		return nil, err
	}
	if cred.SecretID != "" {
		if err := x.tx.DeleteSecrets(x.ctx, cred.SecretID); err != nil {
			return nil, err
		}
	}
	cred.Provider, cred.ClientID, cred.SecretID, cred.UpdatedAt = p.Provider, p.ClientID, secretID, x.now
	return &api.Oauth2CredentialIDResult{Oauth2CredentialID: cred.ID}, nil
}

func validateDeleteOauth2Credential(p *api.DeleteOauth2CredentialIntent) error {
	return checkID("parameters.oauth2CredentialId", p.Oauth2CredentialID)
}

func execDeleteOauth2Credential(x *execution, p *api.DeleteOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, error) {
	cred, err := x.credential(p.Oauth2CredentialID)
	if err != nil {
		return nil, err
	}
	if cred.SecretID != "" {
		if err := x.tx.DeleteSecrets(x.ctx, cred.SecretID); err != nil {
			return nil, err
		}
	}
	x.org.OAuth2Credentials = removeCredential(x.org.OAuth2Credentials, cred)
	return &api.Oauth2CredentialIDResult{Oauth2CredentialID: cred.ID}, nil
}

func removeCredential(cs []*OAuth2Credential, gone *OAuth2Credential) []*OAuth2Credential {
	out := cs[:0]
	for _, c := range cs {
		if c != gone {
			out = append(out, c)
		}
	}
	return out
}

func (x *execution) credential(id string) (*OAuth2Credential, error) {
	if c := x.org.oauth2Credential(id); c != nil {
		return c, nil
	}
	return nil, apierr.NotFoundf("OAuth 2.0 credential %s not found in organization %s", id, x.org.ID)
}

func validateOauth2Authenticate(p *api.Oauth2AuthenticateIntent) error {
	if err := checkID("parameters.oauth2CredentialId", p.Oauth2CredentialID); err != nil {
		return err
	}
	if p.AuthCode == "" || len(p.AuthCode) > maxAuthCodeLen {
		return apierr.Invalid("parameters.authCode must be the code the provider redirected back with (at most %d bytes)", maxAuthCodeLen)
	}
	if u, err := url.Parse(p.RedirectURI); err != nil || !u.IsAbs() || u.Host == "" || len(p.RedirectURI) > maxRedirectURILen {
		return apierr.Invalid("parameters.redirectUri must be the absolute URL sent in the authorization request")
	}
	if !codeVerifierPattern.MatchString(p.CodeVerifier) {
		return apierr.Invalid("parameters.codeVerifier must be the PKCE verifier: 43 to 128 letters, digits, '-', '.', '_' or '~' (RFC 7636)")
	}
	if !noncePattern.MatchString(p.Nonce) {
		return apierr.Invalid("parameters.nonce must be the lower-case hex SHA-256 of the public key that will log in (64 hex digits)")
	}
	if p.BearerTokenTargetPublicKey != "" {
		if _, err := bundle.ParsePublicKeyHex(p.BearerTokenTargetPublicKey); err != nil {
			return apierr.Invalid("parameters.bearerTokenTargetPublicKey: %s (a P-256 public key in hex)", err.Error())
		}
	}
	return nil
}

// execOauth2Authenticate redeems the code at the credential's provider and issues an OIDC token for the provider's
// user. A failed exchange stores nothing: no token is issued and the organization is unchanged.
func execOauth2Authenticate(x *execution, p *api.Oauth2AuthenticateIntent) (*api.Oauth2AuthenticateResult, error) {
	issuer := x.c.cfg.OIDCIssuerURL
	if issuer == "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server issues no OIDC tokens: configure its issuer URL to use OAUTH2_AUTHENTICATE")
	}
	cred, err := x.credential(p.Oauth2CredentialID)
	if err != nil {
		return nil, err
	}
	ident, err := x.exchange(cred, oidc.AuthCodeGrant{AuthCode: p.AuthCode, RedirectURI: p.RedirectURI, CodeVerifier: p.CodeVerifier})
	if err != nil {
		return nil, err
	}
	extra := map[string]any{}
	if p.BearerTokenTargetPublicKey != "" {
		sealed, err := encryptBearerToken(p.BearerTokenTargetPublicKey, ident.AccessToken)
		if err != nil {
			return nil, err
		}
		extra["encrypted_bearer_token"] = sealed
	}
	k, err := x.tokenKey()
	if err != nil {
		return nil, err
	}
	tok, err := token.IssueIDToken(k, token.IDClaims{Issuer: issuer, Subject: ident.Subject, Audience: cred.ClientID,
		IssuedAt: x.now, ExpiresAt: x.now.Add(oauth2TokenTTL), Nonce: p.Nonce, Extra: extra})
	if err != nil {
		return nil, err
	}
	return &api.Oauth2AuthenticateResult{OidcToken: tok}, nil
}

// exchange opens the client secret for the duration of the exchange and maps the provider's failures.
func (x *execution) exchange(cred *OAuth2Credential, grant oidc.AuthCodeGrant) (*oidc.Identity, error) {
	var secret []byte
	if cred.SecretID != "" {
		var err error
		if secret, err = x.openSecret(cred.SecretID); err != nil {
			return nil, err
		}
		defer keys.Zero(secret)
	}
	provider, ok := x.c.oauth2Provider(cred.Provider, cred.ClientID, string(secret))
	if !ok {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "OAuth 2.0 credential %s names provider %s, which this server no longer configures", cred.ID, cred.Provider)
	}
	ident, err := provider.Exchange(x.ctx, x.c.oauth.http, grant)
	if err == nil {
		return ident, nil
	}
	switch {
	case errors.Is(err, oidc.ErrOAuth2Unavailable):
		x.c.cfg.Logger.Warn("OAuth 2.0 provider unavailable", "organization", x.org.ID, "activity", x.activityID, "provider", cred.Provider, "err", err)
		return nil, apierr.New(apierr.Unavailable, "INTERNAL", "the OAuth 2.0 provider %s could not be reached or failed; nothing was issued, try again later (%s)", cred.Provider, err.Error())
	case errors.Is(err, oidc.ErrOAuth2Rejected):
		return nil, apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "the OAuth 2.0 provider %s refused the authorization: %s (a code is single-use and must be redeemed with the redirectUri and codeVerifier of its authorization request)", cred.Provider, err.Error())
	case errors.Is(err, oidc.ErrOAuth2BadRequest):
		return nil, apierr.Invalid("%s", err.Error())
	case errors.Is(err, oidc.ErrOAuth2BadResponse):
		return nil, apierr.New(apierr.Unavailable, "INTERNAL", "the OAuth 2.0 provider %s answered with something unusable; nothing was issued (%s)", cred.Provider, err.Error())
	}
	return nil, err
}

// encryptBearerToken HPKE-encrypts the provider's access token to the client's key, in the SDKs' ciphertext format.
func encryptBearerToken(targetHex, accessToken string) (string, error) {
	pub, err := bundle.ParsePublicKeyHex(targetHex)
	if err != nil {
		return "", apierr.Invalid("parameters.bearerTokenTargetPublicKey: %s", err.Error())
	}
	ct, err := bundle.Seal(pub, []byte(accessToken))
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(ct)
	return string(out), err
}

func renderOauth2Credential(org *Org, c *OAuth2Credential) api.Oauth2Credential {
	return api.Oauth2Credential{Oauth2CredentialID: c.ID, OrganizationID: org.ID, Provider: c.Provider, ClientID: c.ClientID,
		EncryptedClientSecret: api.Redacted, CreatedAt: api.NewTimestamp(c.CreatedAt), UpdatedAt: api.NewTimestamp(c.UpdatedAt)}
}

func queryGetOauth2Credential(r *reader, q *api.GetOauth2CredentialRequest) (*api.GetOauth2CredentialResponse, error) {
	if err := checkID("oauth2CredentialId", q.Oauth2CredentialID); err != nil {
		return nil, err
	}
	c := r.org.oauth2Credential(q.Oauth2CredentialID)
	if c == nil {
		return nil, apierr.NotFoundf("OAuth 2.0 credential %s not found in organization %s", q.Oauth2CredentialID, r.org.ID)
	}
	return &api.GetOauth2CredentialResponse{Oauth2Credential: renderOauth2Credential(r.org, c)}, nil
}

func queryListOauth2Credentials(r *reader, _ *api.OrganizationRequest) (*api.ListOauth2CredentialsResponse, error) {
	out := &api.ListOauth2CredentialsResponse{Oauth2Credentials: []api.Oauth2Credential{}}
	for _, c := range r.org.OAuth2Credentials {
		out.Oauth2Credentials = append(out.Oauth2Credentials, renderOauth2Credential(r.org, c))
	}
	return out, nil
}
