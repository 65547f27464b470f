package store

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
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
		d.walPath = filepath.Join(db, "wal") // under a regular file: the log cannot be found
		if err := d.sync(seq + 1); err == nil {
			t.Fatal("a sync of a log that cannot be found succeeded")
		}
		<-released
		d.walPath = db + "-wal"
		if d.sync(seq+1) == nil {
			t.Fatal("a sync after a failed one succeeded: the failure must stick")
		}
	})
}
