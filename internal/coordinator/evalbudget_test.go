package coordinator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// heavyCondition is false after n·(n+1) steps of nested any: ~93,950 steps (and nodes) at n = 305, within one
// expression's limit of 100,000; ten fit the budget of 1,000,000 steps one activity may take, eleven do not.
func heavyCondition(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprint(i + 1)
	}
	list := "[" + strings.Join(items, ",") + "]"
	return list + ".any(a, " + list + ".any(b, a == 0))"
}

// The attack on policy CPU, scaled down: heavy policies, each within its own limit, which together cost one
// activity seconds of CPU. An activity's policies, its voters' MFA conditions and its session's scope spend one budget:
// ten heavy policies decide; the same with a heavy session scope, or with a heavy MFA condition, are refused with the
// reason (RESOURCE_EXHAUSTED, not a policy's denial), though each part alone fits.
func TestPolicyBudgetSpansPoliciesMfaAndScope(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		// Each activity here is costly, and costly ones take at most 250,000 steps a second together: the clock moves
		// on ten seconds before each.
		clock := newClock()
		s := newStackAt(t, b, clock)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		s.policy("bob tags", api.EffectAllow, "activity.type in ['ACTIVITY_TYPE_CREATE_USER_TAG', 'ACTIVITY_TYPE_STAMP_LOGIN']", "approvers.any(u, u.id == '"+bobID+"')")
		for i := range 10 {
			s.policy(fmt.Sprintf("heavy %d", i), api.EffectDeny, heavyCondition(305), "")
		}
		n := 0
		createTag := func(who string, submit func(api.CreateUserTagIntent) error) error {
			n++
			clock.Advance(10 * time.Second)
			return submit(api.CreateUserTagIntent{UserTagName: fmt.Sprintf("%s %d", who, n), UserIDs: []string{}})
		}
		viaKey := func(p api.CreateUserTagIntent) error { _, _, err := bob.CreateUserTag(bg, org, p); return err }
		if err := createTag("bob", viaKey); err != nil {
			t.Fatalf("ten heavy policies: %v", err)
		}

		prof, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "heavy scope",
			Scope: "true || " + heavyCondition(305)})
		if err != nil {
			t.Fatal(err)
		}
		key, _ := newKey(t, stamp.CurveP256)
		clock.Advance(10 * time.Second)
		if _, _, err := bob.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), ExpirationSeconds: "900",
			SessionProfileID: prof.SessionProfileID}); err != nil {
			t.Fatal(err)
		}
		session := s.client(key)
		viaSession := func(p api.CreateUserTagIntent) error { _, _, err := session.CreateUserTag(bg, org, p); return err }
		expectErr(t, "ten heavy policies and a heavy scope", createTag("session", viaSession), apierr.ResourceExhausted,
			"the organization's policies, MFA conditions and session scope need more than 1000000 evaluation steps to decide this activity")

		if _, _, err := s.root.CreateMfaPolicy(bg, org, api.CreateMfaPolicyIntent{UserID: bobID, MfaPolicyName: "heavy",
			Condition: heavyCondition(305), RequiredAuthenticationMethods: steps(api.AuthPasskey)}); err != nil {
			t.Fatal(err)
		}
		expectErr(t, "ten heavy policies and a heavy MFA condition", createTag("bob", viaKey), apierr.ResourceExhausted,
			"need more than 1000000 evaluation steps")
		tags, err := s.root.ListUserTags(bg, org)
		if err != nil || len(tags.UserTags) != 1 {
			t.Errorf("user tags after the refusals: %+v %v, want the first one only", tags, err)
		}
	})
}
