package coordinator

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/sigil/sigil/api"
)

// The audit stream is one JSON line per recorded activity, written once its transaction has committed, like Vault's
// audit device: who (user and the public key that stamped), what (type, organization, activity id), the outcome
// (status, failure message) and which policies decided it with their outcomes. Never the intent or the result: they
// may hold contacts, addresses and, redacted or not, what a caller wants kept out of log shippers. See
// docs/ARCHITECTURE.md (Operations).

// auditLine is one line of the audit stream.
type auditLine struct {
	Time           time.Time              `json:"time"`
	ActivityID     string                 `json:"activityId"`
	OrganizationID string                 `json:"organizationId"`
	Type           string                 `json:"type"`
	Status         string                 `json:"status"`
	UserID         string                 `json:"userId"`
	PublicKey      string                 `json:"publicKey,omitempty"`
	Client         string                 `json:"client,omitempty"` // the request's X-Sigil-Client (api.ClientHeader)
	Failure        string                 `json:"failure,omitempty"`
	Policies       []api.PolicyEvaluation `json:"policies"`
}

// auditor writes the audit stream; a nil one writes nothing.
type auditor struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newAuditor(w io.Writer) *auditor {
	if w == nil {
		return nil
	}
	return &auditor{enc: json.NewEncoder(w)}
}

// record writes the line of a newly recorded activity, or of the approval a co-signer's identical submission added to
// one (its user the co-signer, its status the activity's after the vote).
func (a *auditor) record(rec *record) {
	if a == nil {
		return
	}
	line := auditLine{Time: rec.UpdatedAt, ActivityID: rec.ID, OrganizationID: rec.OrganizationID, Type: rec.Type,
		Status: rec.Status, Client: rec.Client, Policies: []api.PolicyEvaluation{}}
	if len(rec.Votes) > 0 {
		v := rec.Votes[0]
		if rec.coSigned {
			v = rec.Votes[len(rec.Votes)-1]
		}
		line.UserID, line.PublicKey = v.UserID, v.PublicKey
	}
	if rec.Failure != nil {
		line.Failure = rec.Failure.Message
	}
	if list, err := rec.evaluationList(); err == nil && len(list) > 0 {
		line.Policies = list[len(list)-1].Policies
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_ = a.enc.Encode(line) // an audit sink that fails is the operator's to see; the activity has committed
}
