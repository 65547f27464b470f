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
