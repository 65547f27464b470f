package api

import (
	"encoding/json"
	"strconv"
	"time"
)

// SubmitRequest is the body of POST /public/v1/submit/<name>.
type SubmitRequest struct {
	Type              string          `json:"type"`
	TimestampMs       string          `json:"timestampMs"`
	OrganizationID    string          `json:"organizationId"`
	Parameters        json.RawMessage `json:"parameters"`
	GenerateAppProofs *bool           `json:"generateAppProofs,omitempty"`
}

// Timestamp is the reference's {seconds, nanos} timestamp with both numbers as strings.
type Timestamp struct {
	Seconds string `json:"seconds"`
	Nanos   string `json:"nanos"`
}

// NewTimestamp converts a time to its wire form.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp{Seconds: strconv.FormatInt(t.Unix(), 10), Nanos: strconv.Itoa(t.Nanosecond())}
}

// Time converts the wire form back; a malformed value gives the zero time.
func (t Timestamp) Time() time.Time {
	s, err1 := strconv.ParseInt(t.Seconds, 10, 64)
	n, err2 := strconv.ParseInt(t.Nanos, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}
	}
	return time.Unix(s, n).UTC()
}

// Activity statuses.
const (
	StatusCreated              = "ACTIVITY_STATUS_CREATED"
	StatusPending              = "ACTIVITY_STATUS_PENDING"
	StatusCompleted            = "ACTIVITY_STATUS_COMPLETED"
	StatusFailed               = "ACTIVITY_STATUS_FAILED"
	StatusConsensusNeeded      = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
	StatusRejected             = "ACTIVITY_STATUS_REJECTED"
	StatusAuthenticatorsNeeded = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
)

// Terminal reports whether an activity in this status will not change any more.
func Terminal(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusRejected
}

// ActivityResponse is the body of every submit response and of get_activity.
type ActivityResponse struct {
	Activity Activity `json:"activity"`
}

// Activity is an activity record as the SDKs read it. Result holds the result key and, beside it, the nested activity
// record of the first specification (section 2.3) under the key "activity".
type Activity struct {
	ID             string                     `json:"id"`
	OrganizationID string                     `json:"organizationId"`
	Status         string                     `json:"status"`
	Type           string                     `json:"type"`
	TimestampMs    string                     `json:"timestampMs"`
	Intent         map[string]json.RawMessage `json:"intent"`
	Result         map[string]json.RawMessage `json:"result"`
	Votes          []Vote                     `json:"votes"`
	AppProofs      []AppProof                 `json:"appProofs,omitempty"`
	Fingerprint    string                     `json:"fingerprint"`
	CanApprove     bool                       `json:"canApprove"`
	CanReject      bool                       `json:"canReject"`
	CreatedAt      Timestamp                  `json:"createdAt"`
	UpdatedAt      Timestamp                  `json:"updatedAt"`
	Failure        *Status                    `json:"failure,omitempty"`
}

// NestedActivity is the activity record inside result.activity (first specification, section 2.3), whose
// createdAt and updatedAt are typed as strings: RFC 3339.
type NestedActivity struct {
	ID             string                     `json:"id"`
	OrganizationID string                     `json:"organizationId"`
	Status         string                     `json:"status"`
	Type           string                     `json:"type"`
	Intent         map[string]json.RawMessage `json:"intent"`
	Result         map[string]json.RawMessage `json:"result"`
	Votes          []Vote                     `json:"votes"`
	Fingerprint    string                     `json:"fingerprint"`
	CanApprove     bool                       `json:"canApprove"`
	CanReject      bool                       `json:"canReject"`
	CreatedAt      string                     `json:"createdAt"`
	UpdatedAt      string                     `json:"updatedAt"`
}

// Status is a google.rpc.Status, used for an activity's failure.
type Status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// Vote is one user's approval or rejection of an activity.
type Vote struct {
	ID         string    `json:"id"`
	UserID     string    `json:"userId"`
	User       User      `json:"user"`
	ActivityID string    `json:"activityId"`
	Selection  string    `json:"selection"`
	Message    string    `json:"message"`
	PublicKey  string    `json:"publicKey"`
	Signature  string    `json:"signature"`
	Scheme     string    `json:"scheme"`
	CreatedAt  Timestamp `json:"createdAt"`
}

// Vote selections.
const (
	VoteApproved = "VOTE_SELECTION_APPROVED"
	VoteRejected = "VOTE_SELECTION_REJECTED"
)

// AppProof is a coordinator-signed statement about an activity.
type AppProof struct {
	Scheme       string `json:"scheme"`
	PublicKey    string `json:"publicKey"`
	ProofPayload string `json:"proofPayload"`
	Signature    string `json:"signature"`
}
