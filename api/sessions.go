package api

// Credential types of the sessions CREATE_READ_WRITE_SESSION_V2 and CREATE_READ_ONLY_SESSION register.
const (
	CredentialReadWriteSession = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"
	CredentialReadOnlySession  = "CREDENTIAL_TYPE_READ_ONLY_SESSION"
)

// CreateReadWriteSessionIntentV2 is ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: a new session key for a user (the
// submitter by default), returned encrypted to targetPublicKey.
type CreateReadWriteSessionIntentV2 struct {
	TargetPublicKey    string `json:"targetPublicKey"`
	UserID             string `json:"userId,omitempty"`
	APIKeyName         string `json:"apiKeyName,omitempty"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
}

// CreateReadWriteSessionResultV2 is the session: who it is for and its key in a credential bundle.
type CreateReadWriteSessionResultV2 struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
	APIKeyID         string `json:"apiKeyId"`
	CredentialBundle string `json:"credentialBundle"`
}

// CreateReadOnlySessionIntent is ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: no parameters.
type CreateReadOnlySessionIntent struct{}

// CreateReadOnlySessionResult is a read-only session token (sent as X-Session on queries) and its expiry.
type CreateReadOnlySessionResult struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
	// Session is a bearer token (X-Session): shown in the answer to CREATE_READ_ONLY_SESSION only, Redacted in the
	// record every later reader sees.
	Session       string `json:"session" sigil:"secret"`
	SessionExpiry string `json:"sessionExpiry"` // unix seconds
}

// The activity types of this file.
var (
	CreateReadWriteSessionV2 = activity[CreateReadWriteSessionIntentV2, CreateReadWriteSessionResultV2](
		"CREATE_READ_WRITE_SESSION_V2", "create_read_write_session", "createReadWriteSessionIntentV2", "createReadWriteSessionResultV2")
	CreateReadOnlySession = activity[CreateReadOnlySessionIntent, CreateReadOnlySessionResult](
		"CREATE_READ_ONLY_SESSION", "create_read_only_session", "createReadOnlySessionIntent", "createReadOnlySessionResult")
)

// CreateSessionProfileIntent is ACTIVITY_TYPE_CREATE_SESSION_PROFILE: sessions issued with the profile are limited to
// requests its scope (a condition of the policy language) allows, and last at most expirationSeconds.
type CreateSessionProfileIntent struct {
	SessionProfileName string `json:"sessionProfileName"`
	Scope              string `json:"scope"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	Notes              string `json:"notes,omitempty"`
}

// CreateSessionProfileResult names the new profile.
type CreateSessionProfileResult struct {
	SessionProfileID string `json:"sessionProfileId"`
}

// SessionProfile is a profile as the queries return it.
type SessionProfile struct {
	SessionProfileID   string    `json:"sessionProfileId"`
	SessionProfileName string    `json:"sessionProfileName"`
	Scope              string    `json:"scope"`
	ExpirationSeconds  string    `json:"expirationSeconds,omitempty"`
	Notes              string    `json:"notes,omitempty"`
	CreatedAt          Timestamp `json:"createdAt"`
	UpdatedAt          Timestamp `json:"updatedAt"`
}

// GetSessionProfileRequest is the body of get_session_profile.
type GetSessionProfileRequest struct {
	OrganizationID   string `json:"organizationId"`
	SessionProfileID string `json:"sessionProfileId"`
}

// GetSessionProfileResponse is one profile.
type GetSessionProfileResponse struct {
	SessionProfile SessionProfile `json:"sessionProfile"`
}

// GetSessionProfilesResponse lists the organization's profiles.
type GetSessionProfilesResponse struct {
	SessionProfiles []SessionProfile `json:"sessionProfiles"`
}

// Session profiles.
var (
	CreateSessionProfile = activity[CreateSessionProfileIntent, CreateSessionProfileResult](
		"CREATE_SESSION_PROFILE", "create_session_profile", "createSessionProfileIntent", "createSessionProfileResult")
	GetSessionProfile  = query[GetSessionProfileRequest, GetSessionProfileResponse]("get_session_profile")
	GetSessionProfiles = query[OrganizationRequest, GetSessionProfilesResponse]("get_session_profiles")
)
