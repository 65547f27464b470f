package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"sigil/internal/testdb"
	"sigil/store"
)

// Writes that arrive while another commits share the next commit, and each is still its own transaction: a failing
// one leaves nothing, a panicking one panics in its caller, the others are all kept.
func TestConcurrentWritesShareCommitsAndFailAlone(t *testing.T) {
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
	time.Sleep(50 * time.Millisecond)
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
	time.Sleep(300 * time.Millisecond) // every writer is now waiting for the one holding the writer
	close(release)
	wg.Wait()
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	if commits := store.GroupCommitsForTest(s) - before; commits != 2 {
		t.Fatalf("%d commits for %d concurrent writes, want 2: the one holding the writer, then all the others", commits, n)
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
}

// A caller that gives up before its turn has nothing written.
func TestWriteCancelledWhileWaitingWritesNothing(t *testing.T) {
	s := open(t, testdb.SQLite(t))
	release := make(chan struct{})
	go func() {
		_ = s.Write(context.Background(), func(*store.Tx) error { <-release; return nil })
	}()
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	ran := false
	go func() {
		done <- s.Write(ctx, func(*store.Tx) error { ran = true; return nil })
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	close(release)
	if err := <-done; !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("cancelled write: %v, ran %v", err, ran)
	}
}

// Under concurrent load the committer waits a little for more transactions: after a commit of several, writes that
// arrive within the delay share the next commit. After a commit of one, a write commits at once.
func TestCommitDelayGathersOnlyUnderConcurrentLoad(t *testing.T) {
	ctx := context.Background()
	s := open(t, testdb.SQLite(t))
	const delay = 400 * time.Millisecond
	store.SetCommitDelayForTest(s, delay)
	write := func(wg *sync.WaitGroup) {
		wg.Go(func() {
			if err := s.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
				t.Error(err)
			}
		})
	}

	// A commit of two: both wait while a third holds the writer.
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Write(ctx, func(*store.Tx) error { <-release; return nil }) })
	time.Sleep(50 * time.Millisecond)
	write(&wg)
	write(&wg)
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()

	before := store.GroupCommitsForTest(s)
	for range 3 { // arriving one by one, well within the delay
		write(&wg)
		time.Sleep(delay / 10)
	}
	wg.Wait()
	if commits := store.GroupCommitsForTest(s) - before; commits != 1 {
		t.Fatalf("three writes arriving within the delay after a shared commit took %d commits, want 1", commits)
	}

	write(&wg) // alone: committed after the delay, as the last commit was shared
	wg.Wait()
	store.SetCommitDelayForTest(s, time.Hour) // waiting it would show
	start := time.Now()
	for range 2 {
		write(&wg)
		wg.Wait()
	}
	if waited := time.Since(start); waited > time.Minute {
		t.Fatalf("two lone writes took %v: a write after a commit of one must not wait", waited)
	}
}
