package api

// Authentication types an MFA policy step names (v1AuthenticationType).
const (
	AuthEmailOTP = "AUTHENTICATION_TYPE_EMAIL_OTP"
	AuthSMSOTP   = "AUTHENTICATION_TYPE_SMS_OTP"
	AuthPasskey  = "AUTHENTICATION_TYPE_PASSKEY"
	AuthAPIKey   = "AUTHENTICATION_TYPE_API_KEY"
	AuthOAuth    = "AUTHENTICATION_TYPE_OAUTH"
	AuthSession  = "AUTHENTICATION_TYPE_SESSION"
)

// AuthenticationTypes are the v1AuthenticationType values.
var AuthenticationTypes = []string{AuthEmailOTP, AuthSMSOTP, AuthPasskey, AuthAPIKey, AuthOAuth, AuthSession}

// AuthenticationMethod is v1AuthenticationMethod (and v1AuthenticationMethodParams): a type of credential, and
// optionally the one credential (or session profile) that must be used.
type AuthenticationMethod struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// RequiredAuthenticationMethod is one step of an MFA policy: any one of the methods satisfies it.
type RequiredAuthenticationMethod struct {
	Any []AuthenticationMethod `json:"any"`
}

// CreateMfaPolicyIntent is ACTIVITY_TYPE_CREATE_MFA_POLICY: when condition (policy language) holds for an activity
// of the user, the user must also authenticate with each step of requiredAuthenticationMethods, in order.
type CreateMfaPolicyIntent struct {
	UserID                        string                         `json:"userId"`
	MfaPolicyName                 string                         `json:"mfaPolicyName"`
	Condition                     string                         `json:"condition"`
	RequiredAuthenticationMethods []RequiredAuthenticationMethod `json:"requiredAuthenticationMethods"`
	Order                         int64                          `json:"order"`
	Notes                         string                         `json:"notes,omitempty"`
}

// CreateMfaPolicyResult names the new MFA policy.
type CreateMfaPolicyResult struct {
	MfaPolicyID string `json:"mfaPolicyId"`
}

// UpdateMfaPolicyIntent is ACTIVITY_TYPE_UPDATE_MFA_POLICY: the fields given replace the policy's.
type UpdateMfaPolicyIntent struct {
	UserID                        string                         `json:"userId"`
	MfaPolicyID                   string                         `json:"mfaPolicyId"`
	MfaPolicyName                 *string                        `json:"mfaPolicyName,omitempty"`
	Condition                     *string                        `json:"condition,omitempty"`
	RequiredAuthenticationMethods []RequiredAuthenticationMethod `json:"requiredAuthenticationMethods,omitempty"`
	Order                         *int64                         `json:"order,omitempty"`
	Notes                         *string                        `json:"notes,omitempty"`
}

// DeleteMfaPolicyIntent is ACTIVITY_TYPE_DELETE_MFA_POLICY.
type DeleteMfaPolicyIntent struct {
	UserID      string `json:"userId"`
	MfaPolicyID string `json:"mfaPolicyId"`
}

// MfaPolicyResult is the result of the three MFA policy activities.
type MfaPolicyResult struct {
	MfaPolicyID string `json:"mfaPolicyId"`
}

// MfaPolicy is v1MfaPolicy.
type MfaPolicy struct {
	MfaPolicyID                   string                         `json:"mfaPolicyId"`
	MfaPolicyName                 string                         `json:"mfaPolicyName"`
	Condition                     string                         `json:"condition"`
	RequiredAuthenticationMethods []RequiredAuthenticationMethod `json:"requiredAuthenticationMethods"`
	Order                         int64                          `json:"order"`
	Notes                         string                         `json:"notes,omitempty"`
	CreatedAt                     Timestamp                      `json:"createdAt"`
	UpdatedAt                     Timestamp                      `json:"updatedAt"`
}

// GetMfaPolicyRequest is the body of get_mfa_policy.
type GetMfaPolicyRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	MfaPolicyID    string `json:"mfaPolicyId"`
}

// GetMfaPolicyResponse is one MFA policy.
type GetMfaPolicyResponse struct {
	MfaPolicy MfaPolicy `json:"mfaPolicy"`
}

// GetMfaPoliciesRequest is the body of get_mfa_policies.
type GetMfaPoliciesRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
}

// GetMfaPoliciesResponse lists a user's MFA policies, in their order.
type GetMfaPoliciesResponse struct {
	MfaPolicies []MfaPolicy `json:"mfaPolicies"`
}

// GetMfaStatusRequest is the body of get_mfa_status.
type GetMfaStatusRequest struct {
	OrganizationID string `json:"organizationId"`
	ActivityID     string `json:"activityId"`
	UserID         string `json:"userId,omitempty"`
}

// MfaStatus is v1MfaStatus: how far one voter of an activity is through the MFA policy that applies to it.
type MfaStatus struct {
	MfaPolicyID      string                         `json:"mfaPolicyId"`
	UserID           string                         `json:"userId"`
	Satisfied        bool                           `json:"satisfied"`
	SatisfiedMethods []AuthenticationMethod         `json:"satisfiedMethods"`
	RequiredMethods  []RequiredAuthenticationMethod `json:"requiredMethods"`
}

// GetMfaStatusResponse lists the MFA statuses of an activity's voters.
type GetMfaStatusResponse struct {
	MfaStatuses []MfaStatus `json:"mfaStatuses"`
}

// The activity types and queries of this file.
var (
	CreateMfaPolicy = activity[CreateMfaPolicyIntent, MfaPolicyResult]("CREATE_MFA_POLICY", "create_mfa_policy", "createMfaPolicyIntent", "createMfaPolicyResult")
	UpdateMfaPolicy = activity[UpdateMfaPolicyIntent, MfaPolicyResult]("UPDATE_MFA_POLICY", "update_mfa_policy", "updateMfaPolicyIntent", "updateMfaPolicyResult")
	DeleteMfaPolicy = activity[DeleteMfaPolicyIntent, MfaPolicyResult]("DELETE_MFA_POLICY", "delete_mfa_policy", "deleteMfaPolicyIntent", "deleteMfaPolicyResult")

	GetMfaPolicy   = query[GetMfaPolicyRequest, GetMfaPolicyResponse]("get_mfa_policy")
	GetMfaPolicies = query[GetMfaPoliciesRequest, GetMfaPoliciesResponse]("get_mfa_policies")
	GetMfaStatus   = query[GetMfaStatusRequest, GetMfaStatusResponse]("get_mfa_status")
)
