package coordinator_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// A policy with a time field allows only while it is active; outside its time it is skipped, and get_active_policies
// says which policies are active, evaluated at the server's time.
func TestTimeBasedPolicies(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		until := clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		window := "time.now < Timestamp('" + until + "')"
		pol, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "bob makes wallets this hour",
			Effect: api.EffectAllow, Condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
			Consensus: "approvers.any(user, user.id == '" + bobID + "')", Time: window})
		if err != nil {
			t.Fatal(err)
		}
		wallet := func(name string) error {
			_, _, err := bob.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
			return err
		}
		if err := wallet("inside"); err != nil {
			t.Fatalf("inside the policy's time: %v", err)
		}
		active, err := s.root.GetActivePolicies(bg, org)
		if err != nil || len(active.Statuses) != 1 || !active.Statuses[0].Active || active.Statuses[0].TimeExpr != window {
			t.Fatalf("get_active_policies inside: %+v %v", active, err)
		}

		clock.Advance(2 * time.Hour)
		err = wallet("outside")
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.PermissionDenied || !strings.Contains(string(mustJSON(e.Extra)), "OUTCOME_TIME_INACTIVE") {
			t.Fatalf("outside the policy's time: %v, want a denial that reports OUTCOME_TIME_INACTIVE", err)
		}
		active, _ = s.root.GetActivePolicies(bg, org)
		if active.Statuses[0].Active || active.EvaluatedAtMs == "" {
			t.Fatalf("get_active_policies outside: %+v", active)
		}

		// An empty time makes the policy always active again.
		if _, _, err := s.root.UpdatePolicy(bg, org, api.UpdatePolicyIntentV2{PolicyID: pol.PolicyID, Time: ptr("")}); err != nil {
			t.Fatal(err)
		}
		if err := wallet("always"); err != nil {
			t.Fatalf("after the time was removed: %v", err)
		}
		got, _ := s.root.GetPolicy(bg, org, pol.PolicyID)
		if got.Policy.Time != "" {
			t.Fatalf("policy time after removal = %q", got.Policy.Time)
		}

		// A time that does not compile is refused at creation, with what to change, and nothing is stored.
		before := s.activityCount(org)
		for src, want := range map[string]string{
			"CronSpan('0 9 * * 1-5', '9d', 'America/New_York')": "at most 7d",
			"time.now > Timestamp('2026-01-01T00:00:00+02:00')": "must be in UTC",
			"activity.type == 'x'":                              "keyword 'activity' can be used only in the condition field",
		} {
			_, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "bad " + src, Effect: api.EffectAllow, Time: src})
			if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "invalid policy time") || !strings.Contains(err.Error(), want) {
				t.Errorf("time %q: %v, want 400 invalid policy time with %q", src, err, want)
			}
		}
		if after := s.activityCount(org); after != before {
			t.Fatalf("refused policies stored %d activities", after-before)
		}
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
