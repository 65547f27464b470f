package coordinator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/policy"
)

// decisionRequest is what the policy engine is asked about one activity.
type decisionRequest struct {
	org         *Org          // the organization that decides: the parent, for a login submitted with its credential
	op          *activityInfo // the activity's type
	intent      json.RawMessage
	votes       []api.Vote
	submitterID string
	// facts are the request's facts beyond the activity itself (eth.tx, wallet, ...); nil for none.
	facts *policy.Input
	// moreFacts are the facts of a batch's other calls (eth.tx of each): the activity is decided once per call, and
	// allowed only when every call is.
	moreFacts        []*policy.Input
	voterInConsensus bool
	// moves are the assets what is signed (or sent) moves, and walletID the wallet (or private key) that signs: what
	// velocity controls measure (controls.go).
	moves    evm.Moves
	walletID string
	// budget bounds the activity's policy evaluation, every expression together (evalbudget.go); nil, the decision's
	// own budget.
	budget *policy.Budget
}

// decide runs the policy engine: the root quorum, then the organization's policies, then implicit permissions. A batch
// is decided once per call: a call denied (or rejected) denies it, else a call waiting for consensus makes it wait.
func (c *Coordinator) decide(r decisionRequest) policy.Decision {
	d := c.decideFacts(r)
	for _, facts := range r.moreFacts {
		if d.Outcome != policy.Allow && d.Outcome != policy.ConsensusNeeded {
			break
		}
		r.facts = facts
		if next := c.decideFacts(r); next.Outcome != policy.Allow && (d.Outcome == policy.Allow || next.Outcome != policy.ConsensusNeeded) {
			d = next
		}
	}
	if d.Outcome == policy.Deny && r.facts != nil && slices.ContainsFunc(d.Evaluations, readUnmeasured) {
		d.Message += unmeasuredReasons(r.facts.ControlErrors)
	}
	return d
}

// readUnmeasured reports whether a policy's evaluation failed on a velocity control that cannot measure the activity.
func readUnmeasured(e policy.Evaluation) bool {
	return e.Err != nil && strings.Contains(e.Err.Error(), "cannot measure this activity")
}

// unmeasuredReasons says, for a denial, which velocity controls could not measure the activity and why: those are
// evaluation errors, which no policy they gate allows.
func unmeasuredReasons(failed map[string]string) string {
	ids := make([]string, 0, len(failed))
	for id := range failed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "; velocity control %s cannot measure this activity: %s", id, failed[id])
	}
	return b.String()
}

// decideFacts decides the activity with one set of facts.
func (c *Coordinator) decideFacts(r decisionRequest) policy.Decision {
	req, err := c.policyRequest(r)
	if err != nil {
		return policy.Decision{Outcome: policy.Deny, Message: err.Error()}
	}
	d := policy.Decide(req)
	// A vote never waits for votes of its own: a root user's approval is one of the approvals the root quorum
	// counts, not an activity that needs the quorum.
	if r.voterInConsensus && d.Outcome == policy.ConsensusNeeded {
		d.Outcome, d.Message = policy.Allow, "Allowed: the voter takes part in the activity's consensus"
	}
	return d
}

// policyRequest gathers what the policy engine reads about an activity: its facts, its approvers and the credentials
// they used, the rejections, and the organization's compiled policies.
func (c *Coordinator) policyRequest(r decisionRequest) (*policy.Request, error) {
	policies, err := c.compiledPolicies(r.org)
	if err != nil {
		return nil, err
	}
	in := c.policyInput(r, readsParams(policies)) // decoding the intent again costs more than deciding on it
	var rejections []string
	for _, v := range r.votes {
		u := r.org.User(v.UserID)
		if u == nil {
			continue // a voter deleted since no longer counts
		}
		if v.Selection == api.VoteRejected {
			rejections = append(rejections, u.ID)
			continue
		}
		// A user who approved again with a second factor (MFA policies) is one approver with two credentials.
		if !slices.ContainsFunc(in.Approvers, func(a policy.User) bool { return a.ID == u.ID }) {
			in.Approvers = append(in.Approvers, policyUser(u))
		}
		in.Credentials = append(in.Credentials, credentialOf(u, v.PublicKey))
	}
	return &policy.Request{
		RootQuorum:          policy.RootQuorum{UserIDs: r.org.RootQuorum.UserIDs, Threshold: int(r.org.RootQuorum.Threshold)},
		Input:               &in,
		Rejections:          rejections,
		RootOnly:            r.op.RootOnly,
		OwnCredentialChange: r.op.OwnCredentials && ownCredentialChange(r.intent, r.submitterID),
		VoterInConsensus:    r.voterInConsensus,
		StrictDeny:          c.cfg.StrictPolicyErrors,
		Policies:            policies,
		Budget:              r.budget,
	}, nil
}

func policyUser(u *User) policy.User {
	return policy.User{ID: u.ID, Email: u.Email, Alias: u.Name, Tags: u.Tags}
}

// credentialOf describes the credential a vote was made with.
func credentialOf(u *User, publicKey string) policy.Credential {
	for _, k := range u.APIKeys {
		if k.PublicKey == publicKey {
			return policy.Credential{ID: k.ID, UserID: u.ID, PublicKey: k.PublicKey, Type: k.Type}
		}
	}
	for _, a := range u.Authenticators {
		if a.PublicKeyHex == publicKey {
			return policy.Credential{ID: a.ID, UserID: u.ID, PublicKey: a.PublicKeyHex, CredentialID: a.CredentialID, Type: api.CredentialWebAuthn}
		}
	}
	return policy.Credential{UserID: u.ID, PublicKey: publicKey}
}

// policyInput is what conditions read of an activity: its facts, those its Prepare step added, the server's time, and
// (withParams) activity.params decoded from the intent.
func (c *Coordinator) policyInput(r decisionRequest, withParams bool) policy.Input {
	in := policy.Input{}
	if r.facts != nil {
		in = *r.facts
	}
	in.Now = c.now()
	in.Activity = policy.Activity{Type: r.op.Type, Kind: r.op.Kind(), Resource: r.op.Resource, Action: r.op.Action}
	if withParams {
		in.Activity.Params = activityParams(r.op.Params, r.intent)
	}
	return in
}

// readsParams reports whether any of the policies reads activity.params.
func readsParams(policies []policy.Policy) bool {
	for _, p := range policies {
		if p.Condition != nil && p.Condition.ReadsParams() || p.Consensus != nil && p.Consensus.ReadsParams() {
			return true
		}
	}
	return false
}

// activityParams exposes the parameters the policy language names (snake_case) from the intent (lowerCamelCase); an
// int parameter may be a decimal string, as the reference's amounts are.
func activityParams(params []policy.Param, intent json.RawMessage) map[string]any {
	if len(params) == 0 {
		return nil
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(intent))
	dec.UseNumber()
	if dec.Decode(&raw) != nil {
		return nil
	}
	out := make(map[string]any, len(params))
	for _, p := range params {
		v, ok := raw[camel(p.Name)]
		if !ok {
			continue
		}
		switch x := v.(type) {
		case string:
			if p.Type != "int" {
				out[p.Name] = x
			} else if n, ok := new(big.Int).SetString(x, 10); ok && n.Sign() >= 0 && isDigits(x) {
				out[p.Name] = n // amounts travel as decimal strings
			}
		case bool:
			out[p.Name] = x
		case json.Number:
			if n, err := x.Int64(); err == nil {
				out[p.Name] = n
			}
		case []any:
			ss := make([]string, 0, len(x))
			for _, e := range x {
				if s, ok := e.(string); ok {
					ss = append(ss, s)
				}
			}
			out[p.Name] = ss
		}
	}
	return out
}

func camel(snake string) string {
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// ownCredentialChange: the activity (one marked OwnCredentials) names the submitter as the user whose credentials it
// changes, which users may do implicitly.
func ownCredentialChange(intent json.RawMessage, submitterID string) bool {
	var p struct {
		UserID string `json:"userId"`
	}
	return json.Unmarshal(intent, &p) == nil && p.UserID == submitterID
}

// compiledPolicies compiles the organization's policies, each source once per process.
func (c *Coordinator) compiledPolicies(org *Org) ([]policy.Policy, error) {
	out := make([]policy.Policy, 0, len(org.Policies))
	for _, p := range org.Policies {
		cond, err := c.compile(p.Condition, policy.Condition)
		if err != nil {
			return nil, fmt.Errorf("policy %s no longer compiles, so nothing is allowed until it is fixed: %v", p.ID, err)
		}
		cons, err := c.compile(p.Consensus, policy.Consensus)
		if err != nil {
			return nil, fmt.Errorf("policy %s no longer compiles, so nothing is allowed until it is fixed: %v", p.ID, err)
		}
		when, err := c.compile(p.Time, policy.Time)
		if err != nil {
			return nil, fmt.Errorf("policy %s no longer compiles, so nothing is allowed until it is fixed: %v", p.ID, err)
		}
		out = append(out, policy.Policy{ID: p.ID, Effect: policy.Effect(p.Effect), Condition: cond, Consensus: cons, Time: when})
	}
	return out, nil
}

type exprKey struct {
	src   string
	field policy.Field
}

// exprCache holds compiled expressions by source: compiled once, evaluated for every request.
type exprCache struct{ m sync.Map }

func (c *Coordinator) compile(src string, field policy.Field) (*policy.Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	key := exprKey{src, field}
	if e, ok := c.exprs.m.Load(key); ok {
		return e.(*policy.Expr), nil
	}
	e, err := policy.Compile(src, field)
	if err != nil {
		return nil, err
	}
	c.exprs.m.Store(key, e)
	return e, nil
}

// permissionError is the denial of the reference: 403, code 7, and the policy engine's details; or, for a decision
// the budget did not let the policies make, its refusal.
func permissionError(d policy.Decision) *apierr.Error {
	if refusal := asBudgetRefusal(d.Err); refusal != nil {
		return refusal
	}
	evals := make([]map[string]string, 0, len(d.Evaluations))
	for _, e := range d.Evaluations {
		evals = append(evals, map[string]string{"policyId": e.PolicyID, "outcome": string(e.Outcome)})
	}
	err := apierr.New(apierr.PermissionDenied, "REQUEST_NOT_AUTHORIZED", "You don't have sufficient permissions to take this action: %s", d.Message)
	err.Extra = []any{map[string]any{
		"@type": "type.googleapis.com/errors.v1.PolicyEnginePermissionError", "message": d.Message, "policyEvaluations": evals,
	}}
	return err
}

// evaluationsWire is the stored and returned form of a decision's per-policy outcomes.
func evaluationsWire(d policy.Decision) []api.PolicyEvaluation {
	out := make([]api.PolicyEvaluation, 0, len(d.Evaluations))
	for _, e := range d.Evaluations {
		w := api.PolicyEvaluation{PolicyID: e.PolicyID, Outcome: string(e.Outcome)}
		if e.Err != nil {
			w.Error = e.Err.Error()
		}
		out = append(out, w)
	}
	return out
}
