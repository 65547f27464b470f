package api

// The OAuth family: OIDC identities on users (CREATE_OAUTH_PROVIDERS_V2, DELETE_OAUTH_PROVIDERS), login with an
// OIDC token (OAUTH_LOGIN), and OAuth 2.0 providers that issue no ID token of their own (X, Discord): their client
// credentials (CREATE/UPDATE/DELETE_OAUTH2_CREDENTIAL) and the code exchange that ends in an OIDC token issued by the
// coordinator (OAUTH2_AUTHENTICATE).

// OAuth 2.0 providers configured out of the box (v1Oauth2Provider).
const (
	Oauth2ProviderX       = "OAUTH2_PROVIDER_X"
	Oauth2ProviderDiscord = "OAUTH2_PROVIDER_DISCORD"
)

// CreateOauthProvidersIntentV2 is ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: OIDC identities for a user, each by a
// token (verified) or by its claims.
type CreateOauthProvidersIntentV2 struct {
	UserID         string                  `json:"userId"`
	OauthProviders []OauthProviderParamsV2 `json:"oauthProviders"`
}

// CreateOauthProvidersResult lists the new providers' ids in order.
type CreateOauthProvidersResult struct {
	ProviderIDs []string `json:"providerIds"`
}

// DeleteOauthProvidersIntent is ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS.
type DeleteOauthProvidersIntent struct {
	UserID      string   `json:"userId"`
	ProviderIDs []string `json:"providerIds"`
}

// DeleteOauthProvidersResult lists the deleted providers.
type DeleteOauthProvidersResult struct {
	ProviderIDs []string `json:"providerIds"`
}

// OauthLoginIntent is ACTIVITY_TYPE_OAUTH_LOGIN: an OIDC token whose nonce is hex(SHA-256(publicKey)) opens a
// session for the user holding its identity. The token is secret: records show Redacted.
type OauthLoginIntent struct {
	OidcToken          string `json:"oidcToken" sigil:"secret"`
	PublicKey          string `json:"publicKey"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
	SessionProfileID   string `json:"sessionProfileId,omitempty"`
}

// OauthLoginResult is the result of OAUTH_LOGIN: a session JWT.
type OauthLoginResult struct {
	Session string `json:"session"`
}

// CreateOauth2CredentialIntent is ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL: our client registration with an OAuth 2.0
// provider. Sigil has no TLS-fetcher enclave to encrypt the secret to: EncryptedClientSecret carries the client
// secret itself, sealed at rest and never recorded (records show Redacted).
type CreateOauth2CredentialIntent struct {
	Provider              string `json:"provider"`
	ClientID              string `json:"clientId"`
	EncryptedClientSecret string `json:"encryptedClientSecret" sigil:"secret"`
}

// UpdateOauth2CredentialIntent is ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL: it replaces the provider, client id and
// secret of a credential; the secret is recorded as Redacted, as CreateOauth2CredentialIntent's is.
type UpdateOauth2CredentialIntent struct {
	Oauth2CredentialID    string `json:"oauth2CredentialId"`
	Provider              string `json:"provider"`
	ClientID              string `json:"clientId"`
	EncryptedClientSecret string `json:"encryptedClientSecret" sigil:"secret"`
}

// DeleteOauth2CredentialIntent is ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL.
type DeleteOauth2CredentialIntent struct {
	Oauth2CredentialID string `json:"oauth2CredentialId"`
}

// Oauth2CredentialIDResult names the credential created, updated or deleted.
type Oauth2CredentialIDResult struct {
	Oauth2CredentialID string `json:"oauth2CredentialId"`
}

// Oauth2AuthenticateIntent is ACTIVITY_TYPE_OAUTH2_AUTHENTICATE: redeem an authorization code (with its PKCE
// verifier) at the credential's provider and get an OIDC token issued by the coordinator. The code and the verifier are
// secret: records show Redacted.
type Oauth2AuthenticateIntent struct {
	Oauth2CredentialID string `json:"oauth2CredentialId"`
	AuthCode           string `json:"authCode" sigil:"secret"`
	RedirectURI        string `json:"redirectUri"`
	CodeVerifier       string `json:"codeVerifier" sigil:"secret"`
	// Nonce is hex(SHA-256(publicKey)) of the key that will log in with the token.
	Nonce string `json:"nonce"`
	// BearerTokenTargetPublicKey, when set, is a P-256 key the provider's access token is encrypted to (HPKE), in the
	// token's encrypted_bearer_token claim.
	BearerTokenTargetPublicKey string `json:"bearerTokenTargetPublicKey,omitempty"`
}

// Oauth2AuthenticateResult is the OIDC token for OAUTH_LOGIN, signup and list_suborgs.
type Oauth2AuthenticateResult struct {
	OidcToken string `json:"oidcToken"`
}

// GetOauthProvidersRequest is the body of get_oauth_providers: a user's OIDC identities, or the caller's own.
type GetOauthProvidersRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId,omitempty"`
}

// GetOauthProvidersResponse lists OIDC identities.
type GetOauthProvidersResponse struct {
	OauthProviders []OauthProvider `json:"oauthProviders"`
}

// Oauth2Credential is an OAuth 2.0 client registration as queries return it. EncryptedClientSecret is always
// Redacted: the secret never leaves the coordinator.
type Oauth2Credential struct {
	Oauth2CredentialID    string    `json:"oauth2CredentialId"`
	OrganizationID        string    `json:"organizationId"`
	Provider              string    `json:"provider"`
	ClientID              string    `json:"clientId"`
	EncryptedClientSecret string    `json:"encryptedClientSecret"`
	CreatedAt             Timestamp `json:"createdAt"`
	UpdatedAt             Timestamp `json:"updatedAt"`
}

// GetOauth2CredentialRequest is the body of get_oauth2_credential.
type GetOauth2CredentialRequest struct {
	OrganizationID     string `json:"organizationId"`
	Oauth2CredentialID string `json:"oauth2CredentialId"`
}

// GetOauth2CredentialResponse holds one credential.
type GetOauth2CredentialResponse struct {
	Oauth2Credential Oauth2Credential `json:"oauth2Credential"`
}

// ListOauth2CredentialsResponse lists the organization's credentials.
type ListOauth2CredentialsResponse struct {
	Oauth2Credentials []Oauth2Credential `json:"oauth2Credentials"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	CreateOauthProvidersV2 = activity[CreateOauthProvidersIntentV2, CreateOauthProvidersResult]("CREATE_OAUTH_PROVIDERS_V2", "create_oauth_providers", "createOauthProvidersIntentV2", "createOauthProvidersResultV2")
	DeleteOauthProviders   = activity[DeleteOauthProvidersIntent, DeleteOauthProvidersResult]("DELETE_OAUTH_PROVIDERS", "delete_oauth_providers", "deleteOauthProvidersIntent", "deleteOauthProvidersResult")
	OauthLogin             = activity[OauthLoginIntent, OauthLoginResult]("OAUTH_LOGIN", "oauth_login", "oauthLoginIntent", "oauthLoginResult")
	CreateOauth2Credential = activity[CreateOauth2CredentialIntent, Oauth2CredentialIDResult]("CREATE_OAUTH2_CREDENTIAL", "create_oauth2_credential", "createOauth2CredentialIntent", "createOauth2CredentialResult")
	UpdateOauth2Credential = activity[UpdateOauth2CredentialIntent, Oauth2CredentialIDResult]("UPDATE_OAUTH2_CREDENTIAL", "update_oauth2_credential", "updateOauth2CredentialIntent", "updateOauth2CredentialResult")
	DeleteOauth2Credential = activity[DeleteOauth2CredentialIntent, Oauth2CredentialIDResult]("DELETE_OAUTH2_CREDENTIAL", "delete_oauth2_credential", "deleteOauth2CredentialIntent", "deleteOauth2CredentialResult")
	Oauth2Authenticate     = activity[Oauth2AuthenticateIntent, Oauth2AuthenticateResult]("OAUTH2_AUTHENTICATE", "oauth2_authenticate", "oauth2AuthenticateIntent", "oauth2AuthenticateResult")
)

// The queries of this file: their paths and their request and response types.
var (
	GetOauthProviders     = query[GetOauthProvidersRequest, GetOauthProvidersResponse]("get_oauth_providers")
	GetOauth2Credential   = query[GetOauth2CredentialRequest, GetOauth2CredentialResponse]("get_oauth2_credential")
	ListOauth2Credentials = query[OrganizationRequest, ListOauth2CredentialsResponse]("list_oauth2_credentials")
)
