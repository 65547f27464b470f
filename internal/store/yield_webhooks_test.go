package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/webhook"
)

// Services share the outbox and each one's queue claims only its own rows, with their scheme and, opened at claim
// time, their secret; a row whose secret does not open is dead, not handed out. A subject's events are numbered
// 1, 2, 3 ….
func TestWebhookQueueSources(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		now := time.Unix(1000, 0)
		row := func(id, source, scheme string, secret []byte) store.WebhookDelivery {
			return store.WebhookDelivery{ID: id, EventID: id, EndpointID: "e-" + id, OrgID: "o", URL: "https://x.example",
				EventType: "T", Subject: id, Sequence: 1, Body: []byte(`{}`), CreatedAt: now.UnixNano(),
				Source: source, Scheme: scheme, Secret: secret}
		}
		var seqs []int64
		err := s.Write(ctx, func(tx *store.Tx) error {
			for range 3 {
				n, err := tx.NextYieldWebhookSequence(ctx, "subject")
				if err != nil {
					return err
				}
				seqs = append(seqs, n)
			}
			return tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{row("coord", "", "", nil),
				row("good", store.WebhookSourceYield, webhook.SchemeHMAC, []byte("sealed-good")),
				row("bad", store.WebhookSourceYield, webhook.SchemeHMAC, []byte("sealed-bad"))})
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != 3 || seqs[0] != 1 || seqs[1] != 2 || seqs[2] != 3 {
			t.Fatalf("sequences %v, want 1 2 3", seqs)
		}
		got, err := s.WebhookQueue(store.WebhookSourceCoordinator).Claim(ctx, now, 10, time.Minute, webhook.Busy{})
		if err != nil || len(got) != 1 || got[0].ID != "coord" || got[0].Scheme != webhook.SchemeTurnkey || got[0].Secret != nil {
			t.Fatalf("the coordinator claimed %+v, %v", got, err)
		}
		q := s.WebhookQueue(store.WebhookSourceYield).OpenSecrets(func(endpointID string, sealed []byte) ([]byte, error) {
			if endpointID != "e-good" || string(sealed) != "sealed-good" {
				return nil, errors.New("wrong key")
			}
			return []byte("plain"), nil
		})
		got, err = q.Claim(ctx, now, 10, time.Minute, webhook.Busy{})
		if err != nil || len(got) != 1 || got[0].ID != "good" || got[0].Scheme != webhook.SchemeHMAC || string(got[0].Secret) != "plain" {
			t.Fatalf("the yield service claimed %+v, %v", got, err)
		}
		if err := q.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		dead, err := s.ListWebhookDeliveries(ctx, "e-bad", store.DeliveryDead, 10)
		if err != nil || len(dead) != 1 || dead[0].LastError != "the endpoint's secret could not be opened: wrong key" {
			t.Fatalf("the delivery whose secret does not open: %+v, %v", dead, err)
		}
	})
}
