package coordinator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
	"github.com/sigil/sigil/internal/webhook"
	"github.com/sigil/sigil/stamp"
)

// receiver is a webhook endpoint: it verifies each delivery against the coordinator's webhook JWKS, keeps what
// arrived, and fails the first failFirst attempts of every event with a 503.
type receiver struct {
	t         *testing.T
	srv       *httptest.Server
	keys      []webhook.VerificationKey
	failFirst int

	mu       sync.Mutex
	attempts map[string]int      // by event id
	bodies   map[string][][]byte // every attempt's body, by event id
	events   []delivered
	arrived  chan struct{}
}

type delivered struct {
	eventID, orgID, eventType string
	activity                  api.Activity // of ACTIVITY_UPDATES
	body                      []byte
}

func newReceiver(t *testing.T, s *stack, failFirst int) *receiver {
	resp, err := http.Get(s.srv.URL + api.WebhookJWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	keys, err := webhook.ParseJWKS(raw)
	if err != nil || len(keys) != 1 {
		t.Fatalf("webhook JWKS %s: %v", raw, err)
	}
	r := &receiver{t: t, keys: keys, failFirst: failFirst, attempts: map[string]int{}, bodies: map[string][][]byte{}, arrived: make(chan struct{}, 100)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil { // the sender went away mid-body (a worker stopped at the end of a test): it will try again
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v, err := webhook.Verify(req.Header, body, r.keys, 5*time.Minute, time.Now())
	if err != nil {
		r.t.Errorf("delivery does not verify: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[v.EventID]++
	r.bodies[v.EventID] = append(r.bodies[v.EventID], body)
	if r.attempts[v.EventID] <= r.failFirst {
		http.Error(w, "not yet", http.StatusServiceUnavailable)
		return
	}
	var a api.Activity
	if v.EventType == api.WebhookActivityUpdates {
		if err := json.Unmarshal(body, &a); err != nil {
			r.t.Errorf("delivery body %s: %v", body, err)
		}
	}
	r.events = append(r.events, delivered{eventID: v.EventID, orgID: v.OrganizationID, eventType: v.EventType, activity: a, body: body})
	r.arrived <- struct{}{}
}

// await waits for the update of the activity to the status; it fails the test after a while.
func (r *receiver) await(activityID, status string) delivered {
	r.t.Helper()
	deadline := time.After(30 * time.Second) // generous: a loaded machine
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if e.activity.ID == activityID && e.activity.Status == status {
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-deadline:
			r.t.Fatalf("no %s update of activity %s arrived", status, activityID)
		}
	}
}

// received says whether any update of the activity arrived.
func (r *receiver) received(activityID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.activity.ID == activityID {
			return true
		}
	}
	return false
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// webhookStack is a stack whose webhooks may go to local receivers, retried after milliseconds, with its worker
// running.
func webhookStack(t *testing.T, b testdb.Backend) *stack {
	s := newStackWith(t, b, nil, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond,
			Backoff: webhook.Backoff{Base: time.Millisecond, Cap: 5 * time.Millisecond, MaxAttempts: 5}}
	})
	runWebhooks(t, s.coord)
	return s
}

// subscribe creates an endpoint of the stack's root organization at url for the event types, every subscription
// with the filters ("" for none), and returns its id.
func (s *stack) subscribe(url, filters string, eventTypes ...string) string {
	s.t.Helper()
	var subs []api.WebhookSubscriptionParams
	for _, typ := range eventTypes {
		subs = append(subs, api.WebhookSubscriptionParams{EventType: typ, FiltersJSON: filters})
	}
	res, _, err := s.root.CreateWebhookEndpoint(context.Background(), s.boot.OrganizationID,
		api.CreateWebhookEndpointIntent{URL: url, Name: "test " + url, Subscriptions: subs})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.EndpointID
}

func runWebhooks(t testing.TB, c *coordinator.Coordinator) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.RunWebhooks(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// Endpoints are created, listed, updated and deleted as activities; bad ones are refused with what was wrong, and
// the safe default refuses destinations on this machine.
func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		strict := newStack(t, b)
		org := strict.boot.OrganizationID
		subs := []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates}}
		for _, tc := range []struct {
			name string
			p    api.CreateWebhookEndpointIntent
			msg  string
		}{
			{"loopback", api.CreateWebhookEndpointIntent{URL: "https://127.0.0.1/hook", Name: "n", Subscriptions: subs}, "not a public address"},
			{"http", api.CreateWebhookEndpointIntent{URL: "http://example.com/hook", Name: "n", Subscriptions: subs}, "https"},
			{"metadata", api.CreateWebhookEndpointIntent{URL: "https://169.254.169.254/latest", Name: "n", Subscriptions: subs}, "not a public address"},
			{"no name", api.CreateWebhookEndpointIntent{URL: "https://example.com/hook", Subscriptions: subs}, "parameters.name must not be empty"},
			{"unknown event", api.CreateWebhookEndpointIntent{URL: "https://example.com/hook", Name: "n",
				Subscriptions: []api.WebhookSubscriptionParams{{EventType: "EVERYTHING"}}}, `parameters.subscriptions[0].eventType: "EVERYTHING" is not an event type`},
			{"bad filters", api.CreateWebhookEndpointIntent{URL: "https://example.com/hook", Name: "n",
				Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates, FiltersJSON: `{"colour":"red"}`}}}, "filtersJson must be a JSON object"},
			{"5,000 subscriptions", api.CreateWebhookEndpointIntent{URL: "https://example.com/hook", Name: "n",
				Subscriptions: slices.Repeat(subs, 5000)}, "parameters.subscriptions holds 5000 subscriptions; an endpoint holds at most 20"},
			{"21 subscriptions", api.CreateWebhookEndpointIntent{URL: "https://example.com/hook", Name: "n",
				Subscriptions: slices.Repeat(subs, 21)}, "an endpoint holds at most 20"},
		} {
			_, _, err := strict.root.CreateWebhookEndpoint(ctx, org, tc.p)
			expectErr(t, tc.name, err, apierr.InvalidArgument, tc.msg)
		}
		if list, err := strict.root.ListWebhookEndpoints(ctx, org); err != nil || len(list.WebhookEndpoints) != 0 {
			t.Fatalf("after refusals: %+v, %v", list, err)
		}

		s := webhookStack(t, testdb.Another(t, b))
		org = s.boot.OrganizationID
		rc := newReceiver(t, s, 0)
		created, act, err := s.root.CreateWebhookEndpoint(ctx, org, api.CreateWebhookEndpointIntent{URL: rc.srv.URL, Name: "ops", Subscriptions: subs})
		if err != nil {
			t.Fatal(err)
		}
		if act.Type != "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT" || created.WebhookEndpoint.URL != rc.srv.URL || !created.WebhookEndpoint.IsActive ||
			len(created.WebhookEndpoint.Subscriptions) != 1 || created.WebhookEndpoint.OrganizationID != org {
			t.Fatalf("created %+v", created)
		}
		if most, _, err := s.root.CreateWebhookEndpoint(ctx, org, api.CreateWebhookEndpointIntent{URL: rc.srv.URL, Name: "most",
			Subscriptions: slices.Repeat(subs, 20)}); err != nil || len(most.WebhookEndpoint.Subscriptions) != 20 {
			t.Fatalf("an endpoint with 20 subscriptions: %+v %v", most, err)
		} else if _, _, err := s.root.DeleteWebhookEndpoint(ctx, org, most.EndpointID); err != nil {
			t.Fatal(err)
		}
		name := "ops 2"
		updated, _, err := s.root.UpdateWebhookEndpoint(ctx, org, api.UpdateWebhookEndpointIntent{EndpointID: created.EndpointID, Name: &name})
		if err != nil || updated.WebhookEndpoint.Name != name || updated.WebhookEndpoint.URL != rc.srv.URL {
			t.Fatalf("updated %+v, %v", updated, err)
		}
		list, err := s.root.ListWebhookEndpoints(ctx, org)
		if err != nil || len(list.WebhookEndpoints) != 1 || list.WebhookEndpoints[0].Name != name {
			t.Fatalf("list %+v, %v", list, err)
		}
		if _, _, err := s.root.DeleteWebhookEndpoint(ctx, org, created.EndpointID); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.root.DeleteWebhookEndpoint(ctx, org, created.EndpointID)
		expectErr(t, "deleted twice", err, apierr.NotFound, "no webhook endpoint")
		_, _, err = s.root.UpdateWebhookEndpoint(ctx, org, api.UpdateWebhookEndpointIntent{EndpointID: "nope"})
		expectErr(t, "bad id", err, apierr.InvalidArgument, "parameters.endpointId")
	})
}

// Every activity update reaches the endpoint, signed so that the JWKS verifies it, even through failed attempts
// (retried with the same event id), filtered as the subscription says, and none after the endpoint is deleted.
func TestWebhookActivityUpdates(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := webhookStack(t, b)
		org := s.boot.OrganizationID
		all := newReceiver(t, s, 2)
		wallets := newReceiver(t, s, 0)
		endpointID := s.subscribe(all.srv.URL, "", api.WebhookActivityUpdates)
		s.subscribe(wallets.srv.URL, `{"activityTypes":["ACTIVITY_TYPE_CREATE_WALLET"]}`, api.WebhookActivityUpdates)

		_, act, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		got := all.await(act.ID, api.StatusCompleted)
		if got.orgID != org || got.eventID != act.ID+":"+api.StatusCompleted || got.activity.Type != "ACTIVITY_TYPE_CREATE_WALLET" {
			t.Errorf("delivered %+v", got)
		}
		wallets.await(act.ID, api.StatusCompleted)

		// A signing activity goes through the transaction that writes its delivery too.
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "signer", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		_, sig, err := s.root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0], Payload: "00",
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_KECCAK256"})
		if err != nil {
			t.Fatal(err)
		}
		all.await(sig.ID, api.StatusCompleted)

		all.mu.Lock()
		attempts := all.attempts[act.ID+":"+api.StatusCompleted]
		// An update to a final status is offered to the worker with its body and, once refused, claimed again from the
		// outbox, which keeps no copy of it: every attempt must send the same bytes, or a receiver could not tell the
		// retries of one event apart from different events.
		for _, id := range []string{act.ID, sig.ID} {
			bodies := all.bodies[id+":"+api.StatusCompleted]
			if len(bodies) != 3 {
				t.Errorf("activity %s: %d attempts, want 3", id, len(bodies))
			}
			for i := 1; i < len(bodies); i++ {
				if !bytes.Equal(bodies[i], bodies[0]) {
					t.Errorf("activity %s: attempt %d sent\n%s\nthe first sent\n%s", id, i+1, bodies[i], bodies[0])
				}
			}
		}
		all.mu.Unlock()
		if attempts != 3 {
			t.Errorf("%d attempts, want 2 refused and 1 delivered", attempts)
		}
		ds, err := s.root.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: org, EndpointID: endpointID,
			State: api.WebhookDeliveryDelivered})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range ds.Deliveries {
			if d.Subject == act.ID {
				found = true
				if d.Attempts != 3 || d.LastStatusCode != 200 || d.EventID != act.ID+":"+api.StatusCompleted || d.CompletedMs == "" {
					t.Errorf("delivery %+v", d)
				}
			}
		}
		if !found {
			t.Errorf("the wallet's delivery is not listed as delivered: %+v", ds.Deliveries)
		}
		_, err = s.root.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: org, EndpointID: endpointID, State: "LOST"})
		expectErr(t, "bad state", err, apierr.InvalidArgument, `state: "LOST"`)
		_, err = s.root.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: org, EndpointID: "6f3c7a52-2d8e-4b8a-9d55-111111111111"})
		expectErr(t, "unknown endpoint", err, apierr.NotFound, "no webhook endpoint")
		if n := wallets.count(); n != 2 {
			t.Errorf("the filtered endpoint got %d events, want the 2 wallet creations", n)
		}

		if _, _, err := s.root.DeleteWebhookEndpoint(ctx, org, endpointID); err != nil {
			t.Fatal(err)
		}
		// Deliveries claimed before the deletion may still land (a busy machine's worker can be mid-post); what must
		// not is an event of an activity after it.
		_, act, err = s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "late", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		wallets.await(act.ID, api.StatusCompleted) // delivered to the other endpoint, so the worker has run since
		if all.received(act.ID) {
			t.Errorf("the deleted endpoint still received events")
		}
	})
}

// Two coordinator processes over one PostgreSQL database, each running its worker: every event is delivered once.
func TestWebhooksDeliveredOnceByTwoProcesses(t *testing.T) {
	t.Parallel()
	b := testdb.Postgres(t)
	ctx := context.Background()
	first := webhookStack(t, b)
	second := newStackSharing(t, first, b, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 10 * time.Millisecond}
	})
	runWebhooks(t, second)
	org := first.boot.OrganizationID
	rc := newReceiver(t, first, 0)
	first.subscribe(rc.srv.URL, "", api.WebhookActivityUpdates)
	var ids []string
	for range 20 {
		_, act, err := first.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, act.ID)
	}
	for _, id := range ids {
		rc.await(id, api.StatusCompleted)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for id, n := range rc.attempts {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
}

// newStackSharing is another coordinator process over first's database, configured by configure.
func newStackSharing(t *testing.T, first *stack, b testdb.Backend, configure func(*coordinator.Config)) *coordinator.Coordinator {
	t.Helper()
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: first.ring}
	configure(&cfg)
	return coordinator.New(st, cfg)
}

// An activity that needs consensus is announced twice, in order: CONSENSUS_NEEDED, then COMPLETED once approved. A
// sub-organization's activities reach its parent's endpoint, with the sub-organization's id in the header.
func TestWebhookConsensusAndSubOrganizations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := webhookStack(t, b)
		org := s.boot.OrganizationID
		rc := newReceiver(t, s, 0)
		s.subscribe(rc.srv.URL, "", api.WebhookActivityUpdates)
		tag, _, admins := s.tagged(2, "admin")
		s.policy("two admins create users", api.EffectAllow, "activity.resource == 'USER' && activity.action == 'CREATE'",
			"approvers.filter(u, u.tags.contains('"+tag+"')).count() >= 2")
		_, a, _ := admins[0].CreateUsers(ctx, org, createUserParams("new-1"))
		if a == nil || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("one admin: %+v", a)
		}
		rc.await(a.ID, api.StatusConsensusNeeded)
		if _, err := admins[1].ApproveActivity(ctx, org, a.Fingerprint); err != nil {
			t.Fatal(err)
		}
		rc.await(a.ID, api.StatusCompleted)
		rc.mu.Lock()
		var order []string
		for _, e := range rc.events {
			if e.activity.ID == a.ID {
				order = append(order, e.activity.Status)
				// Rendered when written (CONSENSUS_NEEDED) and again from the stored record (COMPLETED), the payload
				// shows the fingerprint in the reference's form, as the activity does.
				if e.activity.Fingerprint != a.Fingerprint || !strings.HasPrefix(e.activity.Fingerprint, "sha256:") {
					t.Errorf("%s update: fingerprint %q, the activity's is %q", e.activity.Status, e.activity.Fingerprint, a.Fingerprint)
				}
			}
		}
		rc.mu.Unlock()
		if len(order) != 2 || order[0] != api.StatusConsensusNeeded || order[1] != api.StatusCompleted {
			t.Errorf("updates arrived as %v", order)
		}

		subKey, subParams := newKey(t, stamp.CurveEd25519)
		sub, _, err := s.root.CreateSubOrganization(ctx, org, subOrgParams("Alice", subParams))
		if err != nil {
			t.Fatal(err)
		}
		_, renamed, err := s.client(subKey).UpdateOrganizationName(ctx, sub.SubOrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "Alice's"})
		if err != nil {
			t.Fatal(err)
		}
		if got := rc.await(renamed.ID, api.StatusCompleted); got.orgID != sub.SubOrganizationID {
			t.Errorf("sub-organization event sent as organization %s", got.orgID)
		}
	})
}

// Events written while no worker runs and the receiver is down are delivered by another process started later: the
// outbox is in the database, not in a process.
func TestWebhooksSurviveARestart(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStackWith(t, b, nil, func(c *coordinator.Config) { c.Webhooks.AllowPrivateNetworks = true })
		org := s.boot.OrganizationID
		rc := newReceiver(t, s, 0)
		url := rc.srv.URL
		rc.srv.Close() // down
		s.subscribe(url, "", api.WebhookActivityUpdates)
		_, act, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		// The receiver comes back at the same address; a new process delivers what the first one wrote.
		rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
		ln, err := net.Listen("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Skipf("the receiver's port was taken meanwhile: %v", err)
		}
		rc.srv.Listener.Close()
		rc.srv.Listener = ln
		rc.srv.Start()
		t.Cleanup(rc.srv.Close)
		later := newStackSharing(t, s, b, func(c *coordinator.Config) {
			c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 10 * time.Millisecond}
		})
		runWebhooks(t, later)
		rc.await(act.ID, api.StatusCompleted)
	})
}

// awaitBody waits for a delivery whose body satisfies match; it fails the test after a while.
func (r *receiver) awaitBody(what string, match func(eventType string, body map[string]any) bool) map[string]any {
	r.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			var body map[string]any
			if json.Unmarshal(e.body, &body) == nil && match(e.eventType, body) {
				r.mu.Unlock()
				return body
			}
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-deadline:
			r.mu.Lock()
			var got []string
			for _, e := range r.events {
				got = append(got, e.eventType+" "+e.eventID)
			}
			r.mu.Unlock()
			r.t.Fatalf("no delivery of %s arrived in 20 s; %d others did: %v", what, len(got), got)
		}
	}
}

// deliveriesIn waits until the endpoint lists n deliveries in the state, and returns them.
func (s *stack) deliveriesIn(endpointID, state string, n int) []api.WebhookDelivery {
	s.t.Helper()
	var ds *api.ListWebhookDeliveriesResponse
	testwait.Until(s.t, fmt.Sprintf("%d deliveries %s to endpoint %s", n, state, endpointID), func() bool {
		var err error
		ds, err = s.root.ListWebhookDeliveries(context.Background(), api.ListWebhookDeliveriesRequest{OrganizationID: s.boot.OrganizationID,
			EndpointID: endpointID, State: state})
		if err != nil {
			s.t.Fatal(err)
		}
		return len(ds.Deliveries) == n
	})
	return ds.Deliveries
}

// Dead letters are queued again by REPLAY_WEBHOOK_DELIVERIES, the named ones or all, and delivered under the same
// event id; a delivery that is not dead, or an inactive endpoint, is refused and nothing is queued.
func TestWebhookDeadLetterReplay(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := webhookStack(t, b) // 5 attempts
		org := s.boot.OrganizationID
		rc := newReceiver(t, s, 5) // refuses each event's first 5 attempts: every event dies once
		endpointID := s.subscribe(rc.srv.URL, `{"activityTypes":["ACTIVITY_TYPE_CREATE_WALLET"]}`, api.WebhookActivityUpdates)
		var acts []string
		for _, name := range []string{"a", "b", "c"} {
			_, act, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
			if err != nil {
				t.Fatal(err)
			}
			acts = append(acts, act.ID)
		}
		dead := s.deliveriesIn(endpointID, api.WebhookDeliveryDead, 3)
		byActivity := map[string]api.WebhookDelivery{}
		for _, d := range dead {
			if d.Attempts != 5 || !strings.HasPrefix(d.LastError, "HTTP 503") || d.CompletedMs < d.CreatedMs {
				t.Errorf("dead letter %+v", d)
			}
			byActivity[d.Subject] = d
		}
		first := byActivity[acts[0]]

		replay := func(ids ...string) (*api.ReplayWebhookDeliveriesResult, error) {
			res, _, err := s.root.ReplayWebhookDeliveries(ctx, org, api.ReplayWebhookDeliveriesIntent{EndpointID: endpointID, DeliveryIDs: ids})
			return res, err
		}
		// A name that is not a dead delivery of the endpoint refuses the whole replay.
		_, err := replay(first.DeliveryID, "6f3c7a52-2d8e-4b8a-9d55-111111111111")
		expectErr(t, "unknown delivery", err, apierr.NotFound, "6f3c7a52-2d8e-4b8a-9d55-111111111111 is not a dead delivery")
		_, err = replay(first.DeliveryID, first.DeliveryID)
		expectErr(t, "named twice", err, apierr.InvalidArgument, "is named twice")
		_, _, err = s.root.ReplayWebhookDeliveries(ctx, org, api.ReplayWebhookDeliveriesIntent{EndpointID: "6f3c7a52-2d8e-4b8a-9d55-111111111111"})
		expectErr(t, "unknown endpoint", err, apierr.NotFound, "no webhook endpoint")
		s.deliveriesIn(endpointID, api.WebhookDeliveryDead, 3)

		// One by name: delivered (the receiver now accepts), under the event id it died with.
		res, err := replay(first.DeliveryID)
		if err != nil || len(res.DeliveryIDs) != 1 || res.DeliveryIDs[0] != first.DeliveryID {
			t.Fatalf("replay: %+v %v", res, err)
		}
		got := rc.await(acts[0], api.StatusCompleted)
		if got.eventID != first.EventID {
			t.Errorf("replayed as event %s, died as %s", got.eventID, first.EventID)
		}
		delivered := s.deliveriesIn(endpointID, api.WebhookDeliveryDelivered, 1)[0]
		if delivered.DeliveryID != first.DeliveryID || delivered.Attempts != 1 {
			t.Errorf("after the replay: %+v", delivered)
		}
		_, err = replay(first.DeliveryID)
		expectErr(t, "a delivered one", err, apierr.NotFound, "is not a dead delivery")

		// An inactive endpoint replays nothing.
		off, on := false, true
		if _, _, err := s.root.UpdateWebhookEndpoint(ctx, org, api.UpdateWebhookEndpointIntent{EndpointID: endpointID, IsActive: &off}); err != nil {
			t.Fatal(err)
		}
		_, err = replay()
		expectErr(t, "inactive endpoint", err, apierr.FailedPrecondition, "is not active")
		if _, _, err := s.root.UpdateWebhookEndpoint(ctx, org, api.UpdateWebhookEndpointIntent{EndpointID: endpointID, IsActive: &on}); err != nil {
			t.Fatal(err)
		}

		// None named: every dead one.
		if res, err = replay(); err != nil || len(res.DeliveryIDs) != 2 {
			t.Fatalf("replay all: %+v %v", res, err)
		}
		rc.await(acts[1], api.StatusCompleted)
		rc.await(acts[2], api.StatusCompleted)
		s.deliveriesIn(endpointID, api.WebhookDeliveryDelivered, 3)
		if res, err = replay(); err != nil || len(res.DeliveryIDs) != 0 {
			t.Errorf("replay with no dead letters: %+v %v", res, err)
		}
	})
}

// A delivery written by reference renders as the API shows the activity at the status its event reports; one whose
// activity is gone, has another status or is not an activity update can never be posted, and says why.
func TestWebhookRenderByReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	_, act, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	d := store.WebhookDelivery{OrgID: org, EventType: api.WebhookActivityUpdates, Subject: act.ID, EventID: act.ID + ":" + api.StatusCompleted}
	body, err := s.coord.RenderActivityEvent(ctx, d)
	var got api.Activity
	if err != nil || json.Unmarshal(body, &got) != nil || got.ID != act.ID || got.Status != api.StatusCompleted ||
		got.Type != "ACTIVITY_TYPE_CREATE_WALLET" || got.Result["createWalletResult"] == nil {
		t.Fatalf("rendered %s, %v", body, err)
	}
	for name, bad := range map[string]store.WebhookDelivery{
		"gone":                   {OrgID: org, EventType: api.WebhookActivityUpdates, Subject: "01a2193c-74b6-7c49-ade4-197b8f139881", EventID: "01a2193c-74b6-7c49-ade4-197b8f139881:" + api.StatusCompleted},
		"another organization's": {OrgID: "4f1b7ad0-0000-4000-8000-000000000005", EventType: api.WebhookActivityUpdates, Subject: act.ID, EventID: act.ID + ":" + api.StatusCompleted},
		"other status":           {OrgID: org, EventType: api.WebhookActivityUpdates, Subject: act.ID, EventID: act.ID + ":" + api.StatusConsensusNeeded},
		"other event":            {OrgID: org, EventType: api.WebhookBalanceConfirmedUpdates, Subject: act.ID, EventID: "x"},
	} {
		if body, err := s.coord.RenderActivityEvent(ctx, bad); !errors.Is(err, store.ErrUndeliverable) {
			t.Errorf("%s: rendered %s, %v; want an undeliverable error", name, body, err)
		}
	}
}

// The attack on deliveries, end to end: a tenant's 20 endpoints hang (until the test ends; attempts may take
// two minutes), and a backlog of its events for them waits in the outbox ahead of another tenant's one event for a
// healthy receiver. The other tenant's event arrives while every attempt to the 20 is still hanging, the hanging ones
// never more than the tenant's cap. (Before the caps, the first claim took 64 of the backlog and nothing else moved
// until their two minutes were up.)
func TestSlowTenantDoesNotDelayAnothersDeliveries(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStackWith(t, b, nil, func(c *coordinator.Config) {
			c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond, Timeout: 2 * time.Minute,
				Backoff: webhook.Backoff{Base: time.Millisecond, Cap: 5 * time.Millisecond, MaxAttempts: 5}}
		})
		var mu sync.Mutex
		inflight, peak, ended := 0, 0, 0
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			mu.Lock()
			inflight++
			peak = max(peak, inflight)
			mu.Unlock()
			select {
			case <-release:
			case <-r.Context().Done():
			}
			mu.Lock()
			inflight, ended = inflight-1, ended+1
			mu.Unlock()
		}))
		t.Cleanup(slow.Close)

		attacker, err := s.coord.CreateRootOrganization(bg, "Attacker", "root")
		if err != nil {
			t.Fatal(err)
		}
		mallory := s.client(attacker.APIKey)
		for i := range 20 {
			if _, _, err := mallory.CreateWebhookEndpoint(bg, attacker.OrganizationID, api.CreateWebhookEndpointIntent{URL: fmt.Sprintf("%s/hook%d", slow.URL, i),
				Name: fmt.Sprint("hang ", i), Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates}}}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 4 { // 80 events more for the 20
			if _, _, err := mallory.CreateUserTag(bg, attacker.OrganizationID, api.CreateUserTagIntent{UserTagName: fmt.Sprint("t", i), UserIDs: []string{}}); err != nil {
				t.Fatal(err)
			}
		}
		rc := newReceiver(t, s, 0)
		s.subscribe(rc.srv.URL, "", api.WebhookActivityUpdates)
		_, victim, err := s.root.CreateUserTag(bg, s.boot.OrganizationID, api.CreateUserTagIntent{UserTagName: "victim", UserIDs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		runWebhooks(t, s.coord) // the backlog is written: the worker claims it, oldest first
		t.Cleanup(func() { close(release) })
		rc.await(victim.ID, api.StatusCompleted)
		// The attacker's attempts may still be connecting when the victim's lands: what matters is that none has
		// ended (none could, before release) and that they fill the tenant's cap and never pass it.
		testwait.Until(t, "the attacker's attempts to fill its cap", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return inflight >= webhook.DefaultPerTenant || ended > 0
		})
		mu.Lock()
		defer mu.Unlock()
		if ended != 0 {
			t.Errorf("%d of the attacker's attempts ended while all should hang", ended)
		}
		if peak > webhook.DefaultPerTenant {
			t.Errorf("the attacker had %d attempts in flight, at most %d at once; want at most its cap of %d", inflight, peak, webhook.DefaultPerTenant)
		}
	})
}
