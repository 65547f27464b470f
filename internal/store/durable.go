package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A sync is made without handing the goroutine's P back to the scheduler (fdatasyncOnce) unless such syncs have lately
// taken longer than slowSync on average: then, for scheduledSyncs, syncs go through the scheduler as any system call
// does.
const (
	slowSync       = 2 * time.Millisecond
	scheduledSyncs = 10 * time.Second
)

// durability keeps SQLite's commits and the syncs that make them durable apart, so that the writer can run the next
// group of transactions while the previous one is synced (group.go).
//
// The writer connection commits with synchronous=NORMAL: a commit appends its frames to the write-ahead log and makes
// them visible, without syncing the log. Making them durable is the syncer's job (or a lone write's caller's, group.go):
// one fdatasync of the log file covers every frame written before it began, so each group is answered only after a
// sync that began once its COMMIT had returned. That is what synchronous=FULL does inside COMMIT, moved after it, where
// the next group's statements can run meanwhile; the rest is SQLite's own
// NORMAL behaviour, documented as keeping the database consistent across a power loss: the log is synced before each
// checkpoint, the database file after it, and the log's header when the log starts over. A commit is durable once its
// frames are synced, under both settings, as a checkpoint never copies a frame that is not.
//
// Readers see a commit as soon as it is made, before its sync. So that no one is shown what a power loss could
// still take back, every read through the read pool waits, once it has read, until every commit begun before then is
// synced (awaitRead); reads inside write transactions need not, their own commit's sync covers what they read.
type durability struct {
	wal     logFile // the log that is synced; only the holder of the syncing token touches it (group.go)
	written logFile // the same log, whose writing the writer starts (startWriteback); only the holder of the turn touches it

	slowSync       time.Duration // slowSync; tests change it
	rawSyncTime    time.Duration // the recent raw syncs' mean time, weighted towards the latest; as wal
	scheduledUntil time.Time     // syncs go through the scheduler until then; as wal

	begun  atomic.Int64 // commits begun: counted before COMMIT, so before any reader can see the commit
	synced atomic.Int64 // every commit up to this count is durable
	failed atomic.Pointer[error]

	mu      sync.Mutex
	changed *sync.Cond // synced advanced, or a sync failed
}

func newDurability(dbPath string) *durability {
	d := &durability{wal: logFile{path: dbPath + "-wal"}, written: logFile{path: dbPath + "-wal"}, slowSync: slowSync}
	d.changed = sync.NewCond(&d.mu)
	return d
}

// begin counts a commit about to be made and returns its number.
func (d *durability) begin() int64 { return d.begun.Add(1) }

// sync makes durable every commit that returned before it was called, up to commit number upTo.
func (d *durability) sync(upTo int64) error {
	if errp := d.failed.Load(); errp != nil {
		return *errp
	}
	err := d.fdatasync()
	if err != nil {
		// The kernel may have dropped the pages it could not write and marked them clean: a later sync would succeed
		// without making them durable. No write is answered as durable after this (group.go refuses them), and the
		// process must be restarted, as PostgreSQL does after a failed fsync.
		err = fmt.Errorf("store: sync the write-ahead log: %w (restart the process: no further write is accepted)", err)
		d.failed.Store(&err)
	} else {
		d.synced.Store(upTo)
	}
	d.mu.Lock()
	d.changed.Broadcast()
	d.mu.Unlock()
	return err
}

// fdatasync syncs the log file, as SQLite would in COMMIT under synchronous=FULL: the file at the path (logFile.open),
// as each commit wrote to the file at the path when it was made, and a file deleted since was checkpointed into the
// database file and the database synced first. With none there, nothing is left to sync.
func (d *durability) fdatasync() error {
	wal, err := d.wal.open()
	if err != nil || wal == nil {
		return err
	}
	for {
		if err := d.fdatasyncOnce(wal.Fd()); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
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

// logFile is the write-ahead log at a path, kept open between uses.
type logFile struct {
	path string
	f    *os.File // nil until the log exists: it does once the first transaction has committed
}

// open returns the log file at the path, nil when there is none. It opens the file again when SQLite has deleted the
// one open (when its last connection closed; a new one is created on the next write). While the open file is still
// linked, no path is looked up: one statx a call.
func (l *logFile) open() (*os.File, error) {
	if l.f != nil && unlinked(l.f) {
		l.f.Close()
		l.f = nil
	}
	if l.f == nil {
		f, err := os.Open(l.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		l.f = f
	}
	return l.f, nil
}

func (l *logFile) close() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
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

// awaitRead returns once every commit begun so far is durable, or syncing has failed.
func (d *durability) awaitRead() {
	target := d.begun.Load()
	if d.synced.Load() >= target {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.synced.Load() < target && d.failed.Load() == nil {
		d.changed.Wait()
	}
}

func (d *durability) close() {
	d.wal.close()
	d.written.close()
}

// durableRow is a read's row; its Scan returns once what it read is durable.
type durableRow struct {
	*sql.Row
	d *durability
}

func (r durableRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if r.d != nil {
		r.d.awaitRead()
	}
	return err
}

// durableRows are a read's rows; closing them returns once what they read is durable. Every reader closes its rows
// (deferred) before it returns what it read.
type durableRows struct {
	*sql.Rows
	d *durability
}

func (r durableRows) Close() error {
	err := r.Rows.Close()
	if r.d != nil {
		r.d.awaitRead()
	}
	return err
}

// rowScanner is what the functions that collect rows read: a read's durableRows, or a transaction's *sql.Rows.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}
