package coordinator_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// Two coordinators, each with its own connection pool, share one PostgreSQL database as two processes would. The same
// signed body sent to both at once is one activity, executed once.
func TestIdenticalSubmissionsRacingThroughTwoCoordinators(t *testing.T) {
	t.Parallel()
	b := testdb.Postgres(t)
	first := newStack(t, b)
	second := secondCoordinator(t, first, b)
	for range 5 {
		_, k := newKey(t, stamp.CurveP256)
		body := envelope("ACTIVITY_TYPE_CREATE_USERS_V4", first.boot.OrganizationID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{
			UserName: "racer", APIKeys: []api.APIKeyParamsV2{k}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{},
		}}}, time.Now())
		race(t, first, second, "create_users", body)
	}
	users, err := first.root.ListUsers(context.Background(), first.boot.OrganizationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(users.Users) != 1+5 {
		t.Fatalf("%d users, want 6: an activity executed more than once", len(users.Users))
	}
}

// Signing holds the organization shared, so identical signing bodies run side by side in two processes: still one
// activity, and every caller gets its signature.
func TestIdenticalSigningRacingThroughTwoCoordinators(t *testing.T) {
	t.Parallel()
	b := testdb.Postgres(t)
	first := newStack(t, b)
	second := secondCoordinator(t, first, b)
	org := first.boot.OrganizationID
	w, _, err := first.root.CreateWallet(context.Background(), org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		body := envelope("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
			Type: api.TransactionTypeEthereum, UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), uint64(round))}, time.Now())
		results := race(t, first, second, "sign_transaction", body)
		for _, a := range results {
			if string(a.Result["signTransactionResult"]) != string(results[0].Result["signTransactionResult"]) {
				t.Fatalf("round %d: one activity answered %s and %s", round, results[0].Result["signTransactionResult"], a.Result["signTransactionResult"])
			}
		}
	}
}

// secondCoordinator is another process of first's deployment: its own coordinator and connection pool over the same
// database, with the same master keys.
func secondCoordinator(t testing.TB, first *stack, b testdb.Backend) *httptest.Server {
	t.Helper()
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: first.ring}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

// race submits body, stamped by first's root key, six times at once, alternately to first and to second, and
// returns the six answers once it has checked that they are one completed activity.
func race(t *testing.T, first *stack, second *httptest.Server, path string, body []byte) []api.Activity {
	t.Helper()
	results := make([]api.Activity, 6)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			base := first.srv.URL
			if i%2 == 1 {
				base = second.URL
			}
			name, value, _ := first.boot.APIKey.Stamp(body)
			h := http.Header{}
			h.Set(name, value)
			r := (&stack{t: t, srv: &httptest.Server{URL: base}}).post("/public/v1/submit/"+path, body, h)
			var res api.ActivityResponse
			_ = json.Unmarshal(r.raw, &res)
			if r.status != http.StatusOK || res.Activity.Status != api.StatusCompleted {
				t.Errorf("submission %d: %d %s", i, r.status, r.raw)
			}
			results[i] = res.Activity
		})
	}
	wg.Wait()
	for _, a := range results {
		if a.ID != results[0].ID {
			t.Fatalf("activities %s and %s for one body, want one", results[0].ID, a.ID)
		}
	}
	return results
}

// A coordinator authenticates activities against its cached organization documents without asking the database
// whether they are current. A key another process added is still found, and a key another process deleted no longer
// acts, and its request leaves no activity behind.
func TestCachedOrganizationsFollowOtherProcesses(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		first := newStack(t, b)
		second := &stack{t: t, srv: secondCoordinator(t, first, b), clock: first.clock, stamps: first.stamps}
		org := first.boot.OrganizationID
		rename := func(c *client.Client, name string) error {
			_, _, err := c.UpdateOrganizationName(ctx, org, api.UpdateOrganizationNameIntent{OrganizationName: name})
			return err
		}
		if err := rename(first.root, "cached"); err != nil { // the first coordinator now holds the document
			t.Fatal(err)
		}

		key, params := newKey(t, stamp.CurveP256)
		me, err := first.root.Whoami(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		added, _, err := second.client(first.boot.APIKey).CreateAPIKeys(ctx, org, api.CreateAPIKeysIntentV2{UserID: me.UserID, APIKeys: []api.APIKeyParamsV2{params}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rename(first.client(key), "by the new key"); err != nil {
			t.Fatalf("a key added by another process was refused: %v", err)
		}

		before := first.activityCount(org)
		if _, _, err := second.client(first.boot.APIKey).DeleteAPIKeys(ctx, org, api.DeleteAPIKeysIntent{UserID: me.UserID, APIKeyIDs: added.APIKeyIDs}); err != nil {
			t.Fatal(err)
		}
		body := envelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, api.UpdateOrganizationNameIntent{OrganizationName: "by the deleted key"}, time.Now())
		r := first.stamped("/public/v1/submit/update_organization_name", body, key)
		if r.status != http.StatusUnauthorized || !strings.Contains(r.message(), "public key could not be found") {
			t.Fatalf("a key deleted by another process: %d %s", r.status, r.raw)
		}
		if after := first.activityCount(org); after != before+1 { // the deletion only

			t.Fatalf("the refused request stored %d activities", after-before)
		}
		got, err := first.root.GetOrganization(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		if got.OrganizationData.Name != "by the new key" {
			t.Fatalf("organization name %q", got.OrganizationData.Name)
		}
	})
}

// A signing activity is decided ahead of its transaction against the organization it was authenticated with. When
// another process has changed the organization meanwhile, the decision is made again under the lock: a policy deleted
// elsewhere no longer allows, a policy created elsewhere allows.
func TestSigningDecidedAheadFollowsPolicyChangesElsewhere(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		first := newStack(t, b)
		elsewhere := (&stack{t: t, srv: secondCoordinator(t, first, b), stamps: first.stamps}).client(first.boot.APIKey)
		org := first.boot.OrganizationID
		agentID, agent := first.createUser(org, first.root, "agent")
		w, _, err := first.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		sign := func(nonce uint64) error {
			_, _, err := agent.SignTransaction(ctx, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0], Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), nonce)})
			return err
		}
		allow := api.CreatePolicyIntentV3{PolicyName: "approve", Effect: api.EffectAllow, Notes: "",
			Condition: "eth.tx.to == '" + strings.ToLower(token.Hex()) + "'", Consensus: "approvers.any(u, u.id == '" + agentID + "')"}

		if err := sign(1); err == nil { // the first coordinator now holds the organization without the policy
			t.Fatal("signed without a policy")
		}
		policy, _, err := elsewhere.CreatePolicy(ctx, org, allow)
		if err != nil {
			t.Fatal(err)
		}
		if err := sign(2); err != nil {
			t.Fatalf("a policy created by another process did not allow: %v", err)
		}
		if _, _, err := elsewhere.DeletePolicy(ctx, org, api.DeletePolicyIntent{PolicyID: policy.PolicyID}); err != nil {
			t.Fatal(err)
		}
		if err := sign(3); err == nil || !strings.Contains(err.Error(), "403") && !strings.Contains(strings.ToLower(err.Error()), "denied") {
			t.Fatalf("a policy deleted by another process still allowed: %v", err)
		}
	})
}

// OTP limits are counted from the database under the organization's lock, so two processes sharing PostgreSQL hold
// them as one: the live codes of one contact, issued alternately through both, stop at the limit.
func TestOTPLimitsHoldAcrossProcesses(t *testing.T) {
	t.Parallel()
	b := testdb.Postgres(t)
	ring := testKeyring(t)
	s := newOTPStack(t, b, coordinator.Config{Keyring: ring})
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	second := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring,
		Email: s.outbox, SMS: s.outbox, Now: s.clock.Now, EmailFrom: "otp@sigil.test"})
	srv := httptest.NewServer(second.Handler())
	t.Cleanup(srv.Close)
	other := client.New(srv.URL, s.boot.APIKey)
	other.Now = s.clock.Stamp
	org := s.boot.OrganizationID
	limit := otp.DefaultLimits().MaxLiveCodes
	for i := range limit + 1 {
		c := s.root
		if i%2 == 1 {
			c = other
		}
		_, _, err := c.InitOtp(context.Background(), org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "both@example.com", AppName: "Demo"})
		if i < limit && err != nil {
			t.Fatalf("code %d: %v", i+1, err)
		}
		if i == limit {
			expectErr(t, "one code past the limit, through either process", err, apierr.ResourceExhausted, "")
		}
	}
}
