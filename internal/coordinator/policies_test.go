package coordinator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

var bg = context.Background()

// tagged creates n users holding a new tag and returns their ids and clients.
func (s *stack) tagged(n int, tag string) (string, []string, []*client.Client) {
	s.t.Helper()
	org := s.boot.OrganizationID
	var ids []string
	var clients []*client.Client
	for i := 0; i < n; i++ {
		id, c := s.createUser(org, s.root, tag+string(rune('a'+i)))
		ids, clients = append(ids, id), append(clients, c)
	}
	res, _, err := s.root.CreateUserTag(bg, org, api.CreateUserTagIntent{UserTagName: tag, UserIDs: ids})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.UserTagID, ids, clients
}

func (s *stack) policy(name, effect, condition, consensus string) string {
	s.t.Helper()
	res, _, err := s.root.CreatePolicy(bg, s.boot.OrganizationID, api.CreatePolicyIntentV3{PolicyName: name, Effect: effect, Condition: condition, Consensus: consensus, Notes: ""})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.PolicyID
}

func createUserParams(name string) api.CreateUsersIntentV4 {
	return api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name, APIKeys: []api.APIKeyParamsV2{},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}}
}

func TestTwoOfThreeTaggedApprovers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		tag, _, admins := s.tagged(3, "admin")
		_, outsider := s.createUser(org, s.root, "outsider")
		s.policy("two admins create users", api.EffectAllow, "activity.resource == 'USER' && activity.action == 'CREATE'",
			"approvers.filter(u, u.tags.contains('"+tag+"')).count() >= 2")

		_, a, err := admins[0].CreateUsers(bg, org, createUserParams("new-1"))
		var ae *client.ActivityError
		if !errors.As(err, &ae) || a.Status != api.StatusConsensusNeeded || !a.CanApprove == false {
			t.Fatalf("one admin: %v %+v", err, a)
		}
		// An approval by a user outside the consensus does not count: it is refused.
		if _, err := outsider.ApproveActivity(bg, org, a.Fingerprint); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("outsider approval: %v", err)
		}
		done, err := admins[1].ApproveActivity(bg, org, a.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted || done.ID != a.ID || len(done.Votes) != 2 {
			t.Fatalf("second admin approval: %v %+v", err, done)
		}
		users, _ := s.root.ListUsers(bg, org)
		if !hasUser(users.Users, "new-1") {
			t.Fatal("approved activity did not execute")
		}
		evals, err := s.root.GetPolicyEvaluations(bg, org, a.ID)
		if err != nil || len(evals.PolicyEvaluations) != 2 ||
			evals.PolicyEvaluations[0].PolicyEvaluations[0].Outcome != "OUTCOME_REQUIRES_CONSENSUS" ||
			evals.PolicyEvaluations[1].PolicyEvaluations[0].Outcome != "OUTCOME_ALLOW" {
			t.Fatalf("evaluations %+v %v", evals, err)
		}

		// A rejection by a member of the consensus rejects.
		_, b2, _ := admins[0].CreateUsers(bg, org, createUserParams("new-2"))
		rejected, err := admins[2].RejectActivity(bg, org, b2.Fingerprint)
		if !errors.As(err, &ae) || rejected.Status != api.StatusRejected {
			t.Fatalf("rejection: %v %+v", err, rejected)
		}
		if _, err := admins[1].ApproveActivity(bg, org, b2.Fingerprint); !client.IsCode(err, apierr.NotFound) {
			t.Fatalf("approving a rejected activity: %v", err)
		}
		users, _ = s.root.ListUsers(bg, org)
		if hasUser(users.Users, "new-2") {
			t.Fatal("rejected activity executed")
		}
	})
}

// Votes find their activity among those waiting for consensus, which the store indexes by its own name for the status.
func TestStoreIndexesTheConsensusStatus(t *testing.T) {
	t.Parallel()
	if store.StatusAwaitingVotes != api.StatusConsensusNeeded {
		t.Fatalf("the store indexes activities awaiting votes as %q, the coordinator records them as %q", store.StatusAwaitingVotes, api.StatusConsensusNeeded)
	}
}

func hasUser(users []api.User, name string) bool {
	for _, u := range users {
		if u.UserName == name {
			return true
		}
	}
	return false
}

func TestDenyWinsAndDenialDetails(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		allow := s.policy("bob creates users", api.EffectAllow, "activity.resource == 'USER'", "approvers.any(u, u.id == '"+bobID+"')")
		if _, _, err := bob.CreateUsers(bg, org, createUserParams("by-bob")); err != nil {
			t.Fatalf("allowed: %v", err)
		}
		deny := s.policy("nobody creates users", api.EffectDeny, "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'", "")
		_, _, err := bob.CreateUsers(bg, org, createUserParams("by-bob-2"))
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.PermissionDenied || !strings.Contains(e.Message, "The following policies denied this action: "+deny) {
			t.Fatalf("deny must win: %v", err)
		}
		details := e.Extra[0].(map[string]any)
		outcomes := map[string]string{}
		for _, ev := range details["policyEvaluations"].([]any) {
			m := ev.(map[string]any)
			outcomes[m["policyId"].(string)] = m["outcome"].(string)
		}
		if outcomes[allow] != "OUTCOME_ALLOW" || outcomes[deny] != "OUTCOME_DENY_EXPLICIT" {
			t.Fatalf("outcomes %v", outcomes)
		}
		// The dry run says the same without storing anything.
		before := s.activityCount(org)
		dry, err := bob.EvaluateActivity(bg, org, "ACTIVITY_TYPE_CREATE_USERS_V4", createUserParams("dry"))
		if err != nil || dry.Decision != "DENY" || len(dry.PolicyEvaluations) != 2 {
			t.Fatalf("dry run %+v %v", dry, err)
		}
		if s.activityCount(org) != before {
			t.Fatal("dry run stored an activity")
		}
		// Implicit deny names no policy.
		_, carol := s.createUser(org, s.root, "carol")
		_, _, err = carol.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "carol's", Effect: api.EffectAllow, Notes: ""})
		if !errors.As(err, &e) || !strings.Contains(e.Message, "No policies evaluated to outcome: Allow") {
			t.Fatalf("implicit deny: %v", err)
		}
	})
}

func TestRootQuorumBypassTwoOfThree(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		// A DENY on user creation does not limit the root quorum.
		s.policy("no new users", api.EffectDeny, "activity.resource == 'USER' && activity.action == 'CREATE'", "")
		r2, c2 := s.createUser(org, s.root, "root2")
		r3, c3 := s.createUser(org, s.root, "root3")
		if _, _, err := s.root.UpdateRootQuorum(bg, org, api.UpdateRootQuorumIntent{Threshold: ptr(int32(2)), UserIDs: []string{s.boot.UserID, r2, r3}}); err != nil {
			t.Fatal(err)
		}
		_, a, err := c2.CreateUsers(bg, org, createUserParams("by-roots"))
		var ae *client.ActivityError
		if !errors.As(err, &ae) || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("one root of 2-of-3: %v", err)
		}
		done, err := c3.ApproveActivity(bg, org, a.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("second root: %v %+v", err, done)
		}
	})
}

func TestDenyOnCredentialsBlocksOwnAPIKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		_, k := newKey(t, stamp.CurveP256)
		// Implicitly, a user manages its own credentials...
		if _, _, err := agent.CreateAPIKeys(bg, org, api.CreateAPIKeysIntentV2{UserID: agentID, APIKeys: []api.APIKeyParamsV2{k}}); err != nil {
			t.Fatalf("own key: %v", err)
		}
		// ...but not another user's.
		if _, _, err := agent.CreateAPIKeys(bg, org, api.CreateAPIKeysIntentV2{UserID: s.boot.UserID, APIKeys: []api.APIKeyParamsV2{k}}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("another user's key: %v", err)
		}
		s.policy("agents keep their keys", api.EffectDeny, "activity.resource == 'CREDENTIAL'", "approvers.any(u, u.id == '"+agentID+"')")
		_, k2 := newKey(t, stamp.CurveP256)
		if _, _, err := agent.CreateAPIKeys(bg, org, api.CreateAPIKeysIntentV2{UserID: agentID, APIKeys: []api.APIKeyParamsV2{k2}}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("own key under a DENY: %v", err)
		}
	})
}

func TestPolicyValidation(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	cases := []struct {
		p    api.CreatePolicyIntentV3
		want string
	}{
		{api.CreatePolicyIntentV3{PolicyName: "a", Effect: api.EffectAllow, Condition: "eth.tx.too == 'x'"}, "unknown field 'eth.tx.too'"},
		{api.CreatePolicyIntentV3{PolicyName: "a", Effect: api.EffectAllow, Condition: `activity.type == "x"`}, "invalid policy condition"},
		{api.CreatePolicyIntentV3{PolicyName: "a", Effect: api.EffectAllow, Consensus: "approvers.count() >= 'two'"}, "invalid policy consensus"},
		{api.CreatePolicyIntentV3{PolicyName: "a", Effect: api.EffectAllow, Condition: "tempo.tx.calls.count() == 1"}, "not supported yet"},
		{api.CreatePolicyIntentV3{PolicyName: "a", Effect: "EFFECT_MAYBE"}, "is not EFFECT_ALLOW or EFFECT_DENY"},
		{api.CreatePolicyIntentV3{PolicyName: "", Effect: api.EffectAllow}, "policyName must not be empty"},
	}
	for _, c := range cases {
		_, _, err := s.root.CreatePolicy(bg, org, c.p)
		if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
	s.policy("unique", api.EffectAllow, "true", "")
	if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "unique", Effect: api.EffectAllow, Notes: ""}); err == nil || !strings.Contains(err.Error(), "policy label must be unique") {
		t.Fatalf("duplicate name: %v", err)
	}
	list, _ := s.root.ListPolicies(bg, org)
	if len(list.Policies) != 1 || list.Policies[0].Condition != "true" {
		t.Fatalf("policies %+v", list.Policies)
	}
}
