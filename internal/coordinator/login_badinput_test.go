package coordinator_test

import (
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
)

// A session key stops stamping once its credential is deleted, once a later login invalidates it, and once it
// expires: each is a 401 in the reference's words, and the refused request records nothing.
func TestSessionRevokedOrExpired(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org, user := s.boot.OrganizationID, s.boot.UserID
		login := func(invalidate bool) (*stamp.APIKey, *client.Client) {
			key, _ := newKey(t, stamp.CurveP256)
			if _, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), ExpirationSeconds: "600", InvalidateExisting: &invalidate}); err != nil {
				t.Fatal(err)
			}
			return key, s.client(key)
		}
		deleted, byDeleted := login(false)
		keys, _ := s.root.GetAPIKeys(bg, org, user)
		for _, k := range keys.APIKeys {
			if k.Credential.PublicKey == deleted.PublicKeyHex() {
				if _, _, err := s.root.DeleteAPIKeys(bg, org, api.DeleteAPIKeysIntent{UserID: user, APIKeyIDs: []string{k.APIKeyID}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		_, invalidated := login(false)
		_, current := login(true)
		before := s.activityCount(org)
		for name, c := range map[string]*client.Client{"a deleted session": byDeleted, "a session a later login invalidated": invalidated} {
			if _, err := c.Whoami(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
				t.Errorf("%s, whoami: %v", name, err)
			}
			if _, _, err := c.UpdateOrganizationName(bg, org, api.UpdateOrganizationNameIntent{OrganizationName: "revoked"}); !client.IsCode(err, apierr.Unauthenticated) {
				t.Errorf("%s, an activity: %v", name, err)
			}
		}
		if _, err := current.Whoami(bg, org); err != nil {
			t.Fatalf("the current session: %v", err)
		}
		clock.Advance(601 * time.Second)
		_, _, err := current.UpdateOrganizationName(bg, org, api.UpdateOrganizationNameIntent{OrganizationName: "expired"})
		if !client.IsCode(err, apierr.Unauthenticated) || !strings.Contains(err.Error(), "expired") {
			t.Errorf("an expired session: %v", err)
		}
		if n := s.activityCount(org); n != before {
			t.Errorf("refused sessions recorded %d activities", n-before)
		}
		if o, _ := s.root.GetOrganization(bg, org); o.OrganizationData.Name == "revoked" || o.OrganizationData.Name == "expired" {
			t.Errorf("a refused session renamed the organization")
		}
	})
}

// A session profile cannot be changed after its creation: there is no activity to update one, and a second profile
// cannot take its name. A session used beyond its profile's scope fails and changes nothing.
func TestSessionProfileFixed(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		prof, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "read wallets", Scope: "activity.resource == 'WALLET'"})
		if err != nil {
			t.Fatal(err)
		}
		update := envelope("ACTIVITY_TYPE_UPDATE_SESSION_PROFILE", org, map[string]string{"sessionProfileId": prof.SessionProfileID, "scope": "true"}, time.Now())
		if r := s.stamped("/public/v1/submit/update_session_profile", update, s.boot.APIKey); r.status != http.StatusBadRequest || !strings.Contains(r.message(), "unknown activity type") {
			t.Errorf("updating a session profile: %d %s", r.status, r.raw)
		}
		if _, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "read wallets", Scope: "true"}); !client.IsCode(err, apierr.AlreadyExists) {
			t.Errorf("a profile taking the name of another: %v", err)
		}
		got, _ := s.root.GetSessionProfile(bg, org, prof.SessionProfileID)
		if got.SessionProfile.Scope != "activity.resource == 'WALLET'" {
			t.Fatalf("the profile changed: %+v", got.SessionProfile)
		}
		key, _ := newKey(t, stamp.CurveP256)
		if _, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), SessionProfileID: prof.SessionProfileID}); err != nil {
			t.Fatal(err)
		}
		_, a, err := s.client(key).CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "beyond", Effect: api.EffectAllow, Condition: "true", Notes: ""})
		var ae *client.ActivityError
		if !client.IsCode(err, apierr.PermissionDenied) && !(errors.As(err, &ae) && a != nil && a.Status == api.StatusFailed) {
			t.Fatalf("an activity beyond the profile's scope: %v", err)
		}
		if list, _ := s.root.ListPolicies(bg, org); len(list.Policies) != 0 {
			t.Errorf("the refused activity created a policy: %+v", list.Policies)
		}
	})
}

// Organization features are the root quorum's: a non-root user with an allow-all policy is denied, and one root user
// of a quorum of two leaves the activity waiting for the other; nothing is set until the quorum approves.
func TestFeaturesNeedTheRootQuorum(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		carolID, carol := s.createUser(org, s.root, "carol")
		bobID, bob := s.createUser(org, s.root, "bob")
		s.policy("carol may do anything", api.EffectAllow, "true", "approvers.any(user, user.id == '"+carolID+"')")
		feature := api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_EMAIL_AUTH", Value: "false"}
		if _, _, err := carol.SetOrganizationFeature(bg, org, feature); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a feature set by a non-root user: %v", err)
		}
		two := int32(2)
		if _, _, err := s.root.UpdateRootQuorum(bg, org, api.UpdateRootQuorumIntent{Threshold: &two, UserIDs: []string{s.boot.UserID, bobID}}); err != nil {
			t.Fatal(err)
		}
		_, a, err := s.root.SetOrganizationFeature(bg, org, feature)
		if a == nil || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("one root user of two: %+v %v", a, err)
		}
		if cfg, _ := s.root.GetOrganizationConfigs(bg, org); len(cfg.Configs.Features) != 0 {
			t.Fatalf("a feature set before the quorum approved: %+v", cfg.Configs.Features)
		}
		if done, err := bob.ApproveActivity(bg, org, a.Fingerprint); err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("the second root user's approval: %+v %v", done, err)
		}
		if cfg, _ := s.root.GetOrganizationConfigs(bg, org); len(cfg.Configs.Features) != 1 || cfg.Configs.Features[0].Value != "false" {
			t.Errorf("the feature once the quorum approved: %+v", cfg.Configs.Features)
		}
	})
}
