package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
)

// Approvals: an activity the policies hold for more approvals is polled here until a person decides it.

type activityIn struct {
	ActivityID  string `json:"activityId" jsonschema:"the activity's id, as a tool that needed approval returned it"`
	WaitSeconds *int   `json:"waitSeconds,omitempty" jsonschema:"wait up to this many seconds for it to leave CONSENSUS_NEEDED, 0 to 120 (default 0: read once)"`
}

type activitiesListIn struct {
	Limit *int `json:"limit,omitempty" jsonschema:"how many, 1 to 100 (default 25)"`
}

func (s *Server) addApprovalTools() {
	addTool(s, toolSpec{name: "activities_get", title: "Poll an activity", readOnly: true,
		description: "An activity's status: one that waits for approvals (CONSENSUS_NEEDED) says what it waits for and who can " +
			"approve it; once approved it is COMPLETED with its result (the signed transaction, the send to follow), or " +
			"REJECTED. waitSeconds polls until it leaves CONSENSUS_NEEDED.",
		example: map[string]any{"activityId": "019a…", "waitSeconds": 60}},
		s.activityGet)
	addTool(s, toolSpec{name: "activities_list", title: "This agent's recent activities", readOnly: true,
		description: "The activities this server's user submitted, newest first: type, status, and why one failed.",
		example:     map[string]any{"limit": 10}},
		s.activitiesList)
}

func (s *Server) activityGet(ctx context.Context, in *activityIn) (*mcp.CallToolResult, any, error) {
	wait := time.Duration(0)
	if in.WaitSeconds != nil {
		if *in.WaitSeconds < 0 || *in.WaitSeconds > 120 {
			return failure(argError("waitSeconds", "must be from 0 to 120, got %d", *in.WaitSeconds).Error())
		}
		wait = time.Duration(*in.WaitSeconds) * time.Second
	}
	a, err := s.waitActivity(ctx, in.ActivityID, wait)
	if err != nil {
		return s.refusal(ctx, "Reading activity "+in.ActivityID, err, nil)
	}
	switch a.Status {
	case api.StatusConsensusNeeded:
		ap := s.approvalOf(ctx, a)
		return reply{Summary: fmt.Sprintf("Activity %s (%s) still waits for %s. Who can approve it: %s (dashboard: %s).", a.ID, a.Type,
			joinAnd(ap.WaitingFor), approversText(ap.Approvers), cmp.Or(ap.DashboardURL, "none configured")),
			Sigil: map[string]any{"approval": ap}}.result()
	case api.StatusCompleted:
		return s.completed(ctx, a)
	case api.StatusRejected:
		return reply{Summary: fmt.Sprintf("Activity %s (%s) was REJECTED by an approver: it will not be executed.", a.ID, a.Type),
			Sigil: map[string]any{"activityId": a.ID, "status": a.Status, "votes": s.approvalOf(ctx, a).Votes}, IsError: true}.result()
	case api.StatusFailed:
		msg := ""
		if a.Failure != nil {
			msg = a.Failure.Message
		}
		return reply{Summary: fmt.Sprintf("Activity %s (%s) FAILED: %s", a.ID, a.Type, msg),
			Sigil: map[string]any{"activityId": a.ID, "status": a.Status, "failure": msg}, IsError: true}.result()
	}
	return reply{Summary: fmt.Sprintf("Activity %s (%s) is %s.", a.ID, a.Type, a.Status),
		Sigil: map[string]any{"activityId": a.ID, "status": a.Status}}.result()
}

// completed answers an activity that completed: its result as what to do next (a signed transaction to broadcast, a
// send to follow).
func (s *Server) completed(ctx context.Context, a *api.Activity) (*mcp.CallToolResult, any, error) {
	found := map[string]any{"activityId": a.ID, "type": a.Type, "status": a.Status}
	summary := fmt.Sprintf("Activity %s (%s) is COMPLETED.", a.ID, a.Type)
	for key, raw := range a.Result {
		if key == "activity" {
			continue
		}
		var r struct {
			SignedTransaction       string   `json:"signedTransaction"`
			SendTransactionStatusID string   `json:"sendTransactionStatusId"`
			TransactionHash         string   `json:"transactionHash"`
			Addresses               []string `json:"addresses"`
		}
		_ = json.Unmarshal(raw, &r)
		switch {
		case r.SignedTransaction != "":
			found["signedTransaction"] = "0x" + strings.TrimPrefix(r.SignedTransaction, "0x")
			summary += " Its signed transaction is below: broadcast it with send_raw_transaction."
		case r.SendTransactionStatusID != "":
			found["sendTransactionStatusId"] = r.SendTransactionStatusID
			summary += " Its send is " + r.SendTransactionStatusID + ": follow it with get_send_transaction_status."
		case r.TransactionHash != "":
			found["transactionHash"] = r.TransactionHash
			summary += " Its transaction " + r.TransactionHash + " is broadcast: follow it with get_send_transaction_status."
		case len(r.Addresses) > 0:
			found["addresses"] = r.Addresses
			summary += " It made " + strings.Join(r.Addresses, ", ") + "."
		default:
			found["result"] = raw
		}
	}
	return reply{Summary: summary, Sigil: found}.result()
}

// recentActivity is an activity as the agent's list shows it.
type recentActivity struct {
	ActivityID string `json:"activityId"`
	Type       string `json:"type"`
	Status     string `json:"status"`
	CreatedAt  string `json:"createdAt"`
	Failure    string `json:"failure,omitempty"`
}

// recentActivities are the activities the server's user submitted, newest first (from the organization's latest
// 100).
func (s *Server) recentActivities(ctx context.Context, limit int) ([]recentActivity, error) {
	who, err := s.whoami(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.coord.ListActivities(ctx, api.ListActivitiesRequest{OrganizationID: s.cfg.OrganizationID,
		PaginationOptions: &api.Pagination{Limit: "100"}})
	if err != nil {
		return nil, err
	}
	out := []recentActivity{}
	for _, a := range res.Activities {
		if len(a.Votes) == 0 || a.Votes[0].UserID != who.UserID {
			continue
		}
		r := recentActivity{ActivityID: a.ID, Type: a.Type, Status: a.Status,
			CreatedAt: a.CreatedAt.Time().UTC().Format(time.RFC3339)}
		if a.Failure != nil {
			r.Failure = a.Failure.Message
		}
		out = append(out, r)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

func (s *Server) activitiesList(ctx context.Context, in *activitiesListIn) (*mcp.CallToolResult, any, error) {
	limit := 25
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return failure(argError("limit", "must be from 1 to 100, got %d", *in.Limit).Error())
		}
		limit = *in.Limit
	}
	list, err := s.recentActivities(ctx, limit)
	if err != nil {
		return s.refusal(ctx, "Listing the activities", err, nil)
	}
	return reply{Summary: plural(len(list), "recent activity", "recent activities") + " of this agent.", Sigil: list}.result()
}
