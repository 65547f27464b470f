package api

// ApiKeyParamsV2 registers an API key.
type APIKeyParamsV2 struct {
	APIKeyName        string `json:"apiKeyName"`
	PublicKey         string `json:"publicKey"`
	CurveType         string `json:"curveType"`
	ExpirationSeconds string `json:"expirationSeconds,omitempty"`
}

// API key curves.
const (
	CurveP256      = "API_KEY_CURVE_P256"
	CurveSecp256k1 = "API_KEY_CURVE_SECP256K1"
	CurveEd25519   = "API_KEY_CURVE_ED25519"
)

// AuthenticatorParamsV2 registers a passkey from a WebAuthn attestation.
type AuthenticatorParamsV2 struct {
	AuthenticatorName string      `json:"authenticatorName"`
	Challenge         string      `json:"challenge"`
	Attestation       Attestation `json:"attestation"`
}

// Attestation is a WebAuthn registration response (base64url fields).
type Attestation struct {
	CredentialID      string   `json:"credentialId"`
	ClientDataJSON    string   `json:"clientDataJson"`
	AttestationObject string   `json:"attestationObject"`
	Transports        []string `json:"transports"`
}

// OauthProviderParams links an OIDC identity by token (v1).
type OauthProviderParams struct {
	ProviderName string `json:"providerName"`
	OidcToken    string `json:"oidcToken"`
}

// OauthProviderParamsV2 links an OIDC identity by token or by explicit claims.
type OauthProviderParamsV2 struct {
	ProviderName string      `json:"providerName"`
	OidcToken    string      `json:"oidcToken,omitempty"`
	OidcClaims   *OidcClaims `json:"oidcClaims,omitempty"`
}

// OidcClaims identifies an OIDC identity.
type OidcClaims struct {
	Iss string `json:"iss"`
	Sub string `json:"sub"`
	Aud string `json:"aud"`
}

// UserParamsV3 is one user of CREATE_USERS_V3.
type UserParamsV3 struct {
	UserName        string                  `json:"userName"`
	UserEmail       string                  `json:"userEmail,omitempty"`
	UserPhoneNumber string                  `json:"userPhoneNumber,omitempty"`
	APIKeys         []APIKeyParamsV2        `json:"apiKeys"`
	Authenticators  []AuthenticatorParamsV2 `json:"authenticators"`
	OauthProviders  []OauthProviderParams   `json:"oauthProviders"`
	UserTags        []string                `json:"userTags"`
}

// UserParamsV4 is one user of CREATE_USERS_V4.
type UserParamsV4 struct {
	UserName        string                  `json:"userName"`
	UserEmail       string                  `json:"userEmail,omitempty"`
	UserPhoneNumber string                  `json:"userPhoneNumber,omitempty"`
	APIKeys         []APIKeyParamsV2        `json:"apiKeys"`
	Authenticators  []AuthenticatorParamsV2 `json:"authenticators"`
	OauthProviders  []OauthProviderParamsV2 `json:"oauthProviders"`
	UserTags        []string                `json:"userTags"`
}

// CreateUsersIntentV3 is ACTIVITY_TYPE_CREATE_USERS_V3.
type CreateUsersIntentV3 struct {
	Users []UserParamsV3 `json:"users"`
}

// CreateUsersIntentV4 is ACTIVITY_TYPE_CREATE_USERS_V4.
type CreateUsersIntentV4 struct {
	Users []UserParamsV4 `json:"users"`
}

// CreateUsersResult lists the new users' ids in order.
type CreateUsersResult struct {
	UserIDs []string `json:"userIds"`
}

// DeleteUsersIntent is ACTIVITY_TYPE_DELETE_USERS.
type DeleteUsersIntent struct {
	UserIDs []string `json:"userIds"`
}

// DeleteUsersResult lists the deleted users.
type DeleteUsersResult struct {
	UserIDs []string `json:"userIds"`
}

// CreateAPIKeysIntentV2 is ACTIVITY_TYPE_CREATE_API_KEYS_V2.
type CreateAPIKeysIntentV2 struct {
	APIKeys []APIKeyParamsV2 `json:"apiKeys"`
	UserID  string           `json:"userId"`
}

// CreateAPIKeysResult lists the new keys' ids.
type CreateAPIKeysResult struct {
	APIKeyIDs []string `json:"apiKeyIds"`
}

// DeleteAPIKeysIntent is ACTIVITY_TYPE_DELETE_API_KEYS.
type DeleteAPIKeysIntent struct {
	UserID    string   `json:"userId"`
	APIKeyIDs []string `json:"apiKeyIds"`
}

// DeleteAPIKeysResult lists the deleted keys.
type DeleteAPIKeysResult struct {
	APIKeyIDs []string `json:"apiKeyIds"`
}

// CreateAuthenticatorsIntentV2 is ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2.
type CreateAuthenticatorsIntentV2 struct {
	Authenticators []AuthenticatorParamsV2 `json:"authenticators"`
	UserID         string                  `json:"userId"`
}

// CreateAuthenticatorsResult lists the new authenticators' ids.
type CreateAuthenticatorsResult struct {
	AuthenticatorIDs []string `json:"authenticatorIds"`
}

// DeleteAuthenticatorsIntent is ACTIVITY_TYPE_DELETE_AUTHENTICATORS.
type DeleteAuthenticatorsIntent struct {
	UserID           string   `json:"userId"`
	AuthenticatorIDs []string `json:"authenticatorIds"`
}

// DeleteAuthenticatorsResult lists the deleted authenticators.
type DeleteAuthenticatorsResult struct {
	AuthenticatorIDs []string `json:"authenticatorIds"`
}

// CreateUserTagIntent is ACTIVITY_TYPE_CREATE_USER_TAG.
type CreateUserTagIntent struct {
	UserTagName string   `json:"userTagName"`
	UserIDs     []string `json:"userIds"`
}

// CreateUserTagResult names the new tag.
type CreateUserTagResult struct {
	UserTagID string   `json:"userTagId"`
	UserIDs   []string `json:"userIds"`
}

// UpdateUserTagIntent is ACTIVITY_TYPE_UPDATE_USER_TAG.
type UpdateUserTagIntent struct {
	UserTagID      string   `json:"userTagId"`
	NewUserTagName string   `json:"newUserTagName,omitempty"`
	AddUserIDs     []string `json:"addUserIds"`
	RemoveUserIDs  []string `json:"removeUserIds"`
}

// UpdateUserTagResult names the updated tag.
type UpdateUserTagResult struct {
	UserTagID string `json:"userTagId"`
}

// DeleteUserTagsIntent is ACTIVITY_TYPE_DELETE_USER_TAGS.
type DeleteUserTagsIntent struct {
	UserTagIDs []string `json:"userTagIds"`
}

// DeleteUserTagsResult lists the deleted tags and the users that held them.
type DeleteUserTagsResult struct {
	UserTagIDs []string `json:"userTagIds"`
	UserIDs    []string `json:"userIds"`
}

// UpdateUserIntent is ACTIVITY_TYPE_UPDATE_USER.
type UpdateUserIntent struct {
	UserID          string    `json:"userId"`
	UserName        string    `json:"userName,omitempty"`
	UserEmail       *string   `json:"userEmail,omitempty"`
	UserTagIDs      *[]string `json:"userTagIds,omitempty"`
	UserPhoneNumber *string   `json:"userPhoneNumber,omitempty"`
}

// UserIDResult is the result of the user updates.
type UserIDResult struct {
	UserID string `json:"userId"`
}

// UpdateUserNameIntent is ACTIVITY_TYPE_UPDATE_USER_NAME.
type UpdateUserNameIntent struct {
	UserID   string `json:"userId"`
	UserName string `json:"userName"`
}

// UpdateUserEmailIntent is ACTIVITY_TYPE_UPDATE_USER_EMAIL. An empty userEmail removes the address.
type UpdateUserEmailIntent struct {
	UserID            string `json:"userId"`
	UserEmail         string `json:"userEmail"`
	VerificationToken string `json:"verificationToken,omitempty" sigil:"unsupported"`
}

// UpdateUserPhoneNumberIntent is ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER. An empty number removes it.
type UpdateUserPhoneNumberIntent struct {
	UserID            string `json:"userId"`
	UserPhoneNumber   string `json:"userPhoneNumber"`
	VerificationToken string `json:"verificationToken,omitempty" sigil:"unsupported"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	CreateUsersV3          = activity[CreateUsersIntentV3, CreateUsersResult]("CREATE_USERS_V3", "create_users", "createUsersIntentV3", "createUsersResult")
	CreateUsersV4          = activity[CreateUsersIntentV4, CreateUsersResult]("CREATE_USERS_V4", "create_users", "createUsersIntentV4", "createUsersResult")
	DeleteUsers            = activity[DeleteUsersIntent, DeleteUsersResult]("DELETE_USERS", "delete_users", "deleteUsersIntent", "deleteUsersResult")
	UpdateUser             = activity[UpdateUserIntent, UserIDResult]("UPDATE_USER", "update_user", "updateUserIntent", "updateUserResult")
	UpdateUserName         = activity[UpdateUserNameIntent, UserIDResult]("UPDATE_USER_NAME", "update_user_name", "updateUserNameIntent", "updateUserNameResult")
	UpdateUserEmail        = activity[UpdateUserEmailIntent, UserIDResult]("UPDATE_USER_EMAIL", "update_user_email", "updateUserEmailIntent", "updateUserEmailResult")
	UpdateUserPhoneNumber  = activity[UpdateUserPhoneNumberIntent, UserIDResult]("UPDATE_USER_PHONE_NUMBER", "update_user_phone_number", "updateUserPhoneNumberIntent", "updateUserPhoneNumberResult")
	CreateUserTag          = activity[CreateUserTagIntent, CreateUserTagResult]("CREATE_USER_TAG", "create_user_tag", "createUserTagIntent", "createUserTagResult")
	UpdateUserTag          = activity[UpdateUserTagIntent, UpdateUserTagResult]("UPDATE_USER_TAG", "update_user_tag", "updateUserTagIntent", "updateUserTagResult")
	DeleteUserTags         = activity[DeleteUserTagsIntent, DeleteUserTagsResult]("DELETE_USER_TAGS", "delete_user_tags", "deleteUserTagsIntent", "deleteUserTagsResult")
	CreateAPIKeysV2        = activity[CreateAPIKeysIntentV2, CreateAPIKeysResult]("CREATE_API_KEYS_V2", "create_api_keys", "createApiKeysIntentV2", "createApiKeysResult")
	DeleteAPIKeys          = activity[DeleteAPIKeysIntent, DeleteAPIKeysResult]("DELETE_API_KEYS", "delete_api_keys", "deleteApiKeysIntent", "deleteApiKeysResult")
	CreateAuthenticatorsV2 = activity[CreateAuthenticatorsIntentV2, CreateAuthenticatorsResult]("CREATE_AUTHENTICATORS_V2", "create_authenticators", "createAuthenticatorsIntentV2", "createAuthenticatorsResult")
	DeleteAuthenticators   = activity[DeleteAuthenticatorsIntent, DeleteAuthenticatorsResult]("DELETE_AUTHENTICATORS", "delete_authenticators", "deleteAuthenticatorsIntent", "deleteAuthenticatorsResult")
)

// The queries of this file: their paths and their request and response types.
var (
	GetUser           = query[GetUserRequest, GetUserResponse]("get_user")
	ListUsers         = query[OrganizationRequest, ListUsersResponse]("list_users")
	GetAPIKeys        = query[GetAPIKeysRequest, GetAPIKeysResponse]("get_api_keys")
	GetAuthenticators = query[GetAuthenticatorsRequest, GetAuthenticatorsResponse]("get_authenticators")
	ListUserTags      = query[OrganizationRequest, ListUserTagsResponse]("list_user_tags")
)

// APIKeyParams is an API key of the first version: always P-256 (apiApiKeyParams).
type APIKeyParams struct {
	APIKeyName        string `json:"apiKeyName"`
	PublicKey         string `json:"publicKey"`
	ExpirationSeconds string `json:"expirationSeconds,omitempty"`
}

// APIOnlyUserParams is one user of CREATE_API_ONLY_USERS: a name, an optional e-mail, tags and API keys.
type APIOnlyUserParams struct {
	UserName  string         `json:"userName"`
	UserEmail string         `json:"userEmail,omitempty"`
	UserTags  []string       `json:"userTags"`
	APIKeys   []APIKeyParams `json:"apiKeys"`
}

// CreateAPIOnlyUsersIntent is ACTIVITY_TYPE_CREATE_API_ONLY_USERS.
type CreateAPIOnlyUsersIntent struct {
	APIOnlyUsers []APIOnlyUserParams `json:"apiOnlyUsers"`
}

// CreateAPIOnlyUsers is the activity type of users that authenticate with API keys only.
var CreateAPIOnlyUsers = activity[CreateAPIOnlyUsersIntent, CreateUsersResult](
	"CREATE_API_ONLY_USERS", "create_api_only_users", "createApiOnlyUsersIntent", "createApiOnlyUsersResult")
