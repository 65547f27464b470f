package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// hintsWriteback: Linux starts the writing of a commit's frames before the sync (startWriteback).
const hintsWriteback = true

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
