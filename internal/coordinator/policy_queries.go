package coordinator

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/jsonstrict"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// The queries of this file.
var (
	getActivePolicies    = query(api.GetActivePolicies, queryGetActivePolicies)
	getPolicy            = query(api.GetPolicy, queryGetPolicy)
	listPolicies         = query(api.ListPolicies, queryListPolicies)
	getPolicyEvaluations = query(api.GetPolicyEvaluations, queryPolicyEvaluations)
	evaluateActivity     = query(api.EvaluateActivity, queryEvaluateActivity)
)

// errDryRun rolls back the transaction of a dry run.
var errDryRun = errors.New("dry run")

func timeFromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func queryGetPolicy(r *reader, q *api.GetPolicyRequest) (*api.GetPolicyResponse, error) {
	if err := checkID("policyId", q.PolicyID); err != nil {
		return nil, err
	}
	p := r.org.Policy(q.PolicyID)
	if p == nil {
		return nil, apierr.NotFoundf("policy %s not found in organization %s", q.PolicyID, r.org.ID)
	}
	return &api.GetPolicyResponse{Policy: renderPolicy(p)}, nil
}

func queryListPolicies(r *reader, _ *api.OrganizationRequest) (*api.ListPoliciesResponse, error) {
	out := &api.ListPoliciesResponse{Policies: []api.Policy{}}
	for _, p := range r.org.Policies {
		out.Policies = append(out.Policies, renderPolicy(p))
	}
	return out, nil
}

func queryPolicyEvaluations(r *reader, q *api.GetActivityRequest) (*api.GetPolicyEvaluationsResponse, error) {
	rec, err := r.activity(q.ActivityID)
	if err != nil {
		return nil, err
	}
	list, err := rec.evaluationList()
	if err != nil {
		return nil, err
	}
	out := &api.GetPolicyEvaluationsResponse{PolicyEvaluations: []api.PolicyEvaluationRecord{}}
	for _, e := range list {
		out.PolicyEvaluations = append(out.PolicyEvaluations, api.PolicyEvaluationRecord{ID: e.ID, ActivityID: rec.ID,
			OrganizationID: rec.OrganizationID, VoteID: e.VoteID, PolicyEvaluations: e.Policies,
			CreatedAt: api.NewTimestamp(timeFromNanos(e.CreatedAt))})
	}
	return out, nil
}

// queryEvaluateActivity is a dry run: the decision the caller would get by submitting this activity now, with every
// policy's outcome and, for an error, the failing clause. Nothing is executed or stored.
func queryEvaluateActivity(r *reader, q *api.EvaluateActivityRequest) (*api.EvaluateActivityResponse, error) {
	env := q.Activity
	if env.OrganizationID != r.org.ID {
		return nil, apierr.Invalid("activity.organizationId must be the organization the query is sent to")
	}
	op, ok := r.c.ops.activity(env.Type)
	if !ok {
		return nil, apierr.Invalid("unknown activity type %q", env.Type)
	}
	j, err := op.begin(func(params any) error {
		if err := jsonstrict.Decode(env.Parameters, params, "activity.parameters"); err != nil {
			return apierr.Invalid("%s", err.Error())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	info := op.info()
	if r.who.ViaParent && !info.ByParent {
		return decisionResponse(policy.Decision{Outcome: policy.Deny, Message: "a parent organization's credentials may not submit this activity here"}), nil
	}
	intent, _ := json.Marshal(api.Redact(j.params()))
	vote := r.c.approval("", r.who, r.c.now())
	req := decisionRequest{org: r.org, op: info, intent: intent, votes: []api.Vote{vote}, submitterID: r.who.User.ID}
	if r.who.ViaParent {
		req.org = r.who.Org
	}
	var release func()
	req.budget, release = r.c.policyBudget(req.org)
	defer release()
	// The prepare step gives the decision its facts (the transaction signed, the activity voted on). A signing
	// activity's needs no transaction; any other's runs in one that is rolled back.
	x := &execution{ctx: r.ctx, c: r.c, org: r.org.clone(), who: r.who, now: r.c.now(), readOnly: info.Signs}
	if info.Signs {
		if _, err := j.prepare(x, &req); err != nil {
			return nil, err
		}
	} else {
		err := r.c.store.Write(r.ctx, func(tx *store.Tx) error {
			x.tx, x.ctx = tx, store.Holding(r.ctx, tx)
			if _, err := j.prepare(x, &req); err != nil {
				return err
			}
			return errDryRun
		})
		if err != nil && !errors.Is(err, errDryRun) {
			return nil, err
		}
	}
	measures, err := r.c.measureControls(r.ctx, r.c.store, &req, x.now)
	if err != nil {
		return nil, err
	}
	out := decisionResponse(r.c.decide(req))
	release()
	out.VelocityControls = controlMeasures(measures)
	return out, nil
}

func decisionResponse(d policy.Decision) *api.EvaluateActivityResponse {
	names := map[policy.Outcome]string{policy.Allow: "ALLOW", policy.Deny: "DENY", policy.ConsensusNeeded: "CONSENSUS_NEEDED", policy.Rejected: "REJECTED"}
	return &api.EvaluateActivityResponse{Decision: names[d.Outcome], Message: d.Message, PolicyEvaluations: evaluationsWire(d)}
}

// queryGetActivePolicies evaluates every policy's time field at one server time.
func queryGetActivePolicies(r *reader, _ *api.OrganizationRequest) (*api.GetActivePoliciesResponse, error) {
	now := r.c.now()
	out := &api.GetActivePoliciesResponse{Statuses: []api.ActivePolicyStatus{}, EvaluatedAtMs: strconv.FormatInt(now.UnixMilli(), 10)}
	for _, p := range r.org.Policies {
		st := api.ActivePolicyStatus{OrganizationID: r.org.ID, PolicyID: p.ID, TimeExpr: p.Time}
		when, err := r.c.compile(p.Time, policy.Time)
		if err == nil {
			st.Active, err = policy.Active(&policy.Policy{Time: when}, now)
		}
		if err != nil {
			st.Active, st.Error = false, err.Error()
		}
		out.Statuses = append(out.Statuses, st)
	}
	return out, nil
}
