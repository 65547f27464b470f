package yield

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/webhook"
)

// testKeyring is a master key of one version, for sealing in tests.
func testKeyring(t testing.TB) *seal.Keyring {
	t.Helper()
	key := make([]byte, 32)
	rand.Read(key)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

const testSecret = "whsec-test-0123456789-abcdefghij" // 32 characters

// endpointCount is how many endpoints a project holds, read from the database.
func (e *env) endpointCount(project string) int {
	e.t.Helper()
	eps, err := e.store.YieldWebhookEndpoints(context.Background(), project)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(eps)
}

// A project registers, lists and deletes its endpoints and sees no other project's; bad input is a 400 that says
// what was wrong and stores nothing; the secret is never echoed nor stored in plain form.
func TestWebhookEndpointsAPI(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		t.Parallel()
		e := newEnv(t, envOptions{backend: &b})
		const url = "http://127.0.0.1:9/hook"
		var first WebhookEndpoint
		r := e.mustCall(e.key10, "POST", "/v1/webhooks", map[string]any{"url": url, "secret": testSecret,
			"events": []string{EventTransactionStatusChanged, EventTransactionStatusChanged}}, 201, &first)
		if first.ID == "" || first.URL != url || !slices.Equal(first.Events, []string{EventTransactionStatusChanged}) ||
			first.CreatedAt == "" || bytes.Contains(r.body, []byte(testSecret)) || bytes.Contains(r.body, []byte("secret")) {
			t.Fatalf("created %s", r.body)
		}
		e.clock.advance(time.Millisecond)
		var second WebhookEndpoint
		e.mustCall(e.key10, "POST", "/v1/webhooks", map[string]any{"url": url + "2", "secret": testSecret}, 201, &second)
		if !slices.Equal(second.Events, EventTypes) {
			t.Fatalf("an endpoint that names no event receives %v, want all", second.Events)
		}

		var list []WebhookEndpoint
		r = e.mustCall(e.key10, "GET", "/v1/webhooks", nil, 200, &list)
		if len(list) != 2 || list[0].ID != first.ID || list[1].ID != second.ID || bytes.Contains(r.body, []byte(testSecret)) {
			t.Fatalf("list %s", r.body)
		}
		if r := e.mustCall(e.key20, "GET", "/v1/webhooks", nil, 200, &list); len(list) != 0 || strings.TrimSpace(string(r.body)) != "[]" {
			t.Fatalf("another project lists %s", r.body)
		}
		e.mustCall(e.key20, "DELETE", "/v1/webhooks/"+first.ID, nil, 404, nil)
		e.mustCall(e.key10, "DELETE", "/v1/webhooks/"+first.ID, nil, 200, nil)
		e.mustCall(e.key10, "DELETE", "/v1/webhooks/"+first.ID, nil, 404, nil)
		if e.mustCall(e.key10, "GET", "/v1/webhooks", nil, 200, &list); len(list) != 1 || list[0].ID != second.ID {
			t.Fatalf("after delete: %+v", list)
		}
		e.mustCall("", "GET", "/v1/webhooks", nil, 401, nil)

		for _, tc := range []struct {
			name string
			body any
			want string
		}{
			{"malformed JSON", rawBody(`{"url":`), "request body"},
			{"url of the wrong type", map[string]any{"url": 1, "secret": testSecret}, "url"},
			{"events of the wrong type", map[string]any{"url": url, "secret": testSecret, "events": "transaction.status_changed"}, "events"},
			{"unknown field", map[string]any{"url": url, "secret": testSecret, "colour": "red"}, "colour"},
			{"missing url", map[string]any{"secret": testSecret}, "url"},
			{"empty url", map[string]any{"url": " ", "secret": testSecret}, "url: is required"},
			{"not http", map[string]any{"url": "ftp://example.com/hook", "secret": testSecret}, "url: "},
			{"user info", map[string]any{"url": "https://user:pw@example.com/hook", "secret": testSecret}, "url: "},
			{"no host", map[string]any{"url": "https:///hook", "secret": testSecret}, "url: "},
			{"missing secret", map[string]any{"url": url}, "secret"},
			{"short secret", map[string]any{"url": url, "secret": "too-short"}, "secret: the secret must be 24 to 255 characters; it is 9"},
			{"long secret", map[string]any{"url": url, "secret": strings.Repeat("s", 256)}, "secret: "},
			{"control character", map[string]any{"url": url, "secret": testSecret + "\n"}, "secret: the secret must not contain control characters"},
			{"unknown event", map[string]any{"url": url, "secret": testSecret, "events": []string{"position.opened"}},
				`events[0]: "position.opened" is not an event type`},
		} {
			r := e.call(e.key10, "POST", "/v1/webhooks", tc.body)
			var body errorBody
			r.decode(t, &body)
			if r.status != 400 || body.StatusCode != 400 || body.Error != "Bad Request" || !strings.Contains(body.Message, tc.want) {
				t.Errorf("%s: status %d %s, want a 400 with %q", tc.name, r.status, r.body, tc.want)
			}
			if strings.Contains(string(r.body), testSecret) {
				t.Errorf("%s: the answer echoes the secret: %s", tc.name, r.body)
			}
		}
		if n := e.endpointCount("project-ten"); n != 1 {
			t.Fatalf("project-ten holds %d endpoints after bad requests, want 1", n)
		}

		// Without AllowPrivate (an exposed stack), local destinations are refused when registered.
		_, err := CreateWebhookEndpoint(context.Background(), e.store, e.svc.cfg.Keyring, webhook.Guard{}, "project-ten",
			WebhookEndpointInput{URL: "https://127.0.0.1/hook", Secret: testSecret}, e.clock.now())
		if ae, ok := err.(*apiError); !ok || ae.StatusCode != 400 || !strings.HasPrefix(ae.Message, "url: ") {
			t.Fatalf("a loopback URL on a strict guard: %v", err)
		}
		if n := e.endpointCount("project-ten"); n != 1 {
			t.Fatalf("project-ten holds %d endpoints, want 1", n)
		}
		if bytes.Contains(testdb.Dump(t, b), []byte(testSecret)) {
			t.Fatal("the database holds an endpoint's secret in plain form")
		}
	})
}

// delivery is one request the receiver accepted.
type delivery struct {
	header http.Header
	event  struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		CreatedAt string          `json:"createdAt"`
		Sequence  int64           `json:"sequence"`
		Subject   string          `json:"subject"`
		Data      json.RawMessage `json:"data"`
	}
}

// receiver is an endpoint that verifies every delivery's signature with the secret, refuses the first attempt it
// gets (so that one delivery is retried), and passes on the deliveries it accepted.
type receiver struct {
	t        *testing.T
	now      func() time.Time
	mu       sync.Mutex
	attempts int
	failed   string // the event id of the attempt it refused
	got      chan delivery
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if _, err := webhook.VerifyHMAC(r.Header.Get(webhook.HeaderHMACSignature), body, [][]byte{[]byte(testSecret)}, 5*time.Minute, rc.now()); err != nil {
		rc.t.Errorf("delivery does not verify: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rc.mu.Lock()
	rc.attempts++
	first := rc.attempts == 1
	if first {
		rc.failed = r.Header.Get(webhook.HeaderHMACEventID)
	}
	rc.mu.Unlock()
	if first {
		http.Error(w, "not yet", http.StatusServiceUnavailable)
		return
	}
	var d delivery
	d.header = r.Header.Clone()
	if err := json.Unmarshal(body, &d.event); err != nil {
		rc.t.Errorf("delivery body %s: %v", body, err)
	}
	rc.got <- d
}

// An enter flow sends each transaction's and the action's status changes, signed with the endpoint's secret, in
// sequence order per subject, the refused attempt retried; the secret is in the database only sealed.
func TestWebhookDeliveriesOfEnterFlow(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		t.Parallel()
		e := newEnv(t, envOptions{backend: &b})
		rc := &receiver{t: t, now: e.clock.now, got: make(chan delivery, 64)}
		hook := httptest.NewServer(rc)
		t.Cleanup(hook.Close)
		var ep WebhookEndpoint
		e.mustCall(e.key10, "POST", "/v1/webhooks", map[string]any{"url": hook.URL + "/hook", "secret": testSecret}, 201, &ep)

		e.svc.webhookJitter = func(time.Duration) time.Duration { return 0 } // a failed attempt is due again at once
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- e.svc.RunWebhooks(ctx) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})

		id := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
		w := e.newWallet("1", map[string]string{"USDC": "100"})
		a := w.act(e.key10, "enter", id, map[string]any{"amount": "10"})
		if len(a.Transactions) != 2 {
			t.Fatalf("enter action with %d transactions, want approval and deposit", len(a.Transactions))
		}
		w.execute(e.key10, a)

		want := map[string][]string{
			a.Transactions[0].ID: {txBroadcasted, txConfirmed},
			a.Transactions[1].ID: {txBroadcasted, txConfirmed},
			a.ID:                 {actionProcessing, actionWaitingForNext, actionProcessing, actionSuccess},
		}
		got := map[string][]string{}
		timeout := time.After(time.Minute)
		for n := 0; n < 8; n++ {
			var d delivery
			select {
			case d = <-rc.got:
			case <-timeout:
				t.Fatalf("received %d of 8 deliveries: %v", n, got)
			}
			ev := d.event
			wantType := EventTransactionStatusChanged
			if ev.Subject == a.ID {
				wantType = EventPositionStatusChanged
			}
			var data struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal(ev.Data, &data); err != nil {
				t.Fatal(err)
			}
			if _, err := time.Parse(time.RFC3339, ev.CreatedAt); err != nil {
				t.Errorf("createdAt %q: %v", ev.CreatedAt, err)
			}
			if ev.Type != wantType || data.ID != ev.Subject || ev.ID != fmt.Sprintf("%s:%d", ev.Subject, ev.Sequence) ||
				d.header.Get(webhook.HeaderHMACEventID) != ev.ID || d.header.Get(webhook.HeaderHMACEventType) != ev.Type {
				t.Fatalf("delivery %+v (data %s, headers %v)", ev, ev.Data, d.header)
			}
			got[ev.Subject] = append(got[ev.Subject], data.Status)
			if int(ev.Sequence) != len(got[ev.Subject]) {
				t.Fatalf("subject %s: event %d arrived as number %d", ev.Subject, ev.Sequence, len(got[ev.Subject]))
			}
		}
		for subject, statuses := range want {
			if !slices.Equal(got[subject], statuses) {
				t.Errorf("subject %s: statuses %v, want %v", subject, got[subject], statuses)
			}
		}
		rc.mu.Lock()
		attempts, failed := rc.attempts, rc.failed
		rc.mu.Unlock()
		if attempts != 9 || failed == "" {
			t.Fatalf("%d attempts (refused %q), want 8 deliveries and the one refused attempt", attempts, failed)
		}
		if bytes.Contains(testdb.Dump(t, b), []byte(testSecret)) {
			t.Fatal("the database holds an endpoint's secret in plain form")
		}
	})
}
