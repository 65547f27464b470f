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
	Session          string `json:"session"`
	SessionExpiry    string `json:"sessionExpiry"` // unix seconds
}

// The activity types of this file.
var (
	CreateReadWriteSessionV2 = activity[CreateReadWriteSessionIntentV2, CreateReadWriteSessionResultV2](
		"CREATE_READ_WRITE_SESSION_V2", "create_read_write_session", "createReadWriteSessionIntentV2", "createReadWriteSessionResultV2")
	CreateReadOnlySession = activity[CreateReadOnlySessionIntent, CreateReadOnlySessionResult](
		"CREATE_READ_ONLY_SESSION", "create_read_only_session", "createReadOnlySessionIntent", "createReadOnlySessionResult")
)
