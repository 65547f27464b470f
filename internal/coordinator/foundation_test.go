package coordinator_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

func TestPasskeyStamps(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		passkey, err := softauthn.New("app.example", "https://app.example")
		if err != nil {
			t.Fatal(err)
		}
		reg, err := passkey.Register(softauthn.NewChallenge())
		if err != nil {
			t.Fatal(err)
		}
		var params api.AuthenticatorParamsV2
		raw, _ := json.Marshal(reg)
		_ = json.Unmarshal(raw, &params)
		params.AuthenticatorName = "laptop"
		res, _, err := s.root.CreateAuthenticators(bg, org, api.CreateAuthenticatorsIntentV2{UserID: s.boot.UserID, Authenticators: []api.AuthenticatorParamsV2{params}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.root.GetAuthenticators(bg, org, s.boot.UserID)
		if err != nil || len(got.Authenticators) != 1 || got.Authenticators[0].AuthenticatorID != res.AuthenticatorIDs[0] ||
			got.Authenticators[0].Credential.Type != api.CredentialWebAuthn || got.Authenticators[0].CredentialID != passkey.CredentialID() {
			t.Fatalf("authenticators %+v %v", got, err)
		}
		byPasskey := s.client(passkey)
		who, err := byPasskey.Whoami(bg, org)
		if err != nil || who.UserID != s.boot.UserID {
			t.Fatalf("whoami with a passkey: %+v %v", who, err)
		}
		if _, _, err := byPasskey.UpdateOrganizationName(bg, org, api.UpdateOrganizationNameIntent{OrganizationName: "by passkey"}); err != nil {
			t.Fatalf("activity with a passkey: %v", err)
		}
		// A replayed or cloned authenticator (its counter goes back) is refused.
		passkey.SetSignCount(0)
		if _, err := byPasskey.Whoami(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("counter going back: %v", err)
		}
		// The same passkey cannot be registered twice.
		if _, _, err := s.root.CreateAuthenticators(bg, org, api.CreateAuthenticatorsIntentV2{UserID: s.boot.UserID, Authenticators: []api.AuthenticatorParamsV2{params}}); !client.IsCode(err, apierr.AlreadyExists) {
			t.Fatalf("duplicate passkey: %v", err)
		}
		// A registration whose attestation was tampered with is refused before anything is stored.
		bad := params
		bad.Challenge = softauthn.NewChallenge()
		if _, _, err := s.root.CreateAuthenticators(bg, org, api.CreateAuthenticatorsIntentV2{UserID: s.boot.UserID, Authenticators: []api.AuthenticatorParamsV2{bad}}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("wrong challenge: %v", err)
		}
	})
}

func TestSubOrganizations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		subKey, subParams := newKey(t, stamp.CurveEd25519)
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Alice", subParams))
		if err != nil {
			t.Fatal(err)
		}
		subID := sub.SubOrganizationID
		alice := s.client(subKey)
		// The parent reads its sub-organization...
		data, err := s.root.GetOrganization(bg, subID)
		if err != nil || data.OrganizationData.Name != "Alice" || data.OrganizationData.RootQuorum.UserIDs[0] != sub.RootUserIDs[0] {
			t.Fatalf("parent reading the sub-organization: %+v %v", data, err)
		}
		// ...but only the sub-organization's own users change it.
		if _, _, err := s.root.CreateUsers(bg, subID, createUserParams("intruder")); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("parent creating users in the sub-organization: %v", err)
		}
		if _, _, err := alice.UpdateOrganizationName(bg, subID, api.UpdateOrganizationNameIntent{OrganizationName: "Alice's"}); err != nil {
			t.Fatalf("sub-organization root: %v", err)
		}
		// A sub-organization's user reads nothing of its parent.
		if _, err := alice.GetOrganization(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("sub-organization reading its parent: %v", err)
		}
		_, bobParams := newKey(t, stamp.CurveSecp256k1)
		if _, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Bob", bobParams)); err != nil {
			t.Fatal(err)
		}
		filters := []struct{ typ, value string }{
			{api.FilterName, "Alice's"}, {api.FilterEmail, "ALICE@example.com"}, {api.FilterUsername, "Alice-root"},
			{api.FilterPublicKey, subParams.PublicKey},
		}
		for _, f := range filters {
			res, err := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org, FilterType: f.typ, FilterValue: f.value})
			if err != nil || len(res.OrganizationIDs) != 1 || res.OrganizationIDs[0] != subID {
				t.Fatalf("filter %s=%s: %+v %v", f.typ, f.value, res, err)
			}
		}
		all, _ := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org})
		first, _ := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "1"}})
		next, _ := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "1", After: first.OrganizationIDs[0]}})
		if len(all.OrganizationIDs) != 2 || first.OrganizationIDs[0] != subID || next.OrganizationIDs[0] == subID {
			t.Fatalf("pages %v %v %v", all, first, next)
		}
		if _, err := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org, FilterType: "COLOR", FilterValue: "x"}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("unknown filter: %v", err)
		}
		if _, err := s.root.ListSubOrgs(bg, api.ListSubOrgsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "101"}}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("limit over 100: %v", err)
		}
		// Sub-organizations do not nest, and only a sub-organization is deleted, by its own root quorum.
		if _, _, err := alice.CreateSubOrganization(bg, subID, subOrgParams("nested", bobParams)); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("nested sub-organization: %v", err)
		}
		if _, _, err := s.root.DeleteSubOrganization(bg, org, api.DeleteSubOrganizationIntent{}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("deleting a root organization: %v", err)
		}
		if _, _, err := alice.DeleteSubOrganization(bg, subID, api.DeleteSubOrganizationIntent{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.root.GetOrganization(bg, subID); !client.IsCode(err, apierr.NotFound) {
			t.Fatalf("deleted sub-organization: %v", err)
		}
	})
}

func TestUsersAndTags(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		carolID, _ := s.createUser(org, s.root, "carol")
		if _, _, err := s.root.UpdateUserName(bg, org, api.UpdateUserNameIntent{UserID: bobID, UserName: "robert"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.UpdateUserEmail(bg, org, api.UpdateUserEmailIntent{UserID: bobID, UserEmail: "bob@example.com"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.UpdateUserPhoneNumber(bg, org, api.UpdateUserPhoneNumberIntent{UserID: bobID, UserPhoneNumber: "+14155550100"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.UpdateUserEmail(bg, org, api.UpdateUserEmailIntent{UserID: carolID, UserEmail: "BOB@example.com"}); !client.IsCode(err, apierr.AlreadyExists) {
			t.Fatalf("an e-mail address another user has: %v", err)
		}
		tag, _, err := s.root.CreateUserTag(bg, org, api.CreateUserTagIntent{UserTagName: "ops", UserIDs: []string{bobID}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.UpdateUserTag(bg, org, api.UpdateUserTagIntent{UserTagID: tag.UserTagID, NewUserTagName: "operations", AddUserIDs: []string{carolID}, RemoveUserIDs: []string{bobID}}); err != nil {
			t.Fatal(err)
		}
		tags, _ := s.root.ListUserTags(bg, org)
		carol, _ := s.root.GetUser(bg, org, carolID)
		robert, _ := s.root.GetUser(bg, org, bobID)
		if len(tags.UserTags) != 1 || tags.UserTags[0].TagName != "operations" || len(carol.User.UserTags) != 1 || len(robert.User.UserTags) != 0 ||
			robert.User.UserName != "robert" || robert.User.UserEmail != "bob@example.com" || robert.User.UserPhoneNumber != "+14155550100" {
			t.Fatalf("tags %+v carol %+v robert %+v", tags, carol.User, robert.User)
		}
		deleted, _, err := s.root.DeleteUserTags(bg, org, api.DeleteUserTagsIntent{UserTagIDs: []string{tag.UserTagID}})
		if err != nil || len(deleted.UserIDs) != 1 || deleted.UserIDs[0] != carolID {
			t.Fatalf("delete tags %+v %v", deleted, err)
		}
		// get_api_keys without a user lists the caller's own keys.
		keys, err := bob.GetAPIKeys(bg, org, "")
		if err != nil || len(keys.APIKeys) != 1 {
			t.Fatalf("own keys %+v %v", keys, err)
		}
		// A root user is not deleted while in the root quorum; other users are.
		if _, _, err := s.root.DeleteUsers(bg, org, api.DeleteUsersIntent{UserIDs: []string{s.boot.UserID}}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("deleting a root user: %v", err)
		}
		if _, _, err := s.root.DeleteAPIKeys(bg, org, api.DeleteAPIKeysIntent{UserID: bobID, APIKeyIDs: []string{keys.APIKeys[0].APIKeyID}}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.Whoami(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("deleted key still works: %v", err)
		}
		if _, _, err := s.root.DeleteUsers(bg, org, api.DeleteUsersIntent{UserIDs: []string{bobID, carolID}}); err != nil {
			t.Fatal(err)
		}
		users, _ := s.root.ListUsers(bg, org)
		if len(users.Users) != 1 {
			t.Fatalf("%d users left", len(users.Users))
		}
	})
}

func TestCORS(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, s.srv.URL+"/public/v1/query/whoami", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ok := preflight("http://app.example")
	if ok.StatusCode != http.StatusNoContent || ok.Header.Get("Access-Control-Allow-Origin") != "http://app.example" ||
		!strings.Contains(ok.Header.Get("Access-Control-Allow-Headers"), "X-Stamp") {
		t.Fatalf("allowed preflight: %d %v", ok.StatusCode, ok.Header)
	}
	if bad := preflight("http://evil.example"); bad.StatusCode != http.StatusForbidden || bad.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("disallowed preflight: %d %v", bad.StatusCode, bad.Header)
	}
}

// Approvals expire 24 hours after the first one: later approvals count alone.
func TestApprovalsExpire(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := newStackAt(t, testdb.SQLite(t), clock)
	org := s.boot.OrganizationID
	r2, c2 := s.createUser(org, s.root, "root2")
	r3, c3 := s.createUser(org, s.root, "root3")
	if _, _, err := s.root.UpdateRootQuorum(bg, org, api.UpdateRootQuorumIntent{Threshold: ptr(int32(3)), UserIDs: []string{s.boot.UserID, r2, r3}}); err != nil {
		t.Fatal(err)
	}
	_, a, _ := s.root.CreateUsers(bg, org, createUserParams("late"))
	if _, err := c2.ApproveActivity(bg, org, a.Fingerprint); !isConsensusNeeded(err) {
		t.Fatalf("second approval: %v", err)
	}
	clock.Advance(25 * time.Hour)
	// Both earlier approvals expired: the third approval alone does not reach 3 of 3.
	if _, err := c3.ApproveActivity(bg, org, a.Fingerprint); !isConsensusNeeded(err) {
		t.Fatalf("approval after expiry: %v", err)
	}
	clock.Advance(time.Second)
	// The expired approvers may approve again; the window restarted with the third approval.
	if _, err := s.root.ApproveActivity(bg, org, a.Fingerprint); !isConsensusNeeded(err) {
		t.Fatalf("fresh approval: %v", err)
	}
	clock.Advance(time.Second)
	done, err := c2.ApproveActivity(bg, org, a.Fingerprint)
	if err != nil || done.Status != api.StatusCompleted {
		t.Fatalf("third fresh approval: %v", err)
	}
}

func isConsensusNeeded(err error) bool {
	var ae *client.ActivityError
	return errors.As(err, &ae) && ae.Activity.Status == api.StatusConsensusNeeded
}
