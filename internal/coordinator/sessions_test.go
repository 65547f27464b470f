package coordinator_test

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// A read-write session: a new key for the caller, returned in a credential bundle only the target key opens; it stamps
// as the user until it expires.
func TestReadWriteSession(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org := s.boot.OrganizationID
		target, _ := bundle.NewTargetKey()
		res, _, err := s.root.CreateReadWriteSession(bg, org, api.CreateReadWriteSessionIntentV2{
			TargetPublicKey: hex.EncodeToString(target.PublicKey().Bytes()), ExpirationSeconds: "600"})
		if err != nil || res.UserID != s.boot.UserID || res.OrganizationID != org || res.APIKeyID == "" {
			t.Fatalf("create_read_write_session: %+v %v", res, err)
		}
		secret, err := bundle.OpenCredentialBundle(target, res.CredentialBundle)
		if err != nil {
			t.Fatal(err)
		}
		key, err := stamp.ParseAPIKey(stamp.CurveP256, hex.EncodeToString(secret))
		if err != nil {
			t.Fatal(err)
		}
		session := s.client(key)
		if who, err := session.Whoami(bg, org); err != nil || who.UserID != s.boot.UserID {
			t.Fatalf("whoami with the session key: %+v %v", who, err)
		}
		got, _ := s.root.GetAPIKey(bg, org, res.APIKeyID)
		if got.APIKey.Credential.Type != api.CredentialReadWriteSession || got.APIKey.ExpirationSeconds != "600" {
			t.Errorf("the session's credential: %+v", got.APIKey)
		}
		clock.Advance(601 * time.Second)
		if _, err := session.Whoami(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
			t.Errorf("an expired session key: %v", err)
		}
		if _, _, err := s.root.CreateReadWriteSession(bg, org, api.CreateReadWriteSessionIntentV2{TargetPublicKey: "02ab"}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("a bad target key: %v", err)
		}
	})
}

// A read-only session answers queries sent with it as X-Session, never activities, and stops at its expiry or when
// its credential is deleted.
func TestReadOnlySession(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := newStackAt(t, testdb.SQLite(t), clock)
	org := s.boot.OrganizationID
	res, _, err := s.root.CreateReadOnlySession(bg, org)
	if err != nil || res.Session == "" || res.UserID != s.boot.UserID {
		t.Fatalf("create_read_only_session: %+v %v", res, err)
	}
	withSession := func(path string, body []byte) response {
		h := http.Header{}
		h.Set("X-Session", res.Session)
		return s.post(path, body, h)
	}
	who := []byte(`{"organizationId":"` + org + `"}`)
	if r := withSession("/public/v1/query/whoami", who); r.status != http.StatusOK || r.body["userId"] != s.boot.UserID {
		t.Fatalf("whoami with X-Session: %d %s", r.status, r.raw)
	}
	rename := envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, api.UpdateOrganizationNameIntent{OrganizationName: "x"}, time.Now())
	if r := withSession("/public/v1/submit/update_organization_name", rename); r.status != http.StatusUnauthorized {
		t.Errorf("an activity with only X-Session: %d %s, want 401", r.status, r.raw)
	}
	other := []byte(`{"organizationId":"6f3c7a52-2d8e-4b8a-9d55-111111111111"}`)
	if r := withSession("/public/v1/query/whoami", other); r.status != http.StatusUnauthorized {
		t.Errorf("another organization with the session: %d %s", r.status, r.raw)
	}
	clock.Advance(time.Hour + time.Second)
	if r := withSession("/public/v1/query/whoami", who); r.status != http.StatusUnauthorized || !strings.Contains(r.message(), "expired") {
		t.Errorf("an expired read-only session: %d %s", r.status, r.raw)
	}
	fresh, _, err := s.root.CreateReadOnlySession(bg, org)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := s.root.GetAPIKeys(bg, org, s.boot.UserID)
	for _, k := range keys.APIKeys {
		if k.Credential.Type == api.CredentialReadOnlySession {
			if _, _, err := s.root.DeleteAPIKeys(bg, org, api.DeleteAPIKeysIntent{UserID: s.boot.UserID, APIKeyIDs: []string{k.APIKeyID}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	res = fresh
	if r := withSession("/public/v1/query/whoami", who); r.status != http.StatusUnauthorized || !strings.Contains(r.message(), "revoked") {
		t.Errorf("a revoked read-only session: %d %s", r.status, r.raw)
	}
}

// A read-only session's token is a bearer credential: the answer to CREATE_READ_ONLY_SESSION shows it, and nothing
// after. Another user of the organization who reads the activity finds it redacted, and cannot use it.
func TestReadOnlySessionTokenShownOnce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		res, a, err := s.root.CreateReadOnlySession(bg, org)
		if err != nil || !strings.HasPrefix(res.Session, "ey") {
			t.Fatalf("create_read_only_session: %+v %v", res, err)
		}
		_, bob := s.createUser(org, s.root, "bob") // every user of the organization reads its activities
		got, err := bob.GetActivity(bg, org, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		var shown struct {
			CreateReadOnlySessionResult api.CreateReadOnlySessionResult `json:"createReadOnlySessionResult"`
		}
		raw, _ := json.Marshal(got.Activity.Result)
		if err := json.Unmarshal(raw, &shown); err != nil {
			t.Fatal(err)
		}
		stolen := shown.CreateReadOnlySessionResult.Session
		if stolen != api.Redacted || shown.CreateReadOnlySessionResult.SessionExpiry != res.SessionExpiry || strings.Contains(string(raw), res.Session) {
			t.Errorf("get_activity shows the read-only session's result as %s", raw)
		}
		list, err := bob.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org})
		if raw, _ := json.Marshal(list); err != nil || strings.Contains(string(raw), res.Session) {
			t.Errorf("list_activities shows the session token: %v", err)
		}
		whoami := func(session string) response {
			h := http.Header{}
			h.Set("X-Session", session)
			return s.post("/public/v1/query/whoami", []byte(`{"organizationId":"`+org+`"}`), h)
		}
		if r := whoami(stolen); r.status != http.StatusUnauthorized {
			t.Errorf("the token bob read back, as X-Session: %d %s", r.status, r.raw)
		}
		if r := whoami(res.Session); r.status != http.StatusOK {
			t.Errorf("the token of the answer: %d %s", r.status, r.raw)
		}
	})
}

// A read-only session completed by a vote (its submitter's policies wanted consensus) is recorded with its token
// redacted too: neither the voter's answer nor any later reader gets the submitter's session.
func TestReadOnlySessionByConsensusShowsNoToken(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		two := int32(2)
		if _, a, err := s.root.UpdateRootQuorum(bg, org, api.UpdateRootQuorumIntent{Threshold: &two, UserIDs: []string{s.boot.UserID, bobID}}); err != nil {
			t.Fatalf("update_root_quorum: %+v %v", a, err)
		}
		_, a, _ := s.root.CreateReadOnlySession(bg, org)
		if a == nil || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("a read-only session needing consensus: %+v", a)
		}
		done, err := bob.ApproveActivity(bg, org, a.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("bob's approval: %+v %v", done, err)
		}
		got, err := s.root.GetActivity(bg, org, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for name, result := range map[string]json.RawMessage{"the voter's answer": done.Result["createReadOnlySessionResult"],
			"get_activity": got.Activity.Result["createReadOnlySessionResult"]} {
			var r api.CreateReadOnlySessionResult
			if err := json.Unmarshal(result, &r); err != nil || r.Session != api.Redacted || r.SessionExpiry == "" {
				t.Errorf("%s shows %s (%v)", name, result, err)
			}
		}
	})
}
