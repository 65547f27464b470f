package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/store"
)

// BenchmarkEnqueueWebhookDeliveries measures durable write transactions that each record an activity and one webhook
// delivery reporting it (by reference, as a signing activity's is), from 8 concurrent writers on SQLite, into an
// outbox that already holds 100,000 deliveries. The delivery ids are random (version 4 UUIDs) or time-ordered
// (version 7, store.NewDeliveryID): a random id is written into a random page of the outbox's id index, so a group
// of 8 commits writes up to 8 of its pages, and an index grown past the page cache is read back from the file.
func BenchmarkEnqueueWebhookDeliveries(b *testing.B) {
	ids := map[string]func() string{"random": uuid.NewString, "time-ordered": store.NewDeliveryID}
	for _, kind := range []string{"random", "time-ordered"} {
		b.Run("ids="+kind, func(b *testing.B) {
			ctx := context.Background()
			s := openBenchStore(b)
			newID := ids[kind]
			if err := s.Write(ctx, func(tx *store.Tx) error {
				ds := make([]store.WebhookDelivery, 100_000)
				for i := range ds {
					ds[i] = outboxDelivery(newID(), fmt.Sprintf("old%d", i))
				}
				return tx.EnqueueWebhookDeliveries(ctx, ds)
			}); err != nil {
				b.Fatal(err)
			}
			cpu := cputime.Start()
			defer func() { b.ReportMetric(cpu.PerOp(b.N), cputime.Unit) }()
			durableWrites(b, s, 8, func(tx *store.Tx, activity string) error {
				return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{outboxDelivery(newID(), activity)})
			})
		})
	}
}

func outboxDelivery(id, activity string) store.WebhookDelivery {
	return store.WebhookDelivery{ID: id, EventID: activity + ":ACTIVITY_STATUS_COMPLETED", EndpointID: "e", OrgID: "o",
		URL: "https://example.com/hook", EventType: "ACTIVITY_UPDATES", Subject: activity, Sequence: 1, ByReference: true}
}
