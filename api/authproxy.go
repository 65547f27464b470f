package api

// The auth proxy family: an organization's proxy configuration (ENABLE_AUTH_PROXY, UPDATE_AUTH_PROXY_CONFIG,
// ROTATE_AUTH_PROXY_KEY, DISABLE_AUTH_PROXY), the query its administrators read it with (get_auth_proxy_config),
// the query the proxy service reads it with by configuration id (resolve_auth_proxy_config), and the bodies of the
// proxy's own /v1 endpoints (first specification, section 4.1; reference, section 6).

// Authentication methods of a proxy configuration (allowedAuthMethods, enabledSocialProviders), named as
// wallet_kit_config's enabledProviders names them.
const (
	AuthMethodEmail    = "email"
	AuthMethodSMS      = "sms"
	AuthMethodPasskey  = "passkey"
	AuthMethodWallet   = "wallet"
	AuthMethodGoogle   = "google"
	AuthMethodApple    = "apple"
	AuthMethodFacebook = "facebook"
	AuthMethodX        = "x"
	AuthMethodDiscord  = "discord"
)

// AuthMethods lists every method a configuration may enable.
var AuthMethods = []string{AuthMethodEmail, AuthMethodSMS, AuthMethodPasskey, AuthMethodWallet, AuthMethodGoogle,
	AuthMethodApple, AuthMethodFacebook, AuthMethodX, AuthMethodDiscord}

// SocialAuthMethods are the methods that log in with an OIDC token (oauth_login, oauth2_authenticate).
var SocialAuthMethods = []string{AuthMethodGoogle, AuthMethodApple, AuthMethodFacebook, AuthMethodX, AuthMethodDiscord}

// EnableAuthProxyIntent is ACTIVITY_TYPE_ENABLE_AUTH_PROXY (v1EnableAuthProxyIntent: no parameters). The first
// enable creates the configuration with its defaults; settings change with UPDATE_AUTH_PROXY_CONFIG.
type EnableAuthProxyIntent struct{}

// EnableAuthProxyResult names the proxy user (v1EnableAuthProxyResult) and, beyond the reference, the
// configuration id clients send as X-Auth-Proxy-Config-Id.
type EnableAuthProxyResult struct {
	UserID   string `json:"userId"`
	ConfigID string `json:"configId"`
}

// WalletKitSettingsParams is v1WalletKitSettingsParams.
type WalletKitSettingsParams struct {
	EnabledSocialProviders []string          `json:"enabledSocialProviders,omitempty"`
	OauthClientIDs         map[string]string `json:"oauthClientIds,omitempty"`
	OauthRedirectURL       *string           `json:"oauthRedirectUrl,omitempty"`
}

// UpdateAuthProxyConfigIntent is ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG (v1UpdateAuthProxyConfigIntent). Every
// field is optional: a field that is present replaces the setting, an absent one keeps it.
type UpdateAuthProxyConfigIntent struct {
	AllowedOrigins                            []string                  `json:"allowedOrigins,omitempty"`
	AllowedAuthMethods                        []string                  `json:"allowedAuthMethods,omitempty"`
	SendFromEmailAddress                      *string                   `json:"sendFromEmailAddress,omitempty"`
	ReplyToEmailAddress                       *string                   `json:"replyToEmailAddress,omitempty"`
	SendFromEmailSenderName                   *string                   `json:"sendFromEmailSenderName,omitempty"`
	EmailCustomizationParams                  *EmailCustomizationParams `json:"emailCustomizationParams,omitempty"`
	SmsCustomizationParams                    *SmsCustomizationParams   `json:"smsCustomizationParams,omitempty"`
	WalletKitSettings                         *WalletKitSettingsParams  `json:"walletKitSettings,omitempty"`
	OtpExpirationSeconds                      *int32                    `json:"otpExpirationSeconds,omitempty"`
	VerificationTokenExpirationSeconds        *int32                    `json:"verificationTokenExpirationSeconds,omitempty"`
	SessionExpirationSeconds                  *int32                    `json:"sessionExpirationSeconds,omitempty"`
	OtpAlphanumeric                           *bool                     `json:"otpAlphanumeric,omitempty"`
	OtpLength                                 *int32                    `json:"otpLength,omitempty"`
	VerificationTokenRequiredForGetAccountPii *bool                     `json:"verificationTokenRequiredForGetAccountPii,omitempty"`

	// Known fields of the reference Sigil does not implement: sending one is an error that says so.
	EmailAuthTemplateID    string   `json:"emailAuthTemplateId,omitempty" sigil:"unsupported"`
	OtpTemplateID          string   `json:"otpTemplateId,omitempty" sigil:"unsupported"`
	SocialLinkingClientIDs []string `json:"socialLinkingClientIds,omitempty" sigil:"unsupported"`
	CaptchaEnabled         *bool    `json:"captchaEnabled,omitempty" sigil:"unsupported"`
}

// UpdateAuthProxyConfigResult names the configuration (v1UpdateAuthProxyConfigResult).
type UpdateAuthProxyConfigResult struct {
	ConfigID string `json:"configId"`
}

// RotateAuthProxyKeyIntent is ACTIVITY_TYPE_ROTATE_AUTH_PROXY_KEY: the proxy user's API key is replaced by a new
// one; the old key stops working at once.
type RotateAuthProxyKeyIntent struct{}

// RotateAuthProxyKeyResult names the new key.
type RotateAuthProxyKeyResult struct {
	ConfigID  string `json:"configId"`
	APIKeyID  string `json:"apiKeyId"`
	PublicKey string `json:"publicKey"`
}

// DisableAuthProxyIntent is ACTIVITY_TYPE_DISABLE_AUTH_PROXY (v1DisableAuthProxyIntent): the proxy refuses the
// configuration's requests and its key is deleted; the settings stay for a later enable.
type DisableAuthProxyIntent struct{}

// DisableAuthProxyResult is v1DisableAuthProxyResult (empty).
type DisableAuthProxyResult struct{}

// AuthProxySettings are a configuration's settings (first specification, section 2.1).
type AuthProxySettings struct {
	// AllowedOrigins lists the browser origins that may call the proxy; ["*"] allows every origin.
	AllowedOrigins []string `json:"allowedOrigins"`
	// AllowedAuthMethods lists the enabled methods (AuthMethods).
	AllowedAuthMethods      []string                 `json:"allowedAuthMethods"`
	SendFromEmailAddress    string                   `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                   `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                   `json:"replyToEmailAddress,omitempty"`
	EmailCustomization      EmailCustomizationParams `json:"emailCustomizationParams"`
	SmsCustomization        SmsCustomizationParams   `json:"smsCustomizationParams"`
	WalletKitSettings       WalletKitSettings        `json:"walletKitSettings"`
	// Lifetimes in seconds; 0 means the coordinator's default.
	OtpExpirationSeconds               int32 `json:"otpExpirationSeconds"`
	VerificationTokenExpirationSeconds int32 `json:"verificationTokenExpirationSeconds"`
	SessionExpirationSeconds           int32 `json:"sessionExpirationSeconds"`
	OtpAlphanumeric                    bool  `json:"otpAlphanumeric"`
	OtpLength                          int32 `json:"otpLength"`
	// VerificationTokenRequiredForGetAccountPii: /v1/account looks up an e-mail address or phone number only with a
	// verification token (or OIDC token) for that very contact.
	VerificationTokenRequiredForGetAccountPii bool `json:"verificationTokenRequiredForGetAccountPii"`
}

// WalletKitSettings are the settings wallet_kit_config publishes for social logins.
type WalletKitSettings struct {
	EnabledSocialProviders []string          `json:"enabledSocialProviders"`
	OauthClientIDs         map[string]string `json:"oauthClientIds"`
	OauthRedirectURL       string            `json:"oauthRedirectUrl"`
}

// AuthProxyConfig is a configuration as its organization's administrators read it.
type AuthProxyConfig struct {
	ConfigID       string `json:"configId"`
	OrganizationID string `json:"organizationId"`
	Enabled        bool   `json:"enabled"`
	// ProxyUserID is the user the proxy acts as; ProxyAPIKeyID and ProxyPublicKey its current key (empty while
	// disabled).
	ProxyUserID    string `json:"proxyUserId"`
	ProxyAPIKeyID  string `json:"proxyApiKeyId,omitempty"`
	ProxyPublicKey string `json:"proxyPublicKey,omitempty"`
	AuthProxySettings
	CreatedAt Timestamp `json:"createdAt"`
	UpdatedAt Timestamp `json:"updatedAt"`
}

// GetAuthProxyConfigResponse is the body of get_auth_proxy_config.
type GetAuthProxyConfigResponse struct {
	Config AuthProxyConfig `json:"config"`
}

// ResolveAuthProxyConfigRequest is the body of resolve_auth_proxy_config, stamped with the proxy service's key.
type ResolveAuthProxyConfigRequest struct {
	ConfigID string `json:"configId"`
}

// ResolveAuthProxyConfigResponse is what the proxy needs to serve a configuration: its settings and the proxy key,
// encrypted to the proxy service's HPKE key.
type ResolveAuthProxyConfigResponse struct {
	Config AuthProxyConfig `json:"config"`
	// EncryptedProxyKey is the proxy key's private half: an HPKE ciphertext ({"encappedPublic","ciphertext"} as JSON
	// text) addressed to EncryptionPublicKey, whose plaintext is an AuthProxyKeyPlaintext. Empty while disabled.
	EncryptedProxyKey string `json:"encryptedProxyKey,omitempty"`
	// EncryptionPublicKey is the proxy service key the ciphertext is addressed to (uncompressed P-256, hex).
	EncryptionPublicKey string `json:"encryptionPublicKey,omitempty"`
	// OrganizationName is the organization's name: the app name of OTP messages when the settings give none.
	OrganizationName string `json:"organizationName"`
	// TokenPublicKey verifies the coordinator's verification tokens (P-256, compressed hex): /v1/account checks the
	// token that unlocks an e-mail or phone look-up.
	TokenPublicKey string `json:"tokenPublicKey"`
}

// AuthProxyKeyPlaintext is the plaintext of EncryptedProxyKey: the key, bound to its organization and configuration
// so a ciphertext moved to another configuration is refused.
type AuthProxyKeyPlaintext struct {
	OrganizationID string `json:"organizationId"`
	ConfigID       string `json:"configId"`
	PublicKey      string `json:"publicKey"`
	PrivateKey     string `json:"privateKey"`
}

// The proxy's /v1 endpoints (reference, section 6). Each body is decoded strictly: an unknown field is refused
// before anything reaches the coordinator.

// ProxyEmailCustomization is v1ProxyEmailCustomizationParams.
type ProxyEmailCustomization struct {
	TemplateID string `json:"templateId,omitempty"`
}

// ProxyInitOtpRequest is the body of /v1/otp_init and /v1/otp_init_v2.
type ProxyInitOtpRequest struct {
	OtpType            string                   `json:"otpType"`
	Contact            string                   `json:"contact"`
	EmailCustomization *ProxyEmailCustomization `json:"emailCustomization,omitempty"`
	// UserIdentifier keys the coordinator's per-user SMS rate limit (a hash of the client's IP is recommended).
	UserIdentifier string `json:"userIdentifier,omitempty"`
}

// ProxyInitOtpResponse is the answer of /v1/otp_init.
type ProxyInitOtpResponse struct {
	OtpID string `json:"otpId"`
}

// ProxyInitOtpV2Response is the answer of /v1/otp_init_v2.
type ProxyInitOtpV2Response struct {
	OtpID                     string `json:"otpId"`
	OtpEncryptionTargetBundle string `json:"otpEncryptionTargetBundle"`
}

// ProxyVerifyOtpRequest is the body of /v1/otp_verify.
type ProxyVerifyOtpRequest struct {
	OtpID     string `json:"otpId"`
	OtpCode   string `json:"otpCode"`
	PublicKey string `json:"publicKey,omitempty"`
}

// ProxyVerifyOtpV2Request is the body of /v1/otp_verify_v2.
type ProxyVerifyOtpV2Request struct {
	OtpID              string `json:"otpId"`
	EncryptedOtpBundle string `json:"encryptedOtpBundle"`
}

// ProxyVerifyOtpResponse is the answer of both verify endpoints.
type ProxyVerifyOtpResponse struct {
	VerificationToken string `json:"verificationToken"`
}

// ProxyOtpLoginRequest is the body of /v1/otp_login and /v1/otp_login_v2 (which requires ClientSignature).
type ProxyOtpLoginRequest struct {
	VerificationToken  string           `json:"verificationToken"`
	PublicKey          string           `json:"publicKey"`
	InvalidateExisting *bool            `json:"invalidateExisting,omitempty"`
	OrganizationID     string           `json:"organizationId,omitempty"`
	ClientSignature    *ClientSignature `json:"clientSignature,omitempty"`
}

// ProxySessionResponse is the answer of the login endpoints.
type ProxySessionResponse struct {
	Session string `json:"session"`
}

// ProxySignupRequest is the body of /v1/signup (OauthProviderParams) and /v1/signup_v2 (OauthProviderParamsV2):
// OauthProviders holds either, decoded by the endpoint.
type ProxySignupRequest[O any] struct {
	UserEmail         string                  `json:"userEmail,omitempty"`
	UserPhoneNumber   string                  `json:"userPhoneNumber,omitempty"`
	UserTag           string                  `json:"userTag,omitempty"`
	UserName          string                  `json:"userName,omitempty"`
	OrganizationName  string                  `json:"organizationName,omitempty"`
	VerificationToken string                  `json:"verificationToken,omitempty"`
	APIKeys           []APIKeyParamsV2        `json:"apiKeys"`
	Authenticators    []AuthenticatorParamsV2 `json:"authenticators"`
	OauthProviders    []O                     `json:"oauthProviders"`
	Wallet            *WalletParams           `json:"wallet,omitempty"`
	ClientSignature   *ClientSignature        `json:"clientSignature,omitempty"`
}

// ProxySignupResponse is the answer of both signup endpoints. App proofs are passed through as the coordinator made
// them: the proxy does not verify them, the end user's client does.
type ProxySignupResponse struct {
	OrganizationID string        `json:"organizationId"`
	UserID         string        `json:"userId"`
	Wallet         *WalletResult `json:"wallet,omitempty"`
	AppProofs      []AppProof    `json:"appProofs,omitempty"`
}

// ProxyOauth2AuthenticateRequest is the body of /v1/oauth2_authenticate.
type ProxyOauth2AuthenticateRequest struct {
	Provider     string `json:"provider"`
	AuthCode     string `json:"authCode"`
	RedirectURI  string `json:"redirectUri"`
	CodeVerifier string `json:"codeVerifier"`
	Nonce        string `json:"nonce"`
	ClientID     string `json:"clientId"`
}

// ProxyOauth2AuthenticateResponse is the answer of /v1/oauth2_authenticate.
type ProxyOauth2AuthenticateResponse struct {
	OidcToken string `json:"oidcToken"`
}

// ProxyOauthLoginRequest is the body of /v1/oauth_login.
type ProxyOauthLoginRequest struct {
	OidcToken          string `json:"oidcToken"`
	PublicKey          string `json:"publicKey"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
	OrganizationID     string `json:"organizationId,omitempty"`
}

// ProxyAccountRequest is the body of /v1/account.
type ProxyAccountRequest struct {
	FilterType        string `json:"filterType"`
	FilterValue       string `json:"filterValue"`
	VerificationToken string `json:"verificationToken,omitempty"`
	OidcToken         string `json:"oidcToken,omitempty"`
}

// ProxyAccountResponse is the answer of /v1/account: the organization, or none.
type ProxyAccountResponse struct {
	OrganizationID string `json:"organizationId,omitempty"`
}

// ProxyWalletKitConfigResponse is the answer of /v1/wallet_kit_config: the configuration's public settings.
type ProxyWalletKitConfigResponse struct {
	EnabledProviders         []string          `json:"enabledProviders"`
	SessionExpirationSeconds string            `json:"sessionExpirationSeconds"`
	OrganizationID           string            `json:"organizationId"`
	OauthClientIDs           map[string]string `json:"oauthClientIds,omitempty"`
	OauthRedirectURL         string            `json:"oauthRedirectUrl,omitempty"`
	OtpAlphanumeric          bool              `json:"otpAlphanumeric"`
	OtpLength                string            `json:"otpLength"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	EnableAuthProxy       = activity[EnableAuthProxyIntent, EnableAuthProxyResult]("ENABLE_AUTH_PROXY", "enable_auth_proxy", "enableAuthProxyIntent", "enableAuthProxyResult")
	UpdateAuthProxyConfig = activity[UpdateAuthProxyConfigIntent, UpdateAuthProxyConfigResult]("UPDATE_AUTH_PROXY_CONFIG", "update_auth_proxy_config", "updateAuthProxyConfigIntent", "updateAuthProxyConfigResult")
	RotateAuthProxyKey    = activity[RotateAuthProxyKeyIntent, RotateAuthProxyKeyResult]("ROTATE_AUTH_PROXY_KEY", "rotate_auth_proxy_key", "rotateAuthProxyKeyIntent", "rotateAuthProxyKeyResult")
	DisableAuthProxy      = activity[DisableAuthProxyIntent, DisableAuthProxyResult]("DISABLE_AUTH_PROXY", "disable_auth_proxy", "disableAuthProxyIntent", "disableAuthProxyResult")
)

// The queries of this file: their paths and their request and response types.
var (
	GetAuthProxyConfig     = query[OrganizationRequest, GetAuthProxyConfigResponse]("get_auth_proxy_config")
	ResolveAuthProxyConfig = query[ResolveAuthProxyConfigRequest, ResolveAuthProxyConfigResponse]("resolve_auth_proxy_config")
)
