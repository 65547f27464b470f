package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/stamp"
)

var bg = context.Background()

// newUser creates a user with an API key in org and returns its id and a client that stamps with its key.
func newUser(t *testing.T, root *client.Client, org, name string) (string, *client.Client) {
	t.Helper()
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := root.CreateUsers(bg, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name,
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: name, PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		t.Fatal(err)
	}
	c := *root
	c.Stamper = key
	return res.UserIDs[0], &c
}

// A client's Organization is the one a call acts in when it names none, activities and queries alike; a call may
// name another; with neither, a submission is refused before anything is sent.
func TestDefaultOrganization(t *testing.T) {
	t.Parallel()
	coord, boot := startCoordinator(t)
	c := client.NewInProcess(coord.Handler(), boot.APIKey)
	if _, _, err := c.UpdateOrganizationName(bg, "", api.UpdateOrganizationNameIntent{OrganizationName: "x"}); !errors.Is(err, client.ErrNoOrganization) {
		t.Fatalf("no organization anywhere: %v", err)
	}
	c.Organization = boot.OrganizationID
	res, a, err := c.CreateSubOrganization(bg, "", api.CreateSubOrganizationIntentV8{SubOrganizationName: "sub",
		RootUsers: []api.RootUserParamsV5{{UserName: "sub root", APIKeys: []api.APIKeyParamsV2{{APIKeyName: "k",
			PublicKey: boot.APIKey.PublicKeyHex(), CurveType: api.CurveP256}}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParamsV2{}}}, RootQuorumThreshold: new(int32(1))})
	if err != nil || a.OrganizationID != boot.OrganizationID {
		t.Fatalf("an activity in the default organization: %+v, %v", a, err)
	}
	who, err := c.Whoami(bg, "")
	if err != nil || who.OrganizationID != boot.OrganizationID {
		t.Fatalf("a query in the default organization: %+v, %v", who, err)
	}
	acts, err := c.ListActivities(bg, api.ListActivitiesRequest{FilterByType: []string{a.Type}})
	if err != nil || len(acts.Activities) != 1 || acts.Activities[0].ID != a.ID {
		t.Fatalf("a query whose request names no organization: %+v, %v", acts, err)
	}
	sub := res.SubOrganizationID
	if who, err := c.Whoami(bg, sub); err != nil || who.OrganizationID != sub {
		t.Fatalf("a query overriding the default: %+v, %v", who, err)
	}
	if _, a, err := c.UpdateOrganizationName(bg, sub, api.UpdateOrganizationNameIntent{OrganizationName: "renamed"}); err != nil || a.OrganizationID != sub {
		t.Fatalf("an activity overriding the default: %+v, %v", a, err)
	}
}

// faulty answers the first n requests with status (or, with status 0, fails them as a dropped connection would)
// and passes the others to h; it counts them all.
type faulty struct {
	h      http.Handler
	n      int64
	status int
	seen   atomic.Int64
}

func (f *faulty) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.seen.Add(1) <= f.n {
		if f.status == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		w := client.HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"code":14,"message":"try again","details":[]}`, f.status)
		})}
		return w.RoundTrip(r)
	}
	return client.HandlerTransport{Handler: f.h}.RoundTrip(r)
}

// Network errors and 5xx answers but 501 are retried, with the same bytes: the activity is recorded once. Client
// errors, 501, and a request out of attempts are answered as they came.
func TestRetries(t *testing.T) {
	t.Parallel()
	coord, boot := startCoordinator(t)
	run := func(status int, failures int64, policy client.RetryPolicy) (*client.Client, *faulty, error) {
		f := &faulty{h: coord.Handler(), n: failures, status: status}
		c := client.New("http://coordinator", boot.APIKey)
		c.HTTP.Transport, c.Organization, c.Retry = f, boot.OrganizationID, policy
		_, _, err := c.UpdateOrganizationName(bg, "", api.UpdateOrganizationNameIntent{OrganizationName: "retried"})
		return c, f, err
	}
	fast := client.RetryPolicy{MinBackoff: time.Millisecond}
	for _, tc := range []struct {
		name     string
		status   int
		failures int64
		policy   client.RetryPolicy
		sent     int64
		code     apierr.Code // 0: succeeds
	}{
		{"a dropped connection", 0, 2, fast, 3, 0},
		{"503", http.StatusServiceUnavailable, 3, fast, 4, 0},
		{"500", http.StatusInternalServerError, 1, fast, 2, 0},
		{"out of attempts", http.StatusBadGateway, 4, fast, 4, apierr.Unavailable},
		{"one attempt only", http.StatusServiceUnavailable, 1, client.RetryPolicy{MaxAttempts: 1}, 1, apierr.Unavailable},
		{"501 is final", http.StatusNotImplemented, 1, fast, 1, apierr.Unavailable},
		{"400 is final", http.StatusBadRequest, 1, fast, 1, apierr.Unavailable},
	} {
		c, f, err := run(tc.status, tc.failures, tc.policy)
		switch {
		case f.seen.Load() != tc.sent:
			t.Errorf("%s: sent %d times, want %d (%v)", tc.name, f.seen.Load(), tc.sent, err)
		case tc.code == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.code != 0 && !client.IsCode(err, tc.code):
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
		if tc.code == 0 {
			// The retried submission is the activity already recorded, not a second one.
			acts, err := c.ListActivities(bg, api.ListActivitiesRequest{FilterByType: []string{api.UpdateOrganizationName.Type}})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range acts.Activities {
				if a.TimestampMs == acts.Activities[0].TimestampMs && a.ID != acts.Activities[0].ID {
					t.Errorf("%s: the retried activity was recorded twice: %s and %s", tc.name, a.ID, acts.Activities[0].ID)
				}
			}
		}
	}
	// A cancelled context stops retrying.
	f := &faulty{h: coord.Handler(), n: 100, status: http.StatusServiceUnavailable}
	c := client.New("http://coordinator", boot.APIKey)
	c.HTTP.Transport, c.Retry = f, client.RetryPolicy{MinBackoff: time.Hour}
	ctx, cancel := context.WithCancel(bg)
	go func() {
		for f.seen.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.Whoami(ctx, boot.OrganizationID); !errors.Is(err, context.Canceled) || f.seen.Load() != 1 {
		t.Errorf("cancelled while waiting to retry: %v after %d requests", err, f.seen.Load())
	}
}

// An activity that needs approvals is returned at once, wrapping ErrNeedsApproval; with AwaitApprovals the client
// waits through the votes of others, within PollTimeout; a rejection wraps ErrRejected.
func TestAwaitApprovals(t *testing.T) {
	t.Parallel()
	coord, boot := startCoordinator(t)
	root := client.NewInProcess(coord.Handler(), boot.APIKey)
	root.Organization, root.PollInterval = boot.OrganizationID, 5*time.Millisecond
	aliceID, alice := newUser(t, root, "", "alice")
	bobID, bob := newUser(t, root, "", "bob")
	if _, _, err := root.CreatePolicy(bg, "", api.CreatePolicyIntentV3{PolicyName: "alice creates users, bob approves",
		Effect: api.EffectAllow, Condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
		Consensus: "approvers.any(u, u.id == '" + bobID + "') && approvers.any(u, u.id == '" + aliceID + "')", Notes: ""}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := root.CreatePolicy(bg, "", api.CreatePolicyIntentV3{PolicyName: "bob votes", Effect: api.EffectAllow,
		Condition: "activity.resource == 'ACTIVITY' && activity.action == 'APPROVE' || activity.action == 'REJECT'", Notes: ""}); err != nil {
		t.Fatal(err)
	}
	create := func(c *client.Client, name string) (*api.Activity, error) {
		_, a, err := c.CreateUsers(bg, "", api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name, APIKeys: []api.APIKeyParamsV2{},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
		return a, err
	}

	a, err := create(alice, "carol")
	var ae *client.ActivityError
	if !errors.Is(err, client.ErrNeedsApproval) || !errors.As(err, &ae) || a.Status != api.StatusConsensusNeeded || ae.Activity.ID != a.ID {
		t.Fatalf("without AwaitApprovals: %+v, %v", a, err)
	}
	waiting := *alice
	waiting.AwaitApprovals, waiting.PollTimeout = true, time.Minute
	done := make(chan error, 1)
	var final *api.Activity
	go func() {
		var err error
		final, err = waiting.Await(bg, a)
		done <- err
	}()
	if _, err := bob.ApproveActivity(bg, "", a.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || final.Status != api.StatusCompleted {
		t.Fatalf("awaited through bob's approval: %+v, %v", final, err)
	}

	waiting.PollTimeout = 20 * time.Millisecond
	a, err = create(&waiting, "dave")
	if !errors.Is(err, client.ErrPollTimeout) || !errors.Is(err, client.ErrNeedsApproval) || a.Status != api.StatusConsensusNeeded {
		t.Fatalf("no approval within the poll timeout: %+v, %v", a, err)
	}
	if _, err := bob.RejectActivity(bg, "", a.Fingerprint); !errors.Is(err, client.ErrRejected) {
		t.Fatalf("a rejection: %v", err)
	}
	waiting.PollTimeout = time.Minute
	if a, err := waiting.Await(bg, a); !errors.Is(err, client.ErrRejected) || a.Status != api.StatusRejected {
		t.Fatalf("awaiting a rejected activity: %+v, %v", a, err)
	}
}

// A refusal keeps the reference's code, message and details; a failed activity's error unwraps to its failure.
func TestErrorsKeepTheReferencesCodeAndDetails(t *testing.T) {
	t.Parallel()
	coord, boot := startCoordinator(t)
	stranger, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	_, err := client.NewInProcess(coord.Handler(), stranger).Whoami(bg, boot.OrganizationID)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.Unauthenticated || e.Status() != http.StatusUnauthorized || e.Detail == "" || e.Message == "" {
		t.Fatalf("an unknown key: %#v", err)
	}
	failed := &client.ActivityError{Activity: api.Activity{ID: "a", Status: api.StatusFailed, Failure: &api.Status{Code: 7,
		Message: "denied", Details: []any{map[string]any{"@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail", "turnkeyErrorCode": "REQUEST_NOT_AUTHORIZED"}}}}}
	if !errors.As(error(failed), &e) || e.Code != apierr.PermissionDenied || e.Detail != "REQUEST_NOT_AUTHORIZED" || e.Message != "denied" {
		t.Fatalf("a failed activity's failure: %#v", e)
	}
}
