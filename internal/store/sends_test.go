package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// Sends taking nonces at once, through two handles on one database as two processes would, get consecutive nonces
// from the chain's count on, none twice; a chain ahead of the coordinator moves its count, a nonce the caller chose
// moves it past that one.
func TestTakeNonceConsecutiveAcrossHandles(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		handles := []*store.Store{open(t, b), open(t, b)}
		const each = 20
		var mu sync.Mutex
		var got []uint64
		var wg sync.WaitGroup
		for i := range 2 * each {
			wg.Go(func() {
				var n uint64
				err := handles[i%2].Write(ctx, func(tx *store.Tx) (err error) {
					n, err = tx.TakeNonce(ctx, "eip155:1", "0xabc", 5)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, n)
				mu.Unlock()
			})
		}
		wg.Wait()
		slices.Sort(got)
		for i, n := range got {
			if n != uint64(5+i) {
				t.Fatalf("nonces %v: want 5..%d each once", got, 5+2*each-1)
			}
		}
		take := func(chainNext uint64) uint64 {
			var n uint64
			if err := handles[0].Write(ctx, func(tx *store.Tx) (err error) { n, err = tx.TakeNonce(ctx, "eip155:1", "0xabc", chainNext); return err }); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := take(100); n != 100 {
			t.Errorf("with the chain at 100: took %d", n)
		}
		if n := take(3); n != 101 {
			t.Errorf("with the chain behind: took %d, want 101", n)
		}
		if err := handles[1].Write(ctx, func(tx *store.Tx) error { return tx.UseNonce(ctx, "eip155:1", "0xabc", 200) }); err != nil {
			t.Fatal(err)
		}
		if next, found, err := handles[0].NextNonce(ctx, "eip155:1", "0xabc"); err != nil || !found || next != 201 {
			t.Errorf("after a chosen 200: next %d %v %v", next, found, err)
		}
		if _, found, _ := handles[0].NextNonce(ctx, "eip155:2", "0xabc"); found {
			t.Error("another network shares the count")
		}
	})
}

// A send is claimed by one worker at a time, listed while due and not final, and found by id or hash only in its
// organization.
func TestSendClaimsAndLookups(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		sd := store.Send{ID: "s1", OrgID: "o1", ActivityID: "a1", Network: "eip155:1", From: "0xabc", Request: []byte(`{}`),
			Status: store.SendInitialized, Nonce: -1, TxHash: "0xhash", CreatedAt: 1, UpdatedAt: 1}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.InsertSend(ctx, sd) }); err != nil {
			t.Fatal(err)
		}
		dup := sd
		dup.ID = "s2"
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.InsertSend(ctx, dup) }); err == nil {
			t.Error("a second send of one activity was recorded")
		}
		due, err := s.DueSends(ctx, "eip155:1", 10, 10)
		if err != nil || len(due) != 1 || due[0].ID != "s1" || string(due[0].Request) != `{}` || due[0].Nonce != -1 {
			t.Fatalf("due: %+v %v", due, err)
		}
		if ok, _ := s.ClaimSend(ctx, "o1", "s1", 0, 10, 100); ok {
			t.Error("claimed as it was before it changed")
		}
		if ok, _ := s.ClaimSend(ctx, "o2", "s1", 1, 10, 100); ok {
			t.Error("claimed by its id as another organization's")
		}
		if ok, err := s.ClaimSend(ctx, "o1", "s1", 1, 10, 100); !ok || err != nil {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		if ok, _ := s.ClaimSend(ctx, "o1", "s1", 1, 20, 110); ok {
			t.Error("claimed twice while leased")
		}
		if due, _ := s.DueSends(ctx, "eip155:1", 20, 10); len(due) != 0 {
			t.Error("a leased send is listed as due")
		}
		sd.Status, sd.Error, sd.UpdatedAt = store.SendFailed, []byte(`{"message":"x"}`), 30
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.UpdateSend(ctx, sd, 0) }); !errors.Is(err, store.ErrSendChanged) {
			t.Errorf("an update of a send read before it changed: %v", err)
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.UpdateSend(ctx, sd, 1) }); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.ClaimSend(ctx, "o1", "s1", 30, 200, 300); ok {
			t.Error("a final send was claimed")
		}
		if got, err := s.SendByHash(ctx, "o1", "0xhash"); err != nil || got.Status != store.SendFailed || string(got.Error) != `{"message":"x"}` {
			t.Errorf("by hash: %+v %v", got, err)
		}
		if _, err := s.SendByID(ctx, "o2", "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organization's send: %v", err)
		}
	})
}
