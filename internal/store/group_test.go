package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
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
			_, err := s.ActivityByID(ctx, "o", fmt.Sprintf("a%d", i))
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

// A write that finds the committer idle runs on its caller's goroutine, with no hand-off to the writer or the syncer;
// one that arrives while another runs waits for the writer as before.
func TestALoneWriteRunsOnItsCallersGoroutine(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := open(t, testdb.SQLite(t))
		// onCaller writes and reports whether fn ran on the goroutine that called Write.
		onCaller := func(fn func()) (bool, error) {
			caller, ran := goroutineID(), ""
			err := s.Write(ctx, func(*store.Tx) error { ran = goroutineID(); fn(); return nil })
			return ran == caller, err
		}
		if alone, err := onCaller(func() {}); err != nil || !alone {
			t.Fatalf("a write with no other under way: on its caller's goroutine %v, %v", alone, err)
		}

		release, running := make(chan struct{}), make(chan struct{})
		first := make(chan error)
		go func() { _, err := onCaller(func() { close(running); <-release }); first <- err }()
		<-running
		second := make(chan bool)
		go func() {
			alone, err := onCaller(func() {})
			if err != nil {
				t.Error(err)
			}
			second <- alone
		}()
		synctest.Wait() // the second write waits for the writer, or to join the first's group
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if <-second {
			t.Fatal("a write that arrived while another ran also ran on its caller's goroutine")
		}
	})
}

// goroutineID is the number of the goroutine that calls it, from the first line of its stack ("goroutine 7 [...").
func goroutineID() string {
	buf := make([]byte, 64)
	return strings.Fields(string(buf[:runtime.Stack(buf, false)]))[1]
}

// A SQLite write starts no goroutine: its statements run to their end once it has begun, whatever becomes of the
// caller's context, so that the driver starts none a statement to watch the context; and its transaction is begun and
// ended by statements on the write connection, so that database/sql starts none for the transaction or its queries.
func TestWritesStartNoGoroutines(t *testing.T) { // not parallel: it counts the process's goroutines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := open(t, testdb.SQLite(t))
	created := func() uint64 {
		sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	const writes, statements = 20, 5
	before := created()
	for w := range writes {
		if err := s.Write(ctx, func(tx *store.Tx) error {
			for i := range statements {
				if _, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("g%d-%d", w, i), OrgID: "o", Fingerprint: fmt.Sprint(w, i), Type: "T", Status: "S", Record: []byte(`{}`)}); err != nil {
					return err
				}
			}
			_, err := store.QueryIntForTest(ctx, tx, "SELECT count(*) FROM activities")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if n := created() - before; n >= writes/2 {
		t.Fatalf("%d goroutines started for %d writes of %d statements and a query each", n, writes, statements)
	}
}

// Close waits for a write running on its caller's goroutine to be committed and synced.
func TestCloseWaitsForALoneWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testdb.SQLite(t)
	s, err := store.Open(ctx, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	release, running := make(chan struct{}), make(chan struct{})
	wrote := make(chan error)
	go func() {
		wrote <- s.Write(ctx, func(tx *store.Tx) error {
			close(running)
			<-release
			_, err := tx.InsertActivity(ctx, store.Activity{ID: "lone", OrgID: "o", Fingerprint: "f", Type: "T", Status: "S", Record: []byte(`{}`)})
			return err
		})
	}()
	<-running
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a write was running", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s = open(t, b)
	if _, err := s.ActivityByID(ctx, "o", "lone"); err != nil {
		t.Fatalf("the write answered before Close is not in the store: %v", err)
	}
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

// A group commits as soon as the syncer is idle: concurrent writers never wait on a clock for others to join them, a
// wait measured to cost a third of the rate with four clients (docs/BENCHMARKS.md).
func TestGroupsCommitWithoutWaiting(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := open(t, testdb.SQLite(t))
		start := time.Now()
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 25 {
					if err := s.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if waited := time.Since(start); waited != 0 {
			t.Fatalf("100 writes from 4 writers waited %v on the clock", waited)
		}
	})
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

// Each commit and each sync of the log is measured: a scrape shows as many commits as the writes that came one after
// the other, and at least one sync, each covering what was committed before it.
func TestCommitsAndSyncsAreMeasured(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, m := measured(t)
	for i := range 3 {
		if err := s.Write(ctx, func(tx *store.Tx) error {
			_, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("m%d", i), OrgID: "o", Fingerprint: fmt.Sprint(i), Type: "T", Status: "S", Record: []byte(`{}`)})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	scraped := scrape(m)
	count := func(series string) int {
		for _, line := range strings.Split(scraped, "\n") {
			if v, ok := strings.CutPrefix(line, series+" "); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		t.Fatalf("no %s in\n%s", series, scraped)
		return 0
	}
	if n := count("sigil_store_commit_seconds_count"); n != 3 {
		t.Errorf("%d commits measured for 3 writes one after the other", n)
	}
	if n := count("sigil_store_sync_seconds_count"); n < 1 || n > 3 {
		t.Errorf("%d syncs measured for 3 commits", n)
	}
}

// A COMMIT that fails ends its transaction: the writes it held are gone, and the next write begins on a connection
// with no transaction open. SQLite keeps a transaction whose COMMIT failed open, as it does on a deferred foreign key
// that still fails.
func TestAFailedCommitLeavesNoTransactionOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, testdb.SQLite(t))
	err := s.Write(ctx, func(tx *store.Tx) error {
		if err := store.ExecForTest(ctx, tx, "PRAGMA defer_foreign_keys = ON"); err != nil {
			return err
		}
		return store.ExecForTest(ctx, tx, "INSERT INTO yield_transactions (id, action_id, step_index, status, body, updated_at) VALUES ('t', 'no such action', 0, 'CREATED', '{}', 0)")
	})
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Fatalf("the write with a dangling foreign key committed: %v", err)
	}
	if err := s.Write(ctx, func(tx *store.Tx) error {
		n, err := store.QueryIntForTest(ctx, tx, "SELECT count(*) FROM yield_transactions")
		if err == nil && n != 0 {
			err = fmt.Errorf("%d rows of the failed commit are there", n)
		}
		return err
	}); err != nil {
		t.Fatalf("the write after a failed commit: %v", err)
	}
}

// A write whose transaction cannot begin is answered with the error, and the writes after it go on: here another
// process holds the database's write lock for longer than the writer waits for it.
func TestAWriteThatCannotBeginIsAnswered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testdb.SQLite(t)
	s := open(t, b)
	if err := s.Write(ctx, func(tx *store.Tx) error { return store.ExecForTest(ctx, tx, "PRAGMA busy_timeout = 50") }); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	holder, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	insert := func(tx *store.Tx) error {
		_, err := tx.InsertActivity(ctx, store.Activity{ID: "a", OrgID: "o", Fingerprint: "f", Type: "T", Status: "S", Record: []byte(`{}`)})
		return err
	}
	if err := s.Write(ctx, insert); err == nil || !strings.Contains(err.Error(), "begin") {
		t.Fatalf("a write while another process held the write lock: %v", err)
	}
	if _, err := holder.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	holder.Close()
	if err := s.Write(ctx, insert); err != nil {
		t.Fatalf("the write once the lock was free: %v", err)
	}
}
