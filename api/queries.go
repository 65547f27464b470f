package api

// Pagination is the cursor pagination of list queries: limit "1".."100" (default 10), before/after an object id.
type Pagination struct {
	Limit  string `json:"limit,omitempty"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// OrganizationRequest is the body of queries that take only the organization.
type OrganizationRequest struct {
	OrganizationID string `json:"organizationId"`
}

// WhoamiResponse identifies the caller.
type WhoamiResponse struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
}

// GetActivityRequest is the body of get_activity.
type GetActivityRequest struct {
	OrganizationID string `json:"organizationId"`
	ActivityID     string `json:"activityId"`
}

// ListActivitiesRequest is the body of list_activities.
type ListActivitiesRequest struct {
	OrganizationID    string      `json:"organizationId"`
	FilterByStatus    []string    `json:"filterByStatus,omitempty"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
	FilterByType      []string    `json:"filterByType,omitempty"`
}

// ListActivitiesResponse lists activities, newest first.
type ListActivitiesResponse struct {
	Activities []Activity `json:"activities"`
}

// GetUserRequest is the body of get_user.
type GetUserRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
}

// GetUserResponse holds one user.
type GetUserResponse struct {
	User User `json:"user"`
}

// ListUsersResponse lists the organization's users.
type ListUsersResponse struct {
	Users []User `json:"users"`
}

// GetAPIKeysRequest is the body of get_api_keys.
type GetAPIKeysRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId,omitempty"`
}

// GetAPIKeysResponse lists API keys.
type GetAPIKeysResponse struct {
	APIKeys []APIKey `json:"apiKeys"`
}

// GetAuthenticatorsRequest is the body of get_authenticators.
type GetAuthenticatorsRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
}

// GetAuthenticatorsResponse lists a user's passkeys.
type GetAuthenticatorsResponse struct {
	Authenticators []Authenticator `json:"authenticators"`
}

// ListUserTagsResponse lists the organization's user tags.
type ListUserTagsResponse struct {
	UserTags []Tag `json:"userTags"`
}

// GetOrganizationResponse holds the organization's data.
type GetOrganizationResponse struct {
	OrganizationData OrganizationData `json:"organizationData"`
}

// ListSubOrgsRequest is the body of list_suborgs.
type ListSubOrgsRequest struct {
	OrganizationID    string      `json:"organizationId"`
	FilterType        string      `json:"filterType,omitempty"`
	FilterValue       string      `json:"filterValue,omitempty"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// ListSubOrgsResponse lists sub-organization ids.
type ListSubOrgsResponse struct {
	OrganizationIDs []string `json:"organizationIds"`
}

// Sub-organization filter types.
const (
	FilterName          = "NAME"
	FilterUsername      = "USERNAME"
	FilterEmail         = "EMAIL"
	FilterPhoneNumber   = "PHONE_NUMBER"
	FilterPublicKey     = "PUBLIC_KEY"
	FilterCredentialID  = "CREDENTIAL_ID"
	FilterOIDCToken     = "OIDC_TOKEN"
	FilterWalletAddress = "WALLET_ACCOUNT_ADDRESS"
)

// The queries of this file: their paths and their request and response types.
var (
	Whoami         = query[OrganizationRequest, WhoamiResponse]("whoami")
	GetActivity    = query[GetActivityRequest, ActivityResponse]("get_activity")
	ListActivities = query[ListActivitiesRequest, ListActivitiesResponse]("list_activities")
)
