package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"

	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// A master key rotation reaches the sealed blobs outside sealed_secrets: a yield webhook endpoint's secret and the copy
// a pending delivery carries are rewrapped under the new version and still open; a delivery already dead is left.
func TestRewrapSealedColumns(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		key := func(v uint32) seal.MasterKey {
			k := seal.MasterKey{Version: v, Key: make([]byte, 32)}
			rand.Read(k.Key)
			return k
		}
		one, two := key(1), key(2)
		before, err := seal.NewKeyring(1, one)
		if err != nil {
			t.Fatal(err)
		}
		after, err := seal.NewKeyring(2, one, two)
		if err != nil {
			t.Fatal(err)
		}
		secret, aad := []byte("a webhook secret of the project"), []byte("endpoint e1")
		sealed, err := before.Seal(secret, aad)
		if err != nil {
			t.Fatal(err)
		}
		delivery := func(id, endpoint string) store.WebhookDelivery {
			return store.WebhookDelivery{ID: id, EventID: id, EndpointID: endpoint, OrgID: "p", URL: "https://x.example", EventType: "T",
				Subject: id, Sequence: 1, Body: []byte(`{}`), Source: store.WebhookSourceYield, Scheme: "hmac", Secret: sealed}
		}
		err = s.Write(ctx, func(tx *store.Tx) error {
			if err := tx.PutYieldWebhookEndpoint(ctx, store.YieldWebhookEndpoint{ID: "e1", Project: "p", URL: "https://x.example",
				Events: []string{"transaction.status_changed"}, Secret: sealed, CreatedAt: 1}); err != nil {
				return err
			}
			if err := tx.EnqueueWebhookDeliveries(ctx, []store.WebhookDelivery{delivery("d-pending", "e1"), delivery("d-dead", "e2")}); err != nil {
				return err
			}
			return tx.AbandonWebhookDeliveries(ctx, "e2", "the endpoint was deleted", 1)
		})
		if err != nil {
			t.Fatal(err)
		}

		rewrap := func(blob []byte) ([]byte, bool, error) {
			if !after.NeedsRewrap(blob) {
				return nil, false, nil
			}
			out, err := after.Rewrap(blob)
			return out, err == nil, err
		}
		n, err := s.RewrapSealedColumns(ctx, rewrap)
		if err != nil || n != 2 {
			t.Fatalf("rewrapped %d blobs, want the endpoint's and the pending delivery's: %v", n, err)
		}
		retired, err := seal.NewKeyring(2, two) // version 1 retired: what was rewrapped still opens
		if err != nil {
			t.Fatal(err)
		}
		eps, err := s.YieldWebhookEndpoints(ctx, "p")
		if err != nil || len(eps) != 1 {
			t.Fatalf("endpoints %v %v", eps, err)
		}
		if got, err := retired.Open(eps[0].Secret, aad); err != nil || !bytes.Equal(got, secret) {
			t.Fatalf("the endpoint's secret after the rotation: %q %v", got, err)
		}
		for _, tc := range []struct {
			endpoint, state string
			version         uint32
		}{{"e1", store.DeliveryPending, 2}, {"e2", store.DeliveryDead, 1}} {
			state, wantVersion := tc.state, tc.version
			ds, err := s.ListWebhookDeliveries(ctx, tc.endpoint, state, 10)
			if err != nil || len(ds) != 1 {
				t.Fatalf("%s deliveries %v %v", state, ds, err)
			}
			if v, _ := seal.BlobVersion(ds[0].Secret); v != wantVersion {
				t.Errorf("the %s delivery's secret is under version %d, want %d", state, v, wantVersion)
			}
		}
		if n, err := s.RewrapSealedColumns(ctx, rewrap); err != nil || n != 0 {
			t.Fatalf("a second run rewrapped %d: %v", n, err)
		}
	})
}
