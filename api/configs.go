package api

// FeatureNames are the organization features of the reference (v1FeatureName).
var FeatureNames = []string{"FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY", "FEATURE_NAME_WEBAUTHN_ORIGINS", "FEATURE_NAME_EMAIL_AUTH",
	"FEATURE_NAME_EMAIL_RECOVERY", "FEATURE_NAME_WEBHOOK", "FEATURE_NAME_SMS_AUTH", "FEATURE_NAME_OTP_EMAIL_AUTH",
	"FEATURE_NAME_AUTH_PROXY", "FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED", "FEATURE_NAME_SWAP_CONFIG", "FEATURE_NAME_EARN_CONFIG"}

// SetOrganizationFeatureIntent is ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE (root quorum only).
type SetOrganizationFeatureIntent struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RemoveOrganizationFeatureIntent is ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE (root quorum only).
type RemoveOrganizationFeatureIntent struct {
	Name string `json:"name"`
}

// FeaturesResult is the organization's features after the change.
type FeaturesResult struct {
	Features []Feature `json:"features"`
}

// OrganizationConfigs are an organization's features and root quorum (get_organization_configs).
type OrganizationConfigs struct {
	Features []Feature `json:"features"`
	Quorum   Quorum    `json:"quorum"`
}

// GetOrganizationConfigsResponse is the answer of get_organization_configs.
type GetOrganizationConfigsResponse struct {
	Configs OrganizationConfigs `json:"configs"`
}

// GetAPIKeyRequest is the body of get_api_key.
type GetAPIKeyRequest struct {
	OrganizationID string `json:"organizationId"`
	APIKeyID       string `json:"apiKeyId"`
}

// GetAPIKeyResponse is one API key.
type GetAPIKeyResponse struct {
	APIKey APIKey `json:"apiKey"`
}

// GetAuthenticatorRequest is the body of get_authenticator.
type GetAuthenticatorRequest struct {
	OrganizationID  string `json:"organizationId"`
	AuthenticatorID string `json:"authenticatorId"`
}

// GetAuthenticatorResponse is one passkey.
type GetAuthenticatorResponse struct {
	Authenticator Authenticator `json:"authenticator"`
}

// The activity types of this file.
var (
	SetOrganizationFeature = activity[SetOrganizationFeatureIntent, FeaturesResult](
		"SET_ORGANIZATION_FEATURE", "set_organization_feature", "setOrganizationFeatureIntent", "setOrganizationFeatureResult")
	RemoveOrganizationFeature = activity[RemoveOrganizationFeatureIntent, FeaturesResult](
		"REMOVE_ORGANIZATION_FEATURE", "remove_organization_feature", "removeOrganizationFeatureIntent", "removeOrganizationFeatureResult")
)

// The queries of this file.
var (
	GetOrganizationConfigs = query[OrganizationRequest, GetOrganizationConfigsResponse]("get_organization_configs")
	GetAPIKey              = query[GetAPIKeyRequest, GetAPIKeyResponse]("get_api_key")
	GetAuthenticator       = query[GetAuthenticatorRequest, GetAuthenticatorResponse]("get_authenticator")
)
