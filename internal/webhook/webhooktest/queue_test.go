package webhooktest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/webhook"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ids(ds []webhook.Delivery) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return fmt.Sprint(out)
}

func TestClaimKeepsSubjectsInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New()
	q.Add(webhook.Delivery{ID: "a1", EndpointID: "e", Subject: "a"}, t0)
	q.Add(webhook.Delivery{ID: "b1", EndpointID: "e", Subject: "b"}, t0.Add(time.Minute)) // not due yet
	q.Add(webhook.Delivery{ID: "a2", EndpointID: "e", Subject: "a"}, t0)
	q.Add(webhook.Delivery{ID: "b2", EndpointID: "e", Subject: "b"}, t0) // behind b1
	q.Add(webhook.Delivery{ID: "x", EndpointID: "e"}, t0)
	q.Add(webhook.Delivery{ID: "a1-other-endpoint", EndpointID: "f", Subject: "a"}, t0)

	got, _ := q.Claim(ctx, t0, 10, time.Minute, webhook.Busy{})
	if ids(got) != "[a1 a2 x a1-other-endpoint]" {
		t.Fatalf("claimed %s", ids(got))
	}
	// Leased: nothing more until the lease ends or they are settled.
	if got, _ := q.Claim(ctx, t0, 10, time.Minute, webhook.Busy{}); len(got) != 0 {
		t.Fatalf("claimed leased deliveries %s", ids(got))
	}
	for _, id := range []string{"x", "a1-other-endpoint"} {
		if err := q.Delivered(ctx, webhook.Ref{ID: id}, t0, 204); err != nil {
			t.Fatal(err)
		}
	}
	// a1 fails and will be retried later: a2, given back, waits behind it.
	if err := q.Failed(ctx, webhook.Ref{ID: "a1"}, webhook.Failure{Attempts: 1, Status: 503, Next: t0.Add(30 * time.Second), Reason: "HTTP 503"}); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, webhook.Ref{ID: "a2"}, t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Claim(ctx, t0.Add(10*time.Second), 10, time.Minute, webhook.Busy{}); len(got) != 0 {
		t.Fatalf("claimed %s before a1's retry was due", ids(got))
	}
	// b1 is due now; at most n are handed out.
	got, _ = q.Claim(ctx, t0.Add(time.Minute), 3, time.Minute, webhook.Busy{})
	if ids(got) != "[a1 b1 a2]" {
		t.Fatalf("claimed %s", ids(got))
	}
	// A dead delivery does not block its subject.
	if err := q.Failed(ctx, webhook.Ref{ID: "b1"}, webhook.Failure{Attempts: 5, Status: 500, Reason: "HTTP 500", Dead: true}); err != nil {
		t.Fatal(err)
	}
	got, _ = q.Claim(ctx, t0.Add(time.Minute), 10, time.Minute, webhook.Busy{})
	if ids(got) != "[b2]" {
		t.Fatalf("claimed %s", ids(got))
	}
	// Once settled, a delivery cannot be reported on again.
	if err := q.Delivered(ctx, webhook.Ref{ID: "b2"}, t0, 200); err != nil {
		t.Fatal(err)
	}
	if err := q.Delivered(ctx, webhook.Ref{ID: "b2"}, t0, 200); err == nil {
		t.Fatal("delivered twice")
	}
	if r, _ := q.Get("b1"); r.State != Dead || r.Delivery.Attempts != 5 || r.LastErr != "HTTP 500" {
		t.Fatalf("b1: %+v", r)
	}
}
