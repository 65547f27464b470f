package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

func TestCreateUsersV3Envelope(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		_, k := newKey(t, stamp.CurveSecp256k1)
		params := api.CreateUsersIntentV3{Users: []api.UserParamsV3{{
			UserName: "alice", UserEmail: "alice@example.com", UserPhoneNumber: "+14155550123",
			APIKeys: []api.APIKeyParamsV2{k}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParams{}, UserTags: []string{},
		}}}
		body := envelope("ACTIVITY_TYPE_CREATE_USERS_V3", s.boot.OrganizationID, params, time.Now())
		r := s.stamped("/public/v1/submit/create_users", body, s.boot.APIKey)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		var res api.ActivityResponse
		if err := json.Unmarshal(r.raw, &res); err != nil {
			t.Fatal(err)
		}
		a := res.Activity
		if a.Status != api.StatusCompleted || a.Type != "ACTIVITY_TYPE_CREATE_USERS_V3" || a.OrganizationID != s.boot.OrganizationID || a.Fingerprint == "" {
			t.Fatalf("activity %+v", a)
		}
		var result api.CreateUsersResult
		if err := json.Unmarshal(a.Result["createUsersResult"], &result); err != nil || len(result.UserIDs) != 1 {
			t.Fatalf("result %s: %v", a.Result["createUsersResult"], err)
		}
		var nested api.NestedActivity
		if err := json.Unmarshal(a.Result["activity"], &nested); err != nil {
			t.Fatal(err)
		}
		if nested.ID != a.ID || nested.Status != api.StatusCompleted || string(nested.Result["createUsersResult"]) != string(a.Result["createUsersResult"]) {
			t.Fatalf("nested %+v", nested)
		}
		if _, err := time.Parse(time.RFC3339Nano, nested.CreatedAt); err != nil {
			t.Fatalf("nested createdAt %q", nested.CreatedAt)
		}
		var intent api.CreateUsersIntentV3
		if err := json.Unmarshal(a.Intent["createUsersIntentV3"], &intent); err != nil || intent.Users[0].UserEmail != "alice@example.com" {
			t.Fatalf("intent %s", a.Intent["createUsersIntentV3"])
		}
		if len(a.Votes) != 1 || a.Votes[0].UserID != s.boot.UserID || a.Votes[0].Selection != api.VoteApproved || a.Votes[0].PublicKey != s.boot.APIKey.PublicKeyHex() {
			t.Fatalf("votes %+v", a.Votes)
		}
		if a.CreatedAt.Seconds == "" || a.CanApprove || a.CanReject {
			t.Fatalf("timestamps or vote flags wrong: %+v", a)
		}

		// The same body again is the same activity, not a second execution.
		again := s.stamped("/public/v1/submit/create_users", body, s.boot.APIKey)
		var res2 api.ActivityResponse
		_ = json.Unmarshal(again.raw, &res2)
		if res2.Activity.ID != a.ID {
			t.Fatalf("resubmission made activity %s, want %s", res2.Activity.ID, a.ID)
		}
		users, _ := s.root.ListUsers(context.Background(), s.boot.OrganizationID)
		if len(users.Users) != 2 {
			t.Fatalf("%d users after an identical resubmission, want 2", len(users.Users))
		}
		got, err := s.root.GetUser(context.Background(), s.boot.OrganizationID, result.UserIDs[0])
		if err != nil {
			t.Fatal(err)
		}
		u := got.User
		if u.UserEmail != "alice@example.com" || u.UserPhoneNumber != "+14155550123" || len(u.APIKeys) != 1 ||
			u.APIKeys[0].Credential.Type != api.CredentialAPIKeySecp256 || u.APIKeys[0].Credential.PublicKey != k.PublicKey {
			t.Fatalf("user %+v", u)
		}
		// get_activity returns the same shape.
		ga, err := s.root.GetActivity(context.Background(), s.boot.OrganizationID, a.ID)
		if err != nil || ga.Activity.Fingerprint != a.Fingerprint || string(ga.Activity.Result["activity"]) == "" {
			t.Fatalf("get_activity %+v %v", ga, err)
		}
	})
}

func TestStampFailuresStoreNothing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org := s.boot.OrganizationID
		params := api.UpdateOrganizationNameIntent{OrganizationName: "renamed"}
		body := envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, params, time.Now())
		_, otherValue, _ := s.boot.APIKey.Stamp([]byte(`{"other":"body"}`))
		stranger, _ := newKey(t, stamp.CurveP256)
		_, strangerValue, _ := stranger.Stamp(body)

		// An expired key: registered with a one-second lifetime, used after it ran out.
		expiring, expParams := newKey(t, stamp.CurveP256)
		expParams.ExpirationSeconds = "1"
		if _, _, err := s.root.CreateAPIKeys(context.Background(), org, api.CreateAPIKeysIntentV2{UserID: s.boot.UserID, APIKeys: []api.APIKeyParamsV2{expParams}}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(1100 * time.Millisecond)
		_, expiredValue, _ := expiring.Stamp(body)

		// A key of another organization (a sub-organization's root user).
		subKey, subParams := newKey(t, stamp.CurveP256)
		sub, _, err := s.root.CreateSubOrganization(context.Background(), org, subOrgParams("other", subParams))
		if err != nil {
			t.Fatal(err)
		}
		_ = sub
		_, subValue, _ := subKey.Stamp(body)

		before := s.activityCount(org)
		cases := []struct {
			name, header, value, want string
		}{
			{"missing", "", "", "cannot authenticate public API activity request without a stamp"},
			{"not base64url", "X-Stamp", "!!!", "malformed activity stamp"},
			{"bad json", "X-Stamp", "bm90IGpzb24", "malformed activity stamp"},
			{"unknown scheme", "X-Stamp", b64(`{"publicKey":"` + s.boot.APIKey.PublicKeyHex() + `","signature":"3006020101020101","scheme":"SIGNATURE_SCHEME_NOPE"}`), "malformed activity stamp"},
			{"key not found", "X-Stamp", strangerValue, "public key could not be found in organization or its parent organization"},
			{"signature over other bytes", "X-Stamp", otherValue, "could not verify api key signature"},
			{"expired key", "X-Stamp", expiredValue, "expired api key"},
			{"key of another organization", "X-Stamp", subValue, "public key could not be found"},
			{"passkey header not JSON", "X-Stamp-WebAuthn", "nope", "malformed activity stamp"},
		}
		for _, c := range cases {
			h := http.Header{}
			if c.header != "" {
				h.Set(c.header, c.value)
			}
			r := s.post("/public/v1/submit/update_organization_name", body, h)
			if r.status != http.StatusUnauthorized || !strings.Contains(r.message(), c.want) || r.body["code"] != float64(16) {
				t.Errorf("%s: %d %s, want 401 with %q", c.name, r.status, r.raw, c.want)
			}
		}
		if after := s.activityCount(org); after != before {
			t.Fatalf("refused requests stored %d activities", after-before)
		}
		got, _ := s.root.GetOrganization(context.Background(), org)
		if got.OrganizationData.Name != "Acme" {
			t.Fatalf("organization renamed by a refused request")
		}
	})
}

func b64(s string) string {
	return strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(stdB64(s)), "=")
}

func TestBadBodies(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		good := api.UpdateOrganizationNameIntent{OrganizationName: "x"}
		raw := func(s string) []byte { return []byte(s) }
		cases := []struct {
			name   string
			path   string
			body   []byte
			status int
			want   string
		}{
			{"malformed json", "update_organization_name", raw(`{"type":`), 400, "malformed JSON"},
			{"unknown top-level field", "update_organization_name", raw(`{"type":"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME","timestampMs":"1","organizationId":"` + org + `","parameters":{},"extra":1}`), 400, "request.extra: unknown field"},
			{"unknown type", "update_organization_name", envelope("ACTIVITY_TYPE_NOPE", org, good, time.Now()), 400, `unknown activity type "ACTIVITY_TYPE_NOPE"`},
			{"wrong path", "create_users", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, good, time.Now()), 400, "is submitted at /public/v1/submit/update_organization_name"},
			{"missing field", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, map[string]any{}, time.Now()), 400, "parameters.organizationName: required field is missing"},
			{"wrong json type", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, map[string]any{"organizationName": 7}, time.Now()), 400, "parameters.organizationName: expected string, got number"},
			{"unknown parameter", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, map[string]any{"organizationName": "x", "color": "red"}, time.Now()), 400, "parameters.color: unknown field"},
			{"unsupported parameter", "update_user_email", envelope("ACTIVITY_TYPE_UPDATE_USER_EMAIL", org, map[string]any{"userId": s.boot.UserID, "userEmail": "a@example.com", "verificationToken": "t"}, time.Now()), 400, "parameters.verificationToken: is not supported yet"},
			{"invalid policy time", "create_policy", envelope("ACTIVITY_TYPE_CREATE_POLICY_V3", org, map[string]any{"policyName": "p", "effect": "EFFECT_ALLOW", "notes": "", "time": "t"}, time.Now()), 400, "invalid policy time: time: unknown keyword 't'"},
			{"too old", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, good, time.Now().Add(-2*time.Hour)), 400, "old; requests older than 1h0m0s are refused"},
			{"in the future", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, good, time.Now().Add(time.Hour)), 400, "in the future"},
			{"malformed organization id", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "nope", good, time.Now()), 400, "malformed organization ID provided"},
			{"unknown organization", "update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "6f3c7a52-2d8e-4b8a-9d55-111111111111", good, time.Now()), 404, "no organization found with the given ID"},
			{"oversized", "update_organization_name", raw(`{"pad":"` + strings.Repeat("a", 2<<20) + `"}`), 413, "larger than the limit"},
			{"bad e-mail", "create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{UserName: "u", UserEmail: "not-an-email", APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}}, time.Now()), 400, "not a valid e-mail address"},
			{"bad phone", "create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{UserName: "u", UserPhoneNumber: "555-1234", APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}}, time.Now()), 400, "not an E.164 phone number"},
			{"bad curve", "create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{UserName: "u", APIKeys: []api.APIKeyParamsV2{{APIKeyName: "k", PublicKey: "02ab", CurveType: "API_KEY_CURVE_RSA"}}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}}, time.Now()), 400, "curveType"},
			{"bad public key", "create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{UserName: "u", APIKeys: []api.APIKeyParamsV2{{APIKeyName: "k", PublicKey: "02ab", CurveType: api.CurveP256}}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}}, time.Now()), 400, "parameters.users[0].apiKeys[0].publicKey"},
			{"missing empty arrays", "create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, map[string]any{"users": []any{map[string]any{"userName": "u"}}}, time.Now()), 400, "parameters.users[0].apiKeys: required field is missing"},
		}
		before := s.activityCount(org)
		for _, c := range cases {
			r := s.stamped("/public/v1/submit/"+c.path, c.body, s.boot.APIKey)
			if r.status != c.status || !strings.Contains(r.message(), c.want) {
				t.Errorf("%s: %d %s, want %d with %q", c.name, r.status, r.raw, c.status, c.want)
			}
		}
		if after := s.activityCount(org); after != before {
			t.Fatalf("refused requests stored %d activities", after-before)
		}
	})
}

func TestNonRootUserIsDenied(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		_, bob := s.createUser(org, s.root, "bob")
		_, _, err := bob.UpdateOrganizationName(context.Background(), org, api.UpdateOrganizationNameIntent{OrganizationName: "bob's"})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("non-root rename: %v", err)
		}
		failed, _ := s.root.ListActivities(context.Background(), api.ListActivitiesRequest{OrganizationID: org, FilterByStatus: []string{api.StatusFailed}})
		if len(failed.Activities) != 1 || failed.Activities[0].Failure == nil || failed.Activities[0].Failure.Code != 7 {
			t.Fatalf("denied activity not recorded as FAILED: %+v", failed.Activities)
		}
		got, _ := s.root.GetOrganization(context.Background(), org)
		if got.OrganizationData.Name != "Acme" {
			t.Fatal("denied activity took effect")
		}
		// Reading its own organization is allowed.
		who, err := bob.Whoami(context.Background(), org)
		if err != nil || who.Username != "bob" {
			t.Fatalf("whoami %+v %v", who, err)
		}
	})
}

func TestExecutionFailureRollsBack(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		_, k1 := newKey(t, stamp.CurveP256)
		// The second user repeats the first user's key: the whole activity fails and neither user exists.
		u := func(name string) api.UserParamsV4 {
			return api.UserParamsV4{UserName: name, APIKeys: []api.APIKeyParamsV2{k1}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}
		}
		_, _, err := s.root.CreateUsers(context.Background(), org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{u("a"), u("b")}})
		if !client.IsCode(err, apierr.AlreadyExists) {
			t.Fatalf("duplicate key: %v", err)
		}
		users, _ := s.root.ListUsers(context.Background(), org)
		if len(users.Users) != 1 {
			t.Fatalf("%d users after a failed activity, want 1", len(users.Users))
		}
	})
}

func TestRootQuorumThreshold(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		second, c2 := s.createUser(org, s.root, "second")
		if _, _, err := s.root.UpdateRootQuorum(context.Background(), org, api.UpdateRootQuorumIntent{Threshold: ptr(int32(2)), UserIDs: []string{s.boot.UserID, second}}); err != nil {
			t.Fatal(err)
		}
		_, a, err := c2.UpdateOrganizationName(context.Background(), org, api.UpdateOrganizationNameIntent{OrganizationName: "two"})
		var ae *client.ActivityError
		if !asActivityError(err, &ae) || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("2-of-2 with one approval: %v", err)
		}
		// A quorum of zero or more than its members is refused.
		_, _, err = s.root.UpdateRootQuorum(context.Background(), org, api.UpdateRootQuorumIntent{Threshold: ptr(int32(3)), UserIDs: []string{s.boot.UserID, second}})
		if !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("threshold 3 of 2: %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// A request is authenticated before anything else of its body is looked at: whatever the body holds, a stamp that
// does not verify, or a key no organization holds, is answered 401 and nothing more. Only the holder of a registered
// key learns that a body is malformed or that an organization does not exist.
func TestAuthenticationComesFirst(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		stranger, _ := newKey(t, stamp.CurveP256)
		unknownOrg := "6f3c7a52-2d8e-4b8a-9d55-111111111111"
		bodies := []struct {
			name, path string
			body       []byte
		}{
			{"not JSON", "submit/update_organization_name", []byte(`{"type":`)},
			{"unknown field", "submit/update_organization_name", []byte(`{"type":"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME","timestampMs":"1","organizationId":"` + org + `","parameters":{},"extra":1}`)},
			{"unknown organization", "submit/update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", unknownOrg, api.UpdateOrganizationNameIntent{OrganizationName: "x"}, time.Now())},
			{"malformed organization id", "submit/update_organization_name", envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "nope", api.UpdateOrganizationNameIntent{OrganizationName: "x"}, time.Now())},
			{"invalid parameters", "submit/create_users", envelope("ACTIVITY_TYPE_CREATE_USERS_V4", org, map[string]any{"users": []any{map[string]any{"userName": "u", "userEmail": "not-an-email"}}}, time.Now())},
			{"unknown type", "submit/update_organization_name", envelope("ACTIVITY_TYPE_NOPE", org, map[string]any{}, time.Now())},
			{"query of an unknown organization", "query/get_organization", []byte(`{"organizationId":"` + unknownOrg + `"}`)},
			{"query with an unknown field", "query/whoami", []byte(`{"organizationId":"` + org + `","extra":1}`)},
		}
		before := s.activityCount(org)
		for _, c := range bodies {
			_, otherBytes, _ := s.boot.APIKey.Stamp([]byte(`{"other":"body"}`))
			_, strangers, _ := stranger.Stamp(c.body)
			for _, st := range []struct{ who, value, want string }{
				{"a signature over other bytes", otherBytes, "could not verify api key signature"},
				{"a key no organization holds", strangers, "public key could not be found in organization or its parent organization"},
			} {
				h := http.Header{}
				h.Set("X-Stamp", st.value)
				r := s.post("/public/v1/"+c.path, c.body, h)
				if r.status != http.StatusUnauthorized || r.body["code"] != float64(16) || !strings.Contains(r.message(), st.want) {
					t.Errorf("%s with %s: %d %s, want 401 with %q", c.name, st.who, r.status, r.raw, st.want)
				}
			}
		}
		if after := s.activityCount(org); after != before {
			t.Fatalf("unauthenticated requests stored %d activities", after-before)
		}
		// The holder of a registered key is told what is wrong with the body.
		r := s.stamped("/public/v1/query/get_organization", []byte(`{"organizationId":"`+unknownOrg+`"}`), s.boot.APIKey)
		if r.status != http.StatusNotFound || !strings.Contains(r.message(), "no organization found") {
			t.Errorf("registered key, unknown organization: %d %s, want 404", r.status, r.raw)
		}
	})
}

// Names and labels refuse control characters and bidirectional overrides, which would make a name show one thing and
// be another.
func TestNamesRefuseControlAndBidiCharacters(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	before := s.activityCount(org)
	for _, name := range []string{"evil\x00", "two\nlines", "del\x7f", "pay\u202eusdc", "iso\u2066late\u2069", "tab\there"} {
		_, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{}})
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.InvalidArgument || !strings.Contains(e.Message, "parameters.walletName must not contain control characters or bidirectional overrides") {
			t.Errorf("wallet named %q: %v, want a 400 naming parameters.walletName", name, err)
		}
		if _, _, err := s.root.UpdateUserName(bg, org, api.UpdateUserNameIntent{UserID: s.boot.UserID, UserName: name}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("user renamed %q: %v, want 400", name, err)
		}
	}
	if after := s.activityCount(org); after != before {
		t.Fatalf("refused names stored %d activities", after-before)
	}
	if _, _, err := s.root.UpdateUserName(bg, org, api.UpdateUserNameIntent{UserID: s.boot.UserID, UserName: "Trésor — 財布 💰"}); err != nil {
		t.Fatalf("a name in any script: %v", err)
	}
}

// A body is the same activity only for the user who submitted it: another user sending the identical bytes (a copy of
// someone's request) is refused and does not receive that activity or its result.
func TestIdenticalBodyOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	_, bobClient := s.createUser(org, s.root, "bob")
	from := s.ethWallet("root's wallet")
	body := envelope("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
		UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), 1)}, time.Now())
	if r := s.stamped("/public/v1/submit/sign_transaction", body, s.boot.APIKey); r.status != http.StatusOK {
		t.Fatalf("root signs: %d %s", r.status, r.raw)
	}
	before := s.activityCount(org)
	r := s.stamped("/public/v1/submit/sign_transaction", body, bobClient.Stamper)
	if r.status != http.StatusConflict || strings.Contains(string(r.raw), "signedTransaction") || !strings.Contains(r.message(), "another user has submitted an identical request") {
		t.Fatalf("bob replays root's body: %d %s, want 409 without the signature", r.status, r.raw)
	}
	if after := s.activityCount(org); after != before {
		t.Fatalf("the replay stored %d activities", after-before)
	}
	// The same user sending it again gets the same activity, as always.
	if again := s.stamped("/public/v1/submit/sign_transaction", body, s.boot.APIKey); again.status != http.StatusOK {
		t.Fatalf("root again: %d %s", again.status, again.raw)
	}
}

// A path of the reference's API that Sigil does not serve (api.Unimplemented) answers UNIMPLEMENTED with its family and
// why, stamped or not and whatever the body, and writes nothing; a path neither served nor listed stays unknown.
func TestUnimplementedPathsSayWhy(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	onRamp := envelope("ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL", org, map[string]any{"onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY"}, time.Now())
	tvcQuery := []byte(`{"organizationId":"` + org + `"}`)
	before := s.activityCount(org)
	for _, c := range []struct {
		name, path string
		body       []byte
		stamped    bool
		want       string
	}{
		{"stamped activity", "submit/create_fiat_on_ramp_credential", onRamp, true, "/public/v1/submit/create_fiat_on_ramp_credential is not implemented by Sigil (Fiat on-ramp: "},
		{"activity without a stamp", "submit/create_fiat_on_ramp_credential", onRamp, false, "/public/v1/submit/create_fiat_on_ramp_credential is not implemented by Sigil (Fiat on-ramp: "},
		{"activity with a body that is not JSON", "submit/create_tvc_app", []byte(`{"type":`), false, "/public/v1/submit/create_tvc_app is not implemented by Sigil (Turnkey Verifiable Cloud: "},
		{"stamped query", "query/list_tvc_apps", tvcQuery, true, "/public/v1/query/list_tvc_apps is not implemented by Sigil (Turnkey Verifiable Cloud: "},
		{"query without a stamp", "query/get_tvc_app", tvcQuery, false, "/public/v1/query/get_tvc_app is not implemented by Sigil (Turnkey Verifiable Cloud: "},
	} {
		var r response
		if c.stamped {
			r = s.stamped("/public/v1/"+c.path, c.body, s.boot.APIKey)
		} else {
			r = s.post("/public/v1/"+c.path, c.body, http.Header{})
		}
		if r.status != http.StatusNotImplemented || r.body["code"] != float64(12) || !strings.HasPrefix(r.message(), c.want) {
			t.Errorf("%s: %d %.300s, want 501, code 12 and a message starting %q", c.name, r.status, r.raw, c.want)
		}
	}
	if after := s.activityCount(org); after != before {
		t.Errorf("requests to paths Sigil does not serve stored %d activities", after-before)
	}
	if r := s.stamped("/public/v1/query/get_nothing", tvcQuery, s.boot.APIKey); r.status != http.StatusNotFound || !strings.Contains(r.message(), `unknown query "get_nothing"`) {
		t.Errorf("unknown query: %d %.300s, want 404", r.status, r.raw)
	}
}
