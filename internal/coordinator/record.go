package coordinator

import (
	"encoding/json"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// record is an activity as the coordinator stores it. The wire form (api.Activity) is rendered from it per request,
// because canApprove and canReject depend on who is asking.
type record struct {
	ID             string          `json:"id"`
	OrganizationID string          `json:"organizationId"`
	Type           string          `json:"type"`
	Status         string          `json:"status"`
	TimestampMs    string          `json:"timestampMs"`
	Fingerprint    string          `json:"fingerprint"` // the stored form, the bare digest (fingerprint.go)
	Intent         json.RawMessage `json:"intent"`
	Result         json.RawMessage `json:"result,omitempty"`
	Votes          []api.Vote      `json:"votes"`
	Failure        *api.Status     `json:"failure,omitempty"`
	AppProofs      []api.AppProof  `json:"appProofs,omitempty"`
	// MfaStatuses are the MFA policies that apply to the activity's voters and how far each is met (mfa.go).
	MfaStatuses []api.MfaStatus `json:"mfaStatuses,omitempty"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
	// CredentialID is the credential that submitted the activity ("" for a stamp of none: an X-Stamp-Attested login),
	// which what the activity makes descends from, when votes execute it later (lineage.go).
	CredentialID string `json:"credentialId,omitempty"`
	// Client is the client the activity was submitted through, as the request's X-Sigil-Client header named it
	// (api.ClientHeader; "" for none): recorded, never rendered on the activity, read by list_activity_clients.
	Client string `json:"client,omitempty"`

	// spec is the wire contract of its type: the keys its intent and result are rendered under.
	spec api.ActivitySpec
	// fresh: this request recorded it (not found recorded by an earlier one with the same body).
	fresh bool
	// coSigned: this request, another user's submission of its body, added that user's approval (engine.go, coSign).
	coSigned bool
	// webhooks: this transaction wrote webhook deliveries a claim is to find (a voted activity's update), which the
	// worker is told of once it commits.
	webhooks bool
	// offered: the webhook deliveries of its first update, leased to this process's worker, handed to it once the
	// transaction that wrote them commits.
	offered []store.WebhookDelivery
	// shown is the result as the answer to the request that ran the activity shows it, when Result (what is stored,
	// and shown to every later reader) holds it with its secrets redacted: a read-only session's bearer token.
	shown json.RawMessage
	// evaluations is the JSON list of the policy engine's verdicts on the votes ([]evaluation), stored beside the
	// record and decoded only by the queries that show them.
	evaluations json.RawMessage
}

// evaluation is the policy engine's verdict on one vote of an activity.
type evaluation struct {
	ID        string                 `json:"id"`
	VoteID    string                 `json:"voteId"`
	CreatedAt int64                  `json:"createdAt"` // unix nanoseconds
	Policies  []api.PolicyEvaluation `json:"policyEvaluations"`
}

// addEvaluation records the verdict d on the vote voteID.
func (r *record) addEvaluation(voteID string, d policy.Decision, now time.Time) error {
	list, err := r.evaluationList()
	if err != nil {
		return err
	}
	list = append(list, evaluation{ID: newID(), VoteID: voteID, CreatedAt: now.UnixNano(), Policies: evaluationsWire(d)})
	r.evaluations, err = json.Marshal(list)
	return err
}

func (r *record) evaluationList() ([]evaluation, error) {
	var list []evaluation
	if len(r.evaluations) == 0 {
		return list, nil
	}
	return list, json.Unmarshal(r.evaluations, &list)
}

func (r *record) row() (store.Activity, error) {
	ts, err := parseTimestampMs(r.TimestampMs)
	if err != nil {
		return store.Activity{}, err
	}
	data, err := marshalRecord(r)
	if err != nil {
		return store.Activity{}, err
	}
	return store.Activity{
		ID: r.ID, OrgID: r.OrganizationID, Fingerprint: r.Fingerprint, TimestampMs: ts, Type: r.Type, Status: r.Status,
		Record: data, Evaluations: r.evaluations, CreatedAt: r.CreatedAt.UnixNano(), UpdatedAt: r.UpdatedAt.UnixNano(),
	}, nil
}

func (c *Coordinator) decodeRecord(row store.Activity) (*record, error) {
	var r record
	if err := json.Unmarshal(row.Record, &r); err != nil {
		return nil, err
	}
	r.evaluations = row.Evaluations
	r.spec = c.ops.info(r.Type).ActivitySpec
	return &r, nil
}

// fail marks the activity FAILED with the error a caller will see.
func (r *record) fail(err *apierr.Error, now time.Time) {
	b := err.Body()
	r.Status = api.StatusFailed
	r.Failure = &api.Status{Code: int(b.Code), Message: b.Message, Details: b.Details}
	r.Result = nil
	r.UpdatedAt = now
}

// failure is the error a FAILED activity answers with, every time it is asked for.
func (r *record) failure() *apierr.Error {
	if r.Failure == nil {
		return nil
	}
	return apierr.FromBody(0, apierr.Body{Code: apierr.Code(r.Failure.Code), Message: r.Failure.Message, Details: r.Failure.Details})
}

// setResult records an activity's result: stored with its secret fields redacted (api.Redact), as its intent is; the
// answer to the request that ran it alone shows them.
func (r *record) setResult(result any) error {
	stored := api.Redact(result)
	var err error
	if r.Result, err = json.Marshal(stored); err != nil {
		return err
	}
	r.shown = nil
	if stored != result { // results are pointers: Redact returns the same one when there is nothing to redact
		r.shown, err = json.Marshal(result)
	}
	return err
}

// answer is the wire form for the request that ran the activity: its result with the secrets the record redacts.
func (r *record) answer(viewerUserID string) api.Activity {
	if r.shown == nil {
		return r.render(viewerUserID)
	}
	first := *r
	first.Result = r.shown
	return first.render(viewerUserID)
}

// render builds the wire form for a viewer (the user asking; "" when unknown).
func (r *record) render(viewerUserID string) api.Activity {
	nested := r.nested(viewerUserID)
	result := map[string]json.RawMessage{}
	if len(nested.Result) > 0 {
		for k, v := range nested.Result {
			result[k] = v
		}
		result["activity"], _ = marshalNested(&nested)
	}
	return api.Activity{
		ID: r.ID, OrganizationID: r.OrganizationID, Status: r.Status, Type: r.Type, TimestampMs: r.TimestampMs,
		Intent: nested.Intent, Result: result, Votes: nested.Votes, AppProofs: r.AppProofs, Fingerprint: wireFingerprint(r.Fingerprint),
		CanApprove: nested.CanApprove, CanReject: nested.CanReject, CreatedAt: api.NewTimestamp(r.CreatedAt),
		UpdatedAt: api.NewTimestamp(r.UpdatedAt), Failure: r.Failure,
	}
}

// nested is the record as result.activity holds it, for a viewer.
func (r *record) nested(viewerUserID string) api.NestedActivity {
	result := map[string]json.RawMessage{}
	if r.Status == api.StatusCompleted && r.Result != nil {
		result[r.spec.ResultKey] = r.Result
	}
	canVote := r.canVote(viewerUserID)
	return api.NestedActivity{
		ID: r.ID, OrganizationID: r.OrganizationID, Status: r.Status, Type: r.Type,
		Intent: map[string]json.RawMessage{r.spec.IntentKey: r.Intent}, Result: result, Votes: r.votes(),
		Fingerprint: wireFingerprint(r.Fingerprint), CanApprove: canVote, CanReject: canVote,
		CreatedAt: r.CreatedAt.Format(time.RFC3339Nano), UpdatedAt: r.UpdatedAt.Format(time.RFC3339Nano),
	}
}

// canVote reports whether the viewer may still vote: on an activity waiting for consensus they have not voted on, or
// on one waiting for their own second factor (MFA policies).
func (r *record) canVote(viewerUserID string) bool {
	if viewerUserID == "" {
		return false
	}
	switch r.Status {
	case api.StatusConsensusNeeded:
		return !r.votedBy(viewerUserID) || !mfaSatisfied(r.MfaStatuses, viewerUserID)
	case api.StatusAuthenticatorsNeeded:
		return !mfaSatisfied(r.MfaStatuses, viewerUserID)
	}
	return false
}

func (r *record) votes() []api.Vote {
	if r.Votes == nil {
		return []api.Vote{}
	}
	return r.Votes
}

func (r *record) votedBy(userID string) bool {
	for _, v := range r.Votes {
		if v.UserID == userID {
			return true
		}
	}
	return false
}

// decodeIntent reads a stored intent back into its parameter struct.
func decodeIntent(intent json.RawMessage, params any) error {
	return json.Unmarshal(intent, params)
}
