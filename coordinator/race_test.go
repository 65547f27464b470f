package coordinator_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"sigil/api"
	"sigil/coordinator"
	"sigil/internal/testdb"
	"sigil/stamp"
	"sigil/store"
)

// Two coordinators, each with its own connection pool, share one PostgreSQL database as two processes would. The same
// signed body sent to both at once is one activity, executed once.
func TestIdenticalSubmissionsRacingThroughTwoCoordinators(t *testing.T) {
	b := testdb.Postgres(t)
	first := newStack(t, b)
	s2, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	second := httptest.NewServer(coordinator.New(s2, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	defer second.Close()

	for round := 0; round < 5; round++ {
		_, k := newKey(t, stamp.CurveP256)
		body := envelope("ACTIVITY_TYPE_CREATE_USERS_V4", first.boot.OrganizationID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{
			UserName: "racer", APIKeys: []api.APIKeyParamsV2{k}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{},
		}}}, time.Now())
		ids := make([]string, 6)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				base := first.srv.URL
				if i%2 == 1 {
					base = second.URL
				}
				name, value, _ := first.boot.APIKey.Stamp(body)
				h := http.Header{}
				h.Set(name, value)
				r := (&stack{t: t, srv: &httptest.Server{URL: base}}).post("/public/v1/submit/create_users", body, h)
				var res api.ActivityResponse
				_ = json.Unmarshal(r.raw, &res)
				if r.status != http.StatusOK || res.Activity.Status != api.StatusCompleted {
					t.Errorf("racer %d: %d %s", i, r.status, r.raw)
				}
				ids[i] = res.Activity.ID
			}(i)
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("round %d: activities %v, want one", round, ids)
			}
		}
	}
	users, err := first.root.ListUsers(context.Background(), first.boot.OrganizationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(users.Users) != 1+5 {
		t.Fatalf("%d users, want 6: an activity executed more than once", len(users.Users))
	}
}
