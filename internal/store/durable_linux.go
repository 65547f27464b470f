package store

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux a sync is made without handing the goroutine's P back to the scheduler (syncOnce) unless such syncs have
// lately taken longer than slowSync on average: then, for scheduledSyncs, syncs go through the scheduler as any
// system call does.
const (
	slowSync       = 2 * time.Millisecond
	scheduledSyncs = 10 * time.Second
)

// logSync is what the syncs of the log remember of the recent ones.
type logSync struct {
	slowSync       time.Duration // slowSync; tests change it
	rawSyncTime    time.Duration // the recent raw syncs' mean time, weighted towards the latest
	scheduledUntil time.Time     // syncs go through the scheduler until then
}

func newLogSync() logSync { return logSync{slowSync: slowSync} }

func openLog(path string) (*os.File, error) { return os.Open(path) }

// syncLog makes the log's frames durable with fdatasync, which flushes the device's write cache as well.
func (d *durability) syncLog(wal *os.File) error {
	for {
		if err := d.fdatasyncOnce(wal.Fd()); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// fdatasyncOnce syncs fd keeping the goroutine's P: as a raw system call, which the scheduler does not see. A system
// call made the ordinary way gives the P up once it blocks for more than a few microseconds, and on its return the
// goroutine queues for a P behind every runnable one: under load, behind the requests' cryptography. Beside eight
// busy goroutines that took a sync's p90 from 0.18 ms to 0.87 ms (docs/BENCHMARKS.md). Every write waits for this
// goroutine, so it should not queue.
//
// Holding the P has a cost: a stop-the-world of the collector waits for the sync to end. That is nothing next to a
// sync of a fraction of a millisecond, but not on a slow disk: when syncs take longer than slowSync on average (one
// slow sync now and then is not enough), the next ones go through the scheduler for a while, then are tried again.
func (d *durability) fdatasyncOnce(fd uintptr) error {
	start := time.Now()
	if start.Before(d.scheduledUntil) {
		return syscall.Fdatasync(int(fd))
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_FDATASYNC, fd, 0, 0)
	d.rawSyncTime += (time.Since(start) - d.rawSyncTime) / 8
	if d.rawSyncTime > d.slowSync {
		d.scheduledUntil = time.Now().Add(scheduledSyncs)
		d.rawSyncTime = 0
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// startWriteback starts writing the frames of the commit that has just returned to the disk, without waiting for
// them. Called by the writer right after its COMMIT, it lets the device write the frames while the group is handed
// to the syncer and the syncer waits for a core; the sync then finds them written or on their way and has only to
// wait for them and flush the disk's cache: one device round trip, and one wake-up of the syncing thread, instead of
// two of each (docs/BENCHMARKS.md). It is a hint and nothing else: whether it fails or not, the sync writes whatever
// is still unwritten, and an error writing the pages reaches the sync, which reports it.
func (d *durability) startWriteback() {
	if wal, err := d.written.open(); err == nil && wal != nil {
		_ = unix.SyncFileRange(int(wal.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	}
}

// unlinked reports whether an open file has been deleted, or cannot be told not to have been.
//
// It asks the kernel for the link count alone. A stat that returns the file's times marks them as seen, and Linux
// (6.13 on, multigrain timestamps) then gives the next write a fresh fine-grained mtime instead of the clock's coarse
// tick, so every commit would change the log's inode. Where fdatasync writes a changed inode (ext4 without a journal)
// that is one more device write, waited for, in every sync (docs/BENCHMARKS.md). Kernels without statx get fstat.
func unlinked(f *os.File) bool {
	fd := int(f.Fd())
	var stx unix.Statx_t
	err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_NLINK, &stx)
	if err == nil && stx.Mask&unix.STATX_NLINK != 0 {
		return stx.Nlink == 0
	}
	if err != nil && !errors.Is(err, unix.ENOSYS) {
		return true
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return true
	}
	return st.Nlink == 0
}
