package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sigil/internal/testdb"
	"sigil/store"
)

// The tests of the group committer run in synctest bubbles: synctest.Wait returns once every goroutine is blocked
// (the writer held, the others waiting their turn) and time.Sleep moves the bubble's clock, not the wall's, so the
// timing of arrivals is exact and nothing waits for real.

// Writes that arrive while another runs share its commit, and each is still its own transaction: a failing one leaves
// nothing, a panicking one panics in its caller, the others are all kept.
func TestConcurrentWritesShareCommitsAndFailAlone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := open(t, testdb.SQLite(t))
		insert := func(tx *store.Tx, i int) error {
			_, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("a%d", i), OrgID: "o", Fingerprint: fmt.Sprint(i), Type: "T", Status: "S", Record: []byte(`{}`)})
			return err
		}
		release := make(chan struct{})
		blocked := make(chan error)
		go func() { // holds the writer until every other write is waiting
			blocked <- s.Write(ctx, func(tx *store.Tx) error { <-release; return insert(tx, 0) })
		}()
		synctest.Wait() // the first write holds the writer
		before := store.GroupCommitsForTest(s)

		const n = 40
		errs := make([]any, n)
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer func() {
					if v := recover(); v != nil {
						errs[i] = v
					}
				}()
				err := s.Write(ctx, func(tx *store.Tx) error {
					if err := insert(tx, i); err != nil {
						return err
					}
					switch i % 10 {
					case 3:
						return errors.New("refused after writing")
					case 7:
						panic("boom")
					}
					return nil
				})
				if err != nil {
					errs[i] = err
				}
			}(i)
		}
		synctest.Wait() // every writer is now waiting for the one holding the writer
		close(release)
		wg.Wait()
		if err := <-blocked; err != nil {
			t.Fatal(err)
		}
		if commits := store.GroupCommitsForTest(s) - before; commits != 1 {
			t.Fatalf("%d commits for %d concurrent writes, want 1: those waiting join the group of the one holding the writer", commits, n)
		}
		for i := 1; i < n; i++ {
			_, err := s.ActivityByID(ctx, fmt.Sprintf("a%d", i))
			switch i % 10 {
			case 3:
				if errs[i] == nil || fmt.Sprint(errs[i]) != "refused after writing" || !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("write %d failed with %v, its row: %v", i, errs[i], err)
				}
			case 7:
				if errs[i] != "boom" || !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("write %d panicked with %v, its row: %v", i, errs[i], err)
				}
			default:
				if errs[i] != nil || err != nil {
					t.Fatalf("write %d: %v, its row: %v", i, errs[i], err)
				}
			}
		}
	})
}

// A caller that gives up before its turn has nothing written.
func TestWriteCancelledWhileWaitingWritesNothing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := open(t, testdb.SQLite(t))
		release := make(chan struct{})
		go func() {
			_ = s.Write(context.Background(), func(*store.Tx) error { <-release; return nil })
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		ran := false
		go func() {
			done <- s.Write(ctx, func(*store.Tx) error { ran = true; return nil })
		}()
		synctest.Wait()
		cancel()
		close(release)
		if err := <-done; !errors.Is(err, context.Canceled) || ran {
			t.Fatalf("cancelled write: %v, ran %v", err, ran)
		}
	})
}

// Under concurrent load the committer waits a little for more transactions: writes arriving closer together than the
// delay share a commit. A write that arrives after a pause of several times the delay is committed at once.
func TestCommitDelayGathersOnlyUnderConcurrentLoad(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := open(t, testdb.SQLite(t))
		var wg sync.WaitGroup
		write := func() {
			wg.Go(func() {
				if err := s.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
					t.Error(err)
				}
			})
		}

		for range 8 { // concurrent writers, one write after another each
			wg.Go(func() {
				for range 5 {
					if err := s.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if store.CommitWaitsForTest(s) == 0 {
			t.Fatal("writes arriving together never waited for more")
		}

		const delay = 400 * time.Millisecond
		store.SetCommitDelayForTest(s, delay)
		before := store.GroupCommitsForTest(s)
		for range 3 { // arriving one by one, closer together than the delay
			write()
			time.Sleep(delay / 10)
		}
		wg.Wait()
		if commits := store.GroupCommitsForTest(s) - before; commits != 1 {
			t.Fatalf("three writes arriving closer together than the delay took %d commits, want 1", commits)
		}

		const short = 20 * time.Millisecond
		store.SetCommitDelayForTest(s, short)
		waits := store.CommitWaitsForTest(s)
		for range 3 { // each after a pause of several times the delay
			time.Sleep(10 * short)
			write()
			wg.Wait()
		}
		if n := store.CommitWaitsForTest(s) - waits; n != 0 {
			t.Fatalf("lone writes waited %d times for others", n)
		}
	})
}

// One writer writing one transaction after another, closer together than the delay, never waits for others: it sends
// its next transaction only once the last is answered.
func TestSequentialWriterNeverWaits(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := open(t, testdb.SQLite(t))
		const delay = 400 * time.Millisecond
		store.SetCommitDelayForTest(s, delay)
		waits := store.CommitWaitsForTest(s)
		for range 20 {
			if err := s.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay / 10)
		}
		if n := store.CommitWaitsForTest(s) - waits; n != 0 {
			t.Fatalf("a sequential writer waited %d times for others", n)
		}
	})
}

// The mean gap between arrivals follows the recent ones; a pause shows at once.
func TestArrivals(t *testing.T) {
	t.Parallel()
	var a store.ArrivalsForTest
	start := time.Unix(0, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	a.Add(at(0))
	a.Add(at(1))
	if a.Expect(5 * time.Millisecond) {
		t.Fatal("two arrivals are not yet a rate")
	}
	for i := 2; i < 20; i++ {
		a.Add(at(i))
	}
	if !a.Expect(5*time.Millisecond) || a.Expect(time.Millisecond/2) {
		t.Fatal("arrivals 1 ms apart: expected within 5 ms, not within 0.5 ms")
	}
	a.Add(at(18)) // received after a later one
	if !a.Expect(5 * time.Millisecond) {
		t.Fatal("an arrival received out of order counts as no gap")
	}
	a.Add(at(1000))
	if a.Expect(5 * time.Millisecond) {
		t.Fatal("an arrival after a pause is expected to be followed at once")
	}
}

// Write returns only once its commit is synced, and commits made while a sync runs share the next one.
func TestWriteReturnsOnceSynced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, testdb.SQLite(t))
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			var before int64
			err := s.Write(ctx, func(tx *store.Tx) error {
				before, _ = store.CommitsForTest(s) // this transaction's commit will be a later one
				_, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("s%d", i), OrgID: "o", Fingerprint: fmt.Sprint(i), Type: "T", Status: "S", Record: []byte(`{}`)})
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
			if _, synced := store.CommitsForTest(s); synced <= before {
				t.Errorf("Write returned with %d commits synced; its own commit comes after the first %d", synced, before)
			}
		})
	}
	wg.Wait()
}
