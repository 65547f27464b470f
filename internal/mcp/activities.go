package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
)

// What comes of an activity the server submits: completed, denied by policy, or waiting for approvals. Each is answered
// the same way by every tool that submits one.

// outcome is an activity submitted for a tool, as the coordinator answered.
type outcome struct {
	activity *api.Activity
	err      error
}

// policyOutcome is one policy's verdict, with the policy's name.
type policyOutcome struct {
	PolicyID   string `json:"policyId"`
	PolicyName string `json:"policyName,omitempty"`
	Outcome    string `json:"outcome"`
	Error      string `json:"error,omitempty"`
}

// approval is what an activity that needs consensus waits for, and who can give it.
type approval struct {
	ActivityID  string          `json:"activityId"`
	Type        string          `json:"type"`
	Status      string          `json:"status"`
	Fingerprint string          `json:"fingerprint"`
	WaitingFor  []string        `json:"waitingFor"`
	Approvers   []approver      `json:"approvers"`
	Votes       []string        `json:"votes"`
	Policies    []policyOutcome `json:"policies,omitempty"`
	// DashboardURL opens the activity in the organization dashboard, where an approver approves or rejects it.
	DashboardURL string `json:"dashboardUrl,omitempty"`
	Next         string `json:"next"`
}

type approver struct {
	UserID   string `json:"userId"`
	UserName string `json:"userName,omitempty"`
}

// denial is an activity the policy engine refused: why, and what each policy decided.
type denial struct {
	Reason   string          `json:"reason"`
	Policies []policyOutcome `json:"policies,omitempty"`
}

// consensusNeeded is the activity behind err when it waits for approvals.
func consensusNeeded(err error) (*api.Activity, bool) {
	var ae *client.ActivityError
	if errors.As(err, &ae) && ae.Activity.Status == api.StatusConsensusNeeded {
		return &ae.Activity, true
	}
	return nil, false
}

// refusal answers a submission that did not complete: a denial with each policy's outcome by name, an approval to
// wait for, or the coordinator's error. what names the activity in the summary ("The signature").
func (s *Server) refusal(ctx context.Context, what string, err error, effects []effect) (*mcp.CallToolResult, any, error) {
	if a, ok := consensusNeeded(err); ok {
		ap := s.approvalOf(ctx, a)
		summary := fmt.Sprintf("%s needs approval: activity %s waits for %s. Who can approve it: %s. Ask one of them to approve it "+
			"(in the dashboard: %s), then poll it with activities_get.", what, a.ID, joinAnd(ap.WaitingFor), approversText(ap.Approvers),
			cmp.Or(ap.DashboardURL, "no dashboard configured"))
		return reply{Summary: summary + restateAll(effects), Sigil: map[string]any{"approval": ap, "effects": effects}}.result()
	}
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.PermissionDenied {
		d := s.denialOf(ctx, ae)
		return reply{Summary: fmt.Sprintf("%s was denied by the organization's policies: %s.%s", what, d.Reason, restateAll(effects)),
			Sigil: map[string]any{"denial": d, "effects": effects}, IsError: true}.result()
	}
	var fe *client.ActivityError
	if errors.As(err, &fe) {
		return failure(fmt.Sprintf("%s did not complete: %s", what, fe.Error()))
	}
	if errors.As(err, &ae) {
		return failure(fmt.Sprintf("%s was refused by the coordinator (%s): %s", what, codeWord(ae.Code), ae.Message))
	}
	return failure(fmt.Sprintf("%s failed: %v", what, err))
}

func codeWord(c apierr.Code) string {
	return strings.ToLower(strings.ReplaceAll(fmt.Sprint(c), "_", " "))
}

func restateAll(effects []effect) string {
	if len(effects) == 0 {
		return ""
	}
	lines := []string{"\nWhat it does:"}
	for _, e := range effects {
		lines = append(lines, "- "+restate(e))
	}
	return strings.Join(lines, "\n")
}

// denialOf reads a permission error's details: the engine's message and each policy's outcome, named.
func (s *Server) denialOf(ctx context.Context, e *apierr.Error) denial {
	d := denial{Reason: strings.TrimPrefix(e.Message, "You don't have sufficient permissions to take this action: ")}
	var evals []api.PolicyEvaluation
	for _, x := range e.Extra {
		m, _ := x.(map[string]any)
		list, _ := m["policyEvaluations"].([]any)
		for _, ev := range list {
			em, _ := ev.(map[string]any)
			id, _ := em["policyId"].(string)
			out, _ := em["outcome"].(string)
			evals = append(evals, api.PolicyEvaluation{PolicyID: id, Outcome: out})
		}
	}
	d.Policies = s.namePolicies(ctx, evals)
	return d
}

// namePolicies gives each evaluation its policy's name (one list_policies).
func (s *Server) namePolicies(ctx context.Context, evals []api.PolicyEvaluation) []policyOutcome {
	names := map[string]string{}
	if len(evals) > 0 {
		if res, err := s.coord.ListPolicies(ctx, s.cfg.OrganizationID); err == nil {
			for _, p := range res.Policies {
				names[p.PolicyID] = p.PolicyName
			}
		}
	}
	out := make([]policyOutcome, 0, len(evals))
	for _, e := range evals {
		out = append(out, policyOutcome{PolicyID: e.PolicyID, PolicyName: names[e.PolicyID], Outcome: e.Outcome, Error: e.Error})
	}
	return out
}

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// approvalOf says what an activity waiting for consensus waits for: the consensus of each policy that needs it (the
// users it names can approve), the votes so far, and the dashboard's link to it.
func (s *Server) approvalOf(ctx context.Context, a *api.Activity) approval {
	ap := approval{ActivityID: a.ID, Type: a.Type, Status: a.Status, Fingerprint: a.Fingerprint, WaitingFor: []string{},
		Approvers: []approver{}, Votes: []string{},
		Next: "Poll with activities_get (waitSeconds up to 120) until it is COMPLETED, REJECTED or FAILED."}
	if s.cfg.DashboardURL != "" {
		ap.DashboardURL = strings.TrimSuffix(s.cfg.DashboardURL, "/") + "/?activity=" + url.QueryEscape(a.ID)
	}
	users := map[string]string{}
	if res, err := s.coord.ListUsers(ctx, s.cfg.OrganizationID); err == nil {
		for _, u := range res.Users {
			users[u.UserID] = u.UserName
		}
	}
	for _, v := range a.Votes {
		ap.Votes = append(ap.Votes, fmt.Sprintf("%s %s", cmp.Or(users[v.UserID], v.UserID), strings.ToLower(strings.TrimPrefix(v.Selection, "VOTE_SELECTION_"))))
	}
	evals, err := s.coord.GetPolicyEvaluations(ctx, s.cfg.OrganizationID, a.ID)
	if err != nil || len(evals.PolicyEvaluations) == 0 {
		ap.WaitingFor = append(ap.WaitingFor, "more approvals (the policy engine's verdicts could not be read)")
		return ap
	}
	latest := evals.PolicyEvaluations[len(evals.PolicyEvaluations)-1].PolicyEvaluations
	ap.Policies = s.namePolicies(ctx, latest)
	policies := map[string]api.Policy{}
	if res, err := s.coord.ListPolicies(ctx, s.cfg.OrganizationID); err == nil {
		for _, p := range res.Policies {
			policies[p.PolicyID] = p
		}
	}
	voted := map[string]bool{}
	for _, v := range a.Votes {
		voted[v.UserID] = true
	}
	for _, e := range latest {
		if e.Outcome != "OUTCOME_REQUIRES_CONSENSUS" {
			continue
		}
		p, ok := policies[e.PolicyID]
		if !ok {
			ap.WaitingFor = append(ap.WaitingFor, "the consensus of policy "+e.PolicyID)
			continue
		}
		ap.WaitingFor = append(ap.WaitingFor, fmt.Sprintf("policy %q's consensus: %s", p.PolicyName, p.Consensus))
		for _, id := range uuidRE.FindAllString(p.Consensus, -1) {
			if _, isUser := users[id]; isUser && !voted[id] && !slices.ContainsFunc(ap.Approvers, func(x approver) bool { return x.UserID == id }) {
				ap.Approvers = append(ap.Approvers, approver{UserID: id, UserName: users[id]})
			}
		}
	}
	if len(ap.WaitingFor) == 0 {
		ap.WaitingFor = append(ap.WaitingFor, "more approvals")
	}
	return ap
}

func approversText(list []approver) string {
	if len(list) == 0 {
		return "the users the consensus expressions above allow (none is named by id)"
	}
	var out []string
	for _, a := range list {
		if a.UserName != "" {
			out = append(out, fmt.Sprintf("%s (%s)", a.UserName, a.UserID))
		} else {
			out = append(out, a.UserID)
		}
	}
	return joinAnd(out)
}

// waitActivity polls an activity until it leaves CONSENSUS_NEEDED (or PENDING), or wait passes.
func (s *Server) waitActivity(ctx context.Context, id string, wait time.Duration) (*api.Activity, error) {
	deadline := time.Now().Add(wait)
	for {
		res, err := s.coord.GetActivity(ctx, s.cfg.OrganizationID, id)
		if err != nil {
			return nil, err
		}
		a := res.Activity
		waiting := a.Status == api.StatusConsensusNeeded || a.Status == api.StatusPending || a.Status == api.StatusCreated
		if !waiting || !time.Now().Before(deadline) {
			return &a, nil
		}
		select {
		case <-ctx.Done():
			return &a, nil
		case <-time.After(min(s.cfg.PollInterval, time.Until(deadline))):
		}
	}
}
