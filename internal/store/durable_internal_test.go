package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A read waits, once it has read, for the sync of every commit begun before: no one is shown a commit that a power
// loss could take back. A failed sync releases readers and refuses every later sync.
func TestReadsWaitForTheSyncOfWhatTheySee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "sigil.db")
		if err := os.WriteFile(db, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(db+"-wal", []byte("frames"), 0o600); err != nil {
			t.Fatal(err)
		}
		d := newDurability(db)
		defer d.close()
		d.awaitRead() // nothing committed: returns at once

		seq := d.begin()
		done := make(chan struct{})
		go func() { d.awaitRead(); close(done) }()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("a read returned before the commit it may have seen was synced")
		default:
		}
		if err := d.sync(seq); err != nil {
			t.Fatal(err)
		}
		<-done

		d.begin()
		released := make(chan struct{})
		go func() { d.awaitRead(); close(released) }()
		synctest.Wait()
		if err := os.Remove(db + "-wal"); err != nil { // the open log deleted...
			t.Fatal(err)
		}
		d.wal.path = filepath.Join(db, "wal") // ...and its path under a regular file: the log cannot be found
		if err := d.sync(seq + 1); err == nil {
			t.Fatal("a sync of a log that cannot be found succeeded")
		}
		<-released
		d.wal.path = db + "-wal"
		if d.sync(seq+1) == nil {
			t.Fatal("a sync after a failed one succeeded: the failure must stick")
		}
	})
}

// A sync is made as a raw system call until one is slower than slowSync; then the next ones go through the scheduler
// for a while. Either way a failed sync is reported.
func TestSlowSyncsGoThroughTheScheduler(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sigil.db")
	if err := os.WriteFile(db+"-wal", []byte("frames"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := newDurability(db)
	defer d.close()
	d.slowSync = time.Hour // every sync is fast, however busy the disk: the test does not time the disk
	if err := d.sync(1); err != nil {
		t.Fatal(err)
	}
	if !d.scheduledUntil.IsZero() {
		t.Fatalf("a sync faster than %v sent later ones through the scheduler", d.slowSync)
	}
	if err := d.fdatasyncOnce(^uintptr(0)); err != syscall.EBADF {
		t.Fatalf("a raw sync of no file: %v, want EBADF", err)
	}

	d.slowSync = 0 // every sync is slow
	if err := d.sync(2); err != nil {
		t.Fatal(err)
	}
	if !time.Now().Before(d.scheduledUntil) {
		t.Fatal("a slow sync did not send the next ones through the scheduler")
	}
	if err := d.sync(3); err != nil {
		t.Fatal(err)
	}
	if err := d.fdatasyncOnce(^uintptr(0)); err != syscall.EBADF {
		t.Fatalf("a scheduled sync of no file: %v, want EBADF", err)
	}
	if d.synced.Load() != 3 {
		t.Fatalf("synced up to %d, want 3", d.synced.Load())
	}
}

// The syncer syncs the log file at the path, and the writer starts the writing of the file at the path: when SQLite
// deletes the log it has open (its last connection closed) and creates another, the next sync, and the next start of
// its writing, open the new one; with none there, there is nothing to sync or write.
func TestSyncFollowsTheLogFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sigil.db")
	wal := db + "-wal"
	if err := os.WriteFile(wal, []byte("frames"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := newDurability(db)
	defer d.close()
	if err := d.sync(1); err != nil {
		t.Fatal(err)
	}
	first := d.wal.f
	if d.startWriteback(); d.written.f == nil {
		t.Fatal("the writer did not open the log file")
	}

	if err := os.Remove(wal); err != nil {
		t.Fatal(err)
	}
	if err := d.sync(2); err != nil {
		t.Fatalf("a sync with the log deleted and none new: %v", err)
	}
	if d.wal.f != nil {
		t.Fatal("the deleted log is still the one synced")
	}
	d.startWriteback()
	if d.written.f != nil {
		t.Fatal("the deleted log is still the one written")
	}

	if err := os.WriteFile(wal, []byte("new frames"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.sync(3); err != nil {
		t.Fatal(err)
	}
	open, err := d.wal.f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	current, err := os.Stat(wal)
	if err != nil {
		t.Fatal(err)
	}
	if d.wal.f == first || !os.SameFile(open, current) {
		t.Fatal("the sync did not open the new log file")
	}
	d.startWriteback()
	if written, err := d.written.f.Stat(); err != nil || !os.SameFile(written, current) {
		t.Fatalf("the writer did not open the new log file: %v", err)
	}
	if d.synced.Load() != 3 {
		t.Fatalf("synced up to %d, want 3", d.synced.Load())
	}
}
