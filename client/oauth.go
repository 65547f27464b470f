package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// OAuth activities and queries. OAUTH_LOGIN, OAUTH2_AUTHENTICATE and the OAuth 2.0 credential activities carry a
// secret (the OIDC token, the authorization code and PKCE verifier, the client secret) that the API types hide when
// they are encoded, so activity records never hold it; these methods send the fields as they are.

// CreateOauthProviders links OIDC identities to a user (CREATE_OAUTH_PROVIDERS_V2); a token is verified, claims are
// taken as given.
func (c *Client) CreateOauthProviders(ctx context.Context, orgID string, p api.CreateOauthProvidersIntentV2) (*api.CreateOauthProvidersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateOauthProvidersV2, p)
}

// DeleteOauthProviders unlinks OIDC identities from a user (DELETE_OAUTH_PROVIDERS).
func (c *Client) DeleteOauthProviders(ctx context.Context, orgID string, p api.DeleteOauthProvidersIntent) (*api.DeleteOauthProvidersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteOauthProviders, p)
}

// OauthLogin turns an OIDC token whose nonce is hex(sha256(p.PublicKey)) into a session (OAUTH_LOGIN) in the
// organization of the user holding its identity.
func (c *Client) OauthLogin(ctx context.Context, orgID string, p api.OauthLoginIntent) (*api.OauthLoginResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.OauthLogin, p)
}

// CreateOauth2Credential registers the organization's client with an OAuth 2.0 provider (CREATE_OAUTH2_CREDENTIAL).
func (c *Client) CreateOauth2Credential(ctx context.Context, orgID string, p api.CreateOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateOauth2Credential, p)
}

// UpdateOauth2Credential replaces a credential's provider, client id and secret (UPDATE_OAUTH2_CREDENTIAL).
func (c *Client) UpdateOauth2Credential(ctx context.Context, orgID string, p api.UpdateOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateOauth2Credential, p)
}

// DeleteOauth2Credential removes a credential and its sealed secret (DELETE_OAUTH2_CREDENTIAL).
func (c *Client) DeleteOauth2Credential(ctx context.Context, orgID string, p api.DeleteOauth2CredentialIntent) (*api.Oauth2CredentialIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteOauth2Credential, p)
}

// Oauth2Authenticate redeems an authorization code at the credential's provider and returns an OIDC token issued by
// the coordinator (OAUTH2_AUTHENTICATE).
func (c *Client) Oauth2Authenticate(ctx context.Context, orgID string, p api.Oauth2AuthenticateIntent) (*api.Oauth2AuthenticateResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.Oauth2Authenticate, p)
}

// GetOauthProviders lists a user's OIDC identities; with an empty userID, the caller's own.
func (c *Client) GetOauthProviders(ctx context.Context, orgID, userID string) (*api.GetOauthProvidersResponse, error) {
	return query(ctx, c, api.GetOauthProviders, api.GetOauthProvidersRequest{OrganizationID: orgID, UserID: userID})
}

// GetOauth2Credential reads one OAuth 2.0 credential (its secret is never returned).
func (c *Client) GetOauth2Credential(ctx context.Context, orgID, credentialID string) (*api.GetOauth2CredentialResponse, error) {
	return query(ctx, c, api.GetOauth2Credential, api.GetOauth2CredentialRequest{OrganizationID: orgID, Oauth2CredentialID: credentialID})
}

// ListOauth2Credentials lists the organization's OAuth 2.0 credentials.
func (c *Client) ListOauth2Credentials(ctx context.Context, orgID string) (*api.ListOauth2CredentialsResponse, error) {
	return query(ctx, c, api.ListOauth2Credentials, api.OrganizationRequest{OrganizationID: orgID})
}
