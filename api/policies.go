package api

// Policy effects.
const (
	EffectAllow = "EFFECT_ALLOW"
	EffectDeny  = "EFFECT_DENY"
)

// CreatePolicyIntentV3 is ACTIVITY_TYPE_CREATE_POLICY_V3 and one item of CREATE_POLICIES.
type CreatePolicyIntentV3 struct {
	PolicyName string `json:"policyName"`
	Effect     string `json:"effect"`
	Condition  string `json:"condition,omitempty"`
	Consensus  string `json:"consensus,omitempty"`
	Notes      string `json:"notes"`
	// Time is when the policy is active (policy.Time): time.now, Timestamp, CronSpan. Empty: always.
	Time string `json:"time,omitempty"`
}

// CreatePolicyResult names the new policy.
type CreatePolicyResult struct {
	PolicyID string `json:"policyId"`
}

// CreatePoliciesIntent is ACTIVITY_TYPE_CREATE_POLICIES.
type CreatePoliciesIntent struct {
	Policies []CreatePolicyIntentV3 `json:"policies"`
}

// CreatePoliciesResult names the new policies in order.
type CreatePoliciesResult struct {
	PolicyIDs []string `json:"policyIds"`
}

// UpdatePolicyIntentV2 is ACTIVITY_TYPE_UPDATE_POLICY_V2. Absent fields keep their value.
type UpdatePolicyIntentV2 struct {
	PolicyID        string  `json:"policyId"`
	PolicyName      string  `json:"policyName,omitempty"`
	PolicyEffect    string  `json:"policyEffect,omitempty"`
	PolicyCondition *string `json:"policyCondition,omitempty"`
	PolicyConsensus *string `json:"policyConsensus,omitempty"`
	PolicyNotes     *string `json:"policyNotes,omitempty"`
	Time            *string `json:"time,omitempty"` // "" makes the policy always active
}

// PolicyIDResult names one policy.
type PolicyIDResult struct {
	PolicyID string `json:"policyId"`
}

// DeletePolicyIntent is ACTIVITY_TYPE_DELETE_POLICY.
type DeletePolicyIntent struct {
	PolicyID string `json:"policyId"`
}

// DeletePoliciesIntent is ACTIVITY_TYPE_DELETE_POLICIES.
type DeletePoliciesIntent struct {
	PolicyIDs []string `json:"policyIds"`
}

// DeletePoliciesResult names the deleted policies.
type DeletePoliciesResult struct {
	PolicyIDs []string `json:"policyIds"`
}

// VoteIntent is ACTIVITY_TYPE_APPROVE_ACTIVITY and ACTIVITY_TYPE_REJECT_ACTIVITY: a vote on the activity with this
// fingerprint.
type VoteIntent struct {
	Fingerprint string `json:"fingerprint"`
}

// VoteResult names the activity voted on; the response to a vote is that activity's record.
type VoteResult struct {
	ActivityID string `json:"activityId"`
}

// GetPolicyRequest is the body of get_policy.
type GetPolicyRequest struct {
	OrganizationID string `json:"organizationId"`
	PolicyID       string `json:"policyId"`
}

// GetPolicyResponse holds one policy.
type GetPolicyResponse struct {
	Policy Policy `json:"policy"`
}

// ListPoliciesResponse lists the organization's policies.
type ListPoliciesResponse struct {
	Policies []Policy `json:"policies"`
}

// GetPolicyEvaluationsResponse lists the evaluations of an activity, one per vote.
type GetPolicyEvaluationsResponse struct {
	PolicyEvaluations []PolicyEvaluationRecord `json:"policyEvaluations"`
}

// PolicyEvaluationRecord is the policy engine's verdict for one vote of an activity.
type PolicyEvaluationRecord struct {
	ID                string             `json:"id"`
	ActivityID        string             `json:"activityId"`
	OrganizationID    string             `json:"organizationId"`
	VoteID            string             `json:"voteId"`
	PolicyEvaluations []PolicyEvaluation `json:"policyEvaluations"`
	CreatedAt         Timestamp          `json:"createdAt"`
}

// PolicyEvaluation is one policy's outcome. Error (Sigil's addition) says why an OUTCOME_ERROR policy failed.
type PolicyEvaluation struct {
	PolicyID string `json:"policyId"`
	Outcome  string `json:"outcome"`
	Error    string `json:"error,omitempty"`
}

// EvaluateActivityRequest is the body of evaluate_activity (Sigil's dry run): the activity envelope exactly as it
// would be submitted.
type EvaluateActivityRequest struct {
	OrganizationID string        `json:"organizationId"`
	Activity       SubmitRequest `json:"activity"`
}

// EvaluateActivityResponse is the decision the activity would get now, without executing or storing anything.
type EvaluateActivityResponse struct {
	// Decision is ALLOW, DENY or CONSENSUS_NEEDED.
	Decision          string             `json:"decision"`
	Message           string             `json:"message"`
	PolicyEvaluations []PolicyEvaluation `json:"policyEvaluations"`
	// VelocityControls are the controls that measure the activity: the aggregate now, what it would add, and whether
	// the control passes with it.
	VelocityControls []ControlMeasure `json:"velocityControls,omitempty"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	CreatePolicyV3  = activity[CreatePolicyIntentV3, CreatePolicyResult]("CREATE_POLICY_V3", "create_policy", "createPolicyIntentV3", "createPolicyResult")
	CreatePolicies  = activity[CreatePoliciesIntent, CreatePoliciesResult]("CREATE_POLICIES", "create_policies", "createPoliciesIntent", "createPoliciesResult")
	UpdatePolicyV2  = activity[UpdatePolicyIntentV2, PolicyIDResult]("UPDATE_POLICY_V2", "update_policy", "updatePolicyIntentV2", "updatePolicyResultV2")
	DeletePolicy    = activity[DeletePolicyIntent, PolicyIDResult]("DELETE_POLICY", "delete_policy", "deletePolicyIntent", "deletePolicyResult")
	DeletePolicies  = activity[DeletePoliciesIntent, DeletePoliciesResult]("DELETE_POLICIES", "delete_policies", "deletePoliciesIntent", "deletePoliciesResult")
	ApproveActivity = activity[VoteIntent, VoteResult]("APPROVE_ACTIVITY", "approve_activity", "approveActivityIntent", "approveActivityResult")
	RejectActivity  = activity[VoteIntent, VoteResult]("REJECT_ACTIVITY", "reject_activity", "rejectActivityIntent", "rejectActivityResult")
)

// The queries of this file: their paths and their request and response types.
var (
	GetActivePolicies    = query[OrganizationRequest, GetActivePoliciesResponse]("get_active_policies")
	GetPolicy            = query[GetPolicyRequest, GetPolicyResponse]("get_policy")
	ListPolicies         = query[OrganizationRequest, ListPoliciesResponse]("list_policies")
	GetPolicyEvaluations = query[GetActivityRequest, GetPolicyEvaluationsResponse]("get_policy_evaluations")
	EvaluateActivity     = query[EvaluateActivityRequest, EvaluateActivityResponse]("evaluate_activity")
)

// GetActivePoliciesResponse says, for every policy of the organization, whether its time field holds now.
type GetActivePoliciesResponse struct {
	Statuses      []ActivePolicyStatus `json:"statuses"`
	EvaluatedAtMs string               `json:"evaluatedAtMs"` // the server time every policy was evaluated at
}

// ActivePolicyStatus is one policy's status: a policy without a time is always active; one whose time cannot be
// evaluated is reported inactive, with the error.
type ActivePolicyStatus struct {
	OrganizationID string `json:"organizationId"`
	PolicyID       string `json:"policyId"`
	Active         bool   `json:"active"`
	TimeExpr       string `json:"timeExpr,omitempty"`
	Error          string `json:"error,omitempty"`
}
