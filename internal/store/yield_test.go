package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

func TestYieldAPIKeys(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		k := store.YieldAPIKey{ID: "k1", KeyHash: "h1", Project: "p", FeeSet: 20, CreatedAt: 5}
		err := s.Write(ctx, func(tx *store.Tx) error {
			if _, err := tx.ClaimYieldProject(ctx, "p", 20, 5); err != nil {
				return err
			}
			return tx.PutYieldAPIKey(ctx, k)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.YieldAPIKeyByHash(ctx, "h1")
		if err != nil || got != k {
			t.Fatalf("got %+v, %v", got, err)
		}
		if _, err := s.YieldAPIKeyByHash(ctx, "h2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
		dup := store.YieldAPIKey{ID: "k2", KeyHash: "h1", Project: "p"}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.PutYieldAPIKey(ctx, dup) }); err == nil {
			t.Fatal("a second key with the same hash was stored")
		}
	})
}

// A project's fee set is the one it was first claimed with; later claims, on either set or none, read it back.
func TestYieldProjectFeeSet(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		claim := func(project string, feeSet int) (int, error) {
			var got int
			err := s.Write(ctx, func(tx *store.Tx) error {
				var err error
				got, err = tx.ClaimYieldProject(ctx, project, feeSet, 1)
				return err
			})
			return got, err
		}
		if _, err := claim("p", 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("reading a project that does not exist: %v", err)
		}
		for _, tc := range []struct{ feeSet, want int }{{20, 20}, {10, 20}, {0, 20}} {
			if got, err := claim("p", tc.feeSet); err != nil || got != tc.want {
				t.Fatalf("claim on %d: %d, %v; want %d", tc.feeSet, got, err, tc.want)
			}
		}
		if got, err := claim("q", 10); err != nil || got != 10 {
			t.Fatalf("another project: %d, %v", got, err)
		}
	})
}

// Migration 0011 moves the fee set from the keys to their projects: each project takes the set of its oldest key, and
// every key of the project, whatever set it was created on, now reads the project's.
func TestYieldProjectsMigration(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := migratedFrom(t, b, 10,
			"INSERT INTO yield_api_keys (key_hash, id, project, fee_set, created_at) VALUES ('h1', 'id-h1', 'both', 20, 1)",
			"INSERT INTO yield_api_keys (key_hash, id, project, fee_set, created_at) VALUES ('h2', 'id-h2', 'both', 10, 2)",
			"INSERT INTO yield_api_keys (key_hash, id, project, fee_set, created_at) VALUES ('h3', 'id-h3', 'ten', 10, 3)",
			"INSERT INTO yield_api_keys (key_hash, id, project, fee_set, created_at) VALUES ('h4', 'id-h4', 'tie', 20, 4)",
			"INSERT INTO yield_api_keys (key_hash, id, project, fee_set, created_at) VALUES ('h5', 'id-h5', 'tie', 10, 4)")
		for hash, want := range map[string]int{"h1": 20, "h2": 20, "h3": 10, "h4": 10, "h5": 10} {
			if k, err := s.YieldAPIKeyByHash(ctx, hash); err != nil || k.FeeSet != want {
				t.Errorf("key %s after the migration: %+v, %v; want fee set %d", hash, k, err, want)
			}
		}
	})
}

func TestYieldActionsAndTransactions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		insert := func(id, project, address, status string, created int64, steps int) {
			t.Helper()
			a := store.YieldAction{ID: id, Project: project, Address: address, YieldID: "y", Intent: "enter", Type: "STAKE",
				Status: status, Body: []byte(`{"a":"` + id + `"}`), CreatedAt: created}
			var txs []store.YieldTransaction
			for i := range steps {
				txs = append(txs, store.YieldTransaction{ID: id + "-" + string(rune('0'+i)), StepIndex: i, Status: "CREATED",
					Body: []byte(`{}`), UpdatedAt: created})
			}
			if err := s.Write(ctx, func(tx *store.Tx) error { return tx.InsertYieldAction(ctx, a, txs) }); err != nil {
				t.Fatal(err)
			}
		}
		insert("a1", "p", "0xaa", "CREATED", 1, 2)
		insert("a2", "p", "0xaa", "SUCCESS", 2, 1)
		insert("a3", "p", "0xbb", "CREATED", 3, 1)
		insert("a4", "q", "0xaa", "CREATED", 4, 1)

		list, total, err := s.YieldActions(ctx, store.YieldActionQuery{Project: "p", Address: "0xaa", Limit: 10})
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != "a2" || list[1].ID != "a1" {
			t.Fatalf("list %+v total %d, %v", list, total, err)
		}
		list, total, err = s.YieldActions(ctx, store.YieldActionQuery{Project: "p", Address: "0xaa", Statuses: []string{"CREATED"}, Limit: 10})
		if err != nil || total != 1 || list[0].ID != "a1" || string(list[0].Body) != `{"a":"a1"}` {
			t.Fatalf("by status %+v total %d, %v", list, total, err)
		}
		list, total, err = s.YieldActions(ctx, store.YieldActionQuery{Project: "p", Limit: 1, Offset: 1})
		if err != nil || total != 3 || len(list) != 1 || list[0].ID != "a2" {
			t.Fatalf("page %+v total %d, %v", list, total, err)
		}
		if _, err := s.YieldAction(ctx, "q", "a1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another project's action: %v", err)
		}
		if _, err := s.YieldTransaction(ctx, "q", "a1-0"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another project's transaction: %v", err)
		}

		err = s.Write(ctx, func(tx *store.Tx) error {
			a, txs, err := tx.LockYieldAction(ctx, "a1")
			if err != nil {
				return err
			}
			if a.ID != "a1" || len(txs) != 2 || txs[0].StepIndex != 0 || txs[1].StepIndex != 1 {
				t.Fatalf("locked %+v %+v", a, txs)
			}
			txs[0].Status, txs[0].Hash, txs[0].BroadcastedAt, txs[0].UpdatedAt = "BROADCASTED", "0xh", 7, 7
			if err := tx.UpdateYieldTransaction(ctx, txs[0]); err != nil {
				return err
			}
			return tx.UpdateYieldActionStatus(ctx, "a1", "PROCESSING", 0)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.YieldTransaction(ctx, "p", "a1-0")
		if err != nil || got.Status != "BROADCASTED" || got.Hash != "0xh" || got.BroadcastedAt != 7 {
			t.Fatalf("transaction %+v, %v", got, err)
		}
		pending, err := s.YieldTransactionsWithStatus(ctx, "BROADCASTED", 10)
		if err != nil || len(pending) != 1 || pending[0].ID != "a1-0" {
			t.Fatalf("pending %+v, %v", pending, err)
		}
		byAction, err := s.YieldTransactionsOf(ctx, "a1", "a3")
		if err != nil || len(byAction["a1"]) != 2 || len(byAction["a3"]) != 1 {
			t.Fatalf("by action %+v, %v", byAction, err)
		}
		a, err := s.YieldAction(ctx, "p", "a1")
		if err != nil || a.Status != "PROCESSING" {
			t.Fatalf("action %+v, %v", a, err)
		}
	})
}

func TestYieldPriceSamples(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		put := func(samples ...store.YieldPriceSample) {
			t.Helper()
			if err := s.Write(ctx, func(tx *store.Tx) error { return tx.PutYieldPriceSamples(ctx, samples...) }); err != nil {
				t.Fatal(err)
			}
		}
		put(store.YieldPriceSample{YieldID: "y", BlockNumber: 1, BlockTime: 100, Shares: "1000", Assets: "1000"},
			store.YieldPriceSample{YieldID: "y", BlockNumber: 2, BlockTime: 200, Shares: "1000", Assets: "1001"},
			store.YieldPriceSample{YieldID: "z", BlockNumber: 2, BlockTime: 200, Shares: "1", Assets: "2"})
		// The same block again is ignored, not an error.
		put(store.YieldPriceSample{YieldID: "y", BlockNumber: 2, BlockTime: 200, Shares: "1000", Assets: "9999"})
		got, err := s.YieldPriceSamples(ctx, "y", 0)
		if err != nil || len(got) != 2 || got[1].Assets != "1001" {
			t.Fatalf("samples %+v, %v", got, err)
		}
		got, err = s.YieldPriceSamples(ctx, "y", 150)
		if err != nil || len(got) != 1 || got[0].BlockNumber != 2 {
			t.Fatalf("since 150: %+v, %v", got, err)
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.DeleteYieldPriceSamplesAfter(ctx, "z", 1) }); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.YieldPriceSamples(ctx, "z", 0); len(got) != 0 {
			t.Fatalf("samples after a reset: %+v", got)
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.DeleteYieldPriceSamplesBefore(ctx, 150) }); err != nil {
			t.Fatal(err)
		}
		got, err = s.YieldPriceSamples(ctx, "y", 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("after prune: %+v, %v", got, err)
		}
	})
}
