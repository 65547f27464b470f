package store_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/webhook"
)

// The outbox hands out one subject's deliveries in order, one at a time, and none twice while leased; a failed one
// holds its subject back until it is retried, delivered or dead.
func TestWebhookQueueOrderAndLeases(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		q := s.WebhookQueue(store.WebhookSourceCoordinator)
		now := time.Unix(1000, 0)
		delivery := func(id, subject string, seq int64) store.WebhookDelivery {
			return store.WebhookDelivery{ID: id, EventID: "ev-" + id, EndpointID: "e", OrgID: "o", URL: "https://x.example",
				EventType: "ACTIVITY_UPDATES", Subject: subject, Sequence: seq, Body: []byte(`{"n":1}`), CreatedAt: now.UnixNano()}
		}
		err := s.Write(ctx, func(tx *store.Tx) error {
			return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{delivery("a1", "a", 1), delivery("a2", "a", 2), delivery("b1", "b", 1)})
		})
		if err != nil {
			t.Fatal(err)
		}
		ids := func(got []string) string {
			out := ""
			for _, id := range got {
				out += id + " "
			}
			return out
		}
		claim := func(at time.Time) string {
			ds, err := q.Claim(ctx, at, 10, time.Minute, webhook.Busy{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range ds {
				got = append(got, d.ID)
				if d.EventID != "ev-"+d.ID || string(d.Body) != `{"n":1}` || d.OrgID != "o" {
					t.Fatalf("claimed %+v", d)
				}
			}
			return ids(got)
		}
		if got := claim(now); got != "a1 b1 " {
			t.Fatalf("first claim %q, want the heads of both subjects", got)
		}
		if got := claim(now); got != "" {
			t.Fatalf("claimed %q again while leased", got)
		}
		if err := q.Failed(ctx, webhook.Ref{OrgID: "o", ID: "a1"}, webhook.Failure{Attempts: 1, Status: 503, Next: now.Add(time.Second), Reason: "503"}); err != nil {
			t.Fatal(err)
		}
		if err := q.Delivered(ctx, webhook.Ref{OrgID: "o", ID: "b1"}, now, 200); err != nil {
			t.Fatal(err)
		}
		if got := claim(now); got != "" {
			t.Fatalf("claimed %q: a2 must wait behind a1's retry", got)
		}
		if got := claim(now.Add(time.Second)); got != "a1 " {
			t.Fatalf("claim at the retry %q", got)
		}
		if err := q.Failed(ctx, webhook.Ref{OrgID: "o", ID: "a1"}, webhook.Failure{Attempts: 2, Status: 410, Next: now, Reason: "HTTP 410", Dead: true}); err != nil {
			t.Fatal(err)
		}
		if got := claim(now.Add(time.Second)); got != "a2 " {
			t.Fatalf("after a1 died: %q", got)
		}
		ds, err := s.ListWebhookDeliveries(ctx, "e", "", 10)
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		for _, d := range ds {
			states[d.ID] = d.State
			if d.ID == "a1" && (d.LastStatus != 410 || d.LastError != "HTTP 410" || d.Attempts != 2) {
				t.Errorf("the dead delivery's last attempt: status %d, error %q, %d attempts", d.LastStatus, d.LastError, d.Attempts)
			}
		}
		if states["a1"] != store.DeliveryDead || states["b1"] != store.DeliveryDelivered || states["a2"] != store.DeliveryPending {
			t.Fatalf("states %v", states)
		}
	})
}

// Two workers claiming at once never get the same delivery.
func TestWebhookQueueConcurrentClaims(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		var ds []store.WebhookDelivery
		for i := range 50 {
			id := string(rune('A'+i/26)) + string(rune('a'+i%26))
			ds = append(ds, store.WebhookDelivery{ID: id, EventID: id, EndpointID: "e", OrgID: "o", URL: "https://x.example",
				EventType: "T", Subject: id, Body: []byte(`{}`), CreatedAt: 1})
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueWebhookDeliveries(ctx, ds) }); err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					got, err := s.WebhookQueue(store.WebhookSourceCoordinator).Claim(ctx, time.Unix(10, 0), 3, time.Minute, webhook.Busy{})
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, d := range got {
						seen[d.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 50 {
			t.Errorf("%d deliveries claimed, want 50", len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s claimed %d times", id, n)
			}
		}
	})
}

// The queue reports to the metrics: what waits, and each outcome.
func TestWebhookQueueMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, m := measured(t)
	err := s.Write(ctx, func(tx *store.Tx) error {
		return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{{ID: "m1", EventID: "e1", EndpointID: "e", OrgID: "o",
			URL: "https://x.example", EventType: "ACTIVITY_UPDATES", Subject: "s", Body: []byte(`{}`), CreatedAt: 1}})
	})
	if err != nil {
		t.Fatal(err)
	}
	q := s.WebhookQueue(store.WebhookSourceCoordinator)
	if _, err := q.Claim(ctx, time.Unix(10, 0), 5, time.Minute, webhook.Busy{}); err != nil {
		t.Fatal(err)
	}
	if err := q.Delivered(ctx, webhook.Ref{OrgID: "o", ID: "m1"}, time.Unix(10, 0), 200); err != nil {
		t.Fatal(err)
	}
	scraped := scrape(m)
	for _, want := range []string{`sigil_webhook_deliveries_total{result="delivered"} 1`, `sigil_queue_pending{queue="webhooks_coordinator"} 1`} {
		if !strings.Contains(scraped, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// A dead delivery is queued again with a full set of attempts, its event id and body, and the URL given; naming one that
// is not dead, or not of the endpoint, is an error that names it.
func TestReplayWebhookDeliveries(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		q := s.WebhookQueue(store.WebhookSourceCoordinator)
		now := time.Unix(1000, 0)
		var ds []store.WebhookDelivery
		for _, id := range []string{"d1", "d2", "ok"} {
			ds = append(ds, store.WebhookDelivery{ID: id, EventID: "ev-" + id, EndpointID: "e", OrgID: "o", URL: "https://old.example",
				EventType: "ACTIVITY_UPDATES", Subject: id, Sequence: 1, Body: []byte(`{"id":"` + id + `"}`), CreatedAt: now.UnixNano()})
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueWebhookDeliveries(ctx, ds) }); err != nil {
			t.Fatal(err)
		}
		claimed, err := q.Claim(ctx, now, 10, time.Minute, webhook.Busy{})
		if err != nil || len(claimed) != 3 {
			t.Fatalf("claim: %v %v", claimed, err)
		}
		_ = q.Failed(ctx, webhook.Ref{OrgID: "o", ID: "d1"}, webhook.Failure{Attempts: 10, Status: 500, Next: now, Reason: "HTTP 500", Dead: true})
		_ = q.Failed(ctx, webhook.Ref{OrgID: "o", ID: "d2"}, webhook.Failure{Attempts: 10, Status: 500, Next: now, Reason: "HTTP 500", Dead: true})
		_ = q.Delivered(ctx, webhook.Ref{OrgID: "o", ID: "ok"}, now, 200)
		if err := q.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		replay := func(ids ...string) ([]string, error) {
			var got []string
			err := s.Write(ctx, func(tx *store.Tx) (err error) {
				got, err = tx.ReplayWebhookDeliveries(ctx, "e", "https://new.example", ids, now.Add(time.Second).UnixNano(), 100)
				return err
			})
			return got, err
		}
		for _, bad := range [][]string{{"d1", "ok"}, {"d1", "missing"}} {
			if _, err := replay(bad...); err == nil || !strings.Contains(err.Error(), bad[1]+" is not a dead delivery of endpoint e") {
				t.Errorf("replay %v: %v", bad, err)
			}
		}
		if got, err := replay(); err != nil || strings.Join(got, " ") != "d1 d2" {
			t.Fatalf("replay all: %v %v", got, err)
		}
		claimed, err = q.Claim(ctx, now.Add(2*time.Second), 10, time.Minute, webhook.Busy{})
		if err != nil || len(claimed) != 2 {
			t.Fatalf("claim after the replay: %+v %v", claimed, err)
		}
		for _, d := range claimed {
			if d.Attempts != 0 || d.URL != "https://new.example" || d.EventID != "ev-"+d.ID || string(d.Body) != `{"id":"`+d.ID+`"}` {
				t.Errorf("replayed %+v", d)
			}
		}
	})
}

// A watcher's block hashes are kept for a window, and forgotten from a height on.
func TestChainBlocks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		for n := uint64(1); n <= 10; n++ {
			if err := s.Write(ctx, func(tx *store.Tx) error {
				return tx.RecordChainBlock(ctx, "eip155:1", "w", n, "h"+strconv.FormatUint(n, 10), 4)
			}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ChainBlocks(ctx, "eip155:1", "w", 0, 100)
		if err != nil || len(got) != 4 || got[7] != "h7" || got[10] != "h10" {
			t.Fatalf("kept %v %v, want blocks 7 to 10", got, err)
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.ForgetChainBlocks(ctx, "eip155:1", "w", 9) }); err != nil {
			t.Fatal(err)
		}
		if got, err = s.ChainBlocks(ctx, "eip155:1", "w", 0, 100); err != nil || len(got) != 2 || got[8] != "h8" {
			t.Fatalf("after forgetting from 9: %v %v", got, err)
		}
		if other, _ := s.ChainBlocks(ctx, "eip155:1", "other", 0, 100); len(other) != 0 {
			t.Errorf("another watcher sees %v", other)
		}
	})
}

// A delivery written leased (to the writing process's worker, which is handed it) is claimed by no worker until its
// lease ends, and then by one: if that process died, nothing is lost.
func TestWebhookDeliveryLeasedAtBirth(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		now := time.Unix(1000, 0)
		d := store.WebhookDelivery{ID: "born-leased", EventID: "ev", EndpointID: "e", OrgID: "o", URL: "https://x.example",
			EventType: "ACTIVITY_UPDATES", Subject: "a", Sequence: 1, Body: []byte(`{}`), CreatedAt: now.UnixNano(),
			LeaseUntil: now.Add(time.Minute).UnixNano()}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{d}) }); err != nil {
			t.Fatal(err)
		}
		other := s.WebhookQueue(store.WebhookSourceCoordinator)
		if got, err := other.Claim(ctx, now.Add(59*time.Second), 10, time.Minute, webhook.Busy{}); err != nil || len(got) != 0 {
			t.Fatalf("claimed %+v %v while leased", got, err)
		}
		got, err := other.Claim(ctx, now.Add(time.Minute), 10, time.Minute, webhook.Busy{})
		if err != nil || len(got) != 1 || got[0].ID != d.ID || got[0].EventID != "ev" {
			t.Fatalf("after the lease: %+v %v", got, err)
		}
	})
}

// A delivery written by reference keeps no body in the outbox; a claim renders it. One whose body can never be
// rendered is dead with why; one whose rendering failed for now is claimed again later.
func TestWebhookDeliveriesByReference(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		now := time.Unix(1000, 0)
		delivery := func(id string) store.WebhookDelivery {
			return store.WebhookDelivery{ID: id, EventID: "ev-" + id, EndpointID: "e", OrgID: "o", URL: "https://x.example",
				EventType: "ACTIVITY_UPDATES", Subject: id, Sequence: 2, Body: []byte(`{"offered":true}`), ByReference: true,
				CreatedAt: now.UnixNano()}
		}
		err := s.Write(ctx, func(tx *store.Tx) error {
			return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{delivery("ok"), delivery("gone"), delivery("later")})
		})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.ListWebhookDeliveries(ctx, "e", store.DeliveryPending, 10)
		if err != nil || len(rows) != 3 {
			t.Fatalf("pending %+v, %v", rows, err)
		}
		for _, r := range rows {
			if len(r.Body) != 0 || !r.ByReference || r.Source != store.WebhookSourceCoordinator {
				t.Fatalf("the outbox kept %s as %+v", r.ID, r)
			}
		}
		// A queue that renders no bodies, as a coordinator of an earlier release, leaves them to one that does.
		if got, err := s.WebhookQueue(store.WebhookSourceCoordinator).Claim(ctx, now, 10, time.Hour, webhook.Busy{}); err != nil || len(got) != 0 {
			t.Fatalf("a queue without a renderer claimed %+v, %v", got, err)
		}
		q := s.WebhookQueue(store.WebhookSourceCoordinator).RenderBodies(func(_ context.Context, d store.WebhookDelivery) ([]byte, error) {
			switch d.ID {
			case "gone":
				return nil, store.Undeliverable("activity %s is gone", d.Subject)
			case "later":
				return nil, errors.New("database is locked")
			}
			return []byte(`{"rendered":"` + d.Subject + `"}`), nil
		})
		got, err := q.Claim(ctx, now, 10, time.Hour, webhook.Busy{})
		if err != nil || len(got) != 1 || got[0].ID != "ok" || string(got[0].Body) != `{"rendered":"ok"}` {
			t.Fatalf("claimed %+v, %v", got, err)
		}
		if err := q.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		dead, err := s.ListWebhookDeliveries(ctx, "e", store.DeliveryDead, 10)
		if err != nil || len(dead) != 1 || dead[0].ID != "gone" ||
			dead[0].LastError != "the event's body could not be rendered: activity gone is gone" {
			t.Fatalf("dead %+v, %v", dead, err)
		}
		// The one that failed for now is released, not dead: not due at once, claimed again once due.
		if got, err := q.Claim(ctx, now, 10, time.Hour, webhook.Busy{}); err != nil || len(got) != 0 {
			t.Fatalf("claimed again at once: %+v, %v", got, err)
		}
		q.RenderBodies(func(_ context.Context, d store.WebhookDelivery) ([]byte, error) { return []byte(`{}`), nil })
		got, err = q.Claim(ctx, now.Add(10*time.Second), 10, time.Hour, webhook.Busy{})
		if err != nil || len(got) != 1 || got[0].ID != "later" || string(got[0].Body) != `{}` {
			t.Fatalf("claimed later %+v, %v", got, err)
		}
	})
}

// Delivery ids sort in the order they were made, so that the outbox's id index is appended to
// (BenchmarkEnqueueWebhookDeliveries).
func TestDeliveryIDsAreTimeOrdered(t *testing.T) {
	prev := store.NewDeliveryID()
	for range 1000 {
		id := store.NewDeliveryID()
		if u, err := uuid.Parse(id); err != nil || u.Version() != 7 {
			t.Fatalf("delivery id %q is not a version 7 UUID (%v)", id, err)
		}
		if id <= prev {
			t.Fatalf("delivery id %q made after %q sorts before it", id, prev)
		}
		prev = id
	}
}

// A claim leaves alone the endpoints and tenants the worker names busy, and takes the rows behind theirs; a delivery
// written without a tenant counts for its organization.
func TestWebhookClaimLeavesBusyAlone(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		q := s.WebhookQueue(store.WebhookSourceCoordinator)
		now := time.Unix(1000, 0)
		var ds []store.WebhookDelivery
		for i, row := range []struct{ endpoint, org, tenant string }{
			{"slow-1", "attacker-sub", "attacker"}, {"slow-2", "attacker-sub", "attacker"}, {"slow-1", "attacker", "attacker"},
			{"healthy", "victim", ""}, {"slow-3", "attacker-sub", "attacker"},
		} {
			ds = append(ds, store.WebhookDelivery{ID: strconv.Itoa(i), EventID: "ev" + strconv.Itoa(i), EndpointID: row.endpoint, OrgID: row.org,
				Tenant: row.tenant, URL: "https://x.example", EventType: "ACTIVITY_UPDATES", Subject: strconv.Itoa(i), Body: []byte("{}"),
				CreatedAt: now.UnixNano()})
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueWebhookDeliveries(ctx, ds) }); err != nil {
			t.Fatal(err)
		}
		claim := func(busy webhook.Busy) string {
			t.Helper()
			got, err := q.Claim(ctx, now, 10, time.Nanosecond, busy) // leased for a nanosecond: the next claim may take them again
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, d := range got {
				out += d.ID + ":" + d.Tenant + " "
			}
			return out
		}
		now = now.Add(time.Second)
		if got := claim(webhook.Busy{Endpoints: []string{"slow-1", "slow-2"}}); got != "3:victim 4:attacker " {
			t.Errorf("leaving slow-1 and slow-2 alone: %q", got)
		}
		now = now.Add(time.Second)
		if got := claim(webhook.Busy{Tenants: []string{"attacker"}}); got != "3:victim " {
			t.Errorf("leaving the attacker's tenant alone: %q", got)
		}
		now = now.Add(time.Second)
		if got := claim(webhook.Busy{Endpoints: []string{"healthy"}, Tenants: []string{"victim"}}); got != "0:attacker 1:attacker 2:attacker 4:attacker " {
			t.Errorf("leaving the victim alone: %q", got)
		}
	})
}
