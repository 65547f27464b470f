package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// durability keeps SQLite's commits and the syncs that make them durable apart, so that the writer can run the next
// group of transactions while the previous one is synced (group.go).
//
// The writer connection commits with synchronous=NORMAL: a commit appends its frames to the write-ahead log and makes
// them visible, without syncing the log. Making them durable is the syncer's job (or a lone write's caller's, group.go):
// one sync of the log file covers every frame written before it began, so each group is answered only after a
// sync that began once its COMMIT had returned. That is what synchronous=FULL does inside COMMIT, moved after it, where
// the next group's statements can run meanwhile; the rest is SQLite's own
// NORMAL behaviour, documented as keeping the database consistent across a power loss: the log is synced before each
// checkpoint, the database file after it, and the log's header when the log starts over. A commit is durable once its
// frames are synced, under both settings, as a checkpoint never copies a frame that is not.
//
// The sync that makes frames durable is the platform's (durable_*.go), each one that returns once the device has
// written them to stable storage, not only been handed them: on Linux fdatasync, which flushes the device's write
// cache; on macOS fcntl(F_FULLFSYNC), as fsync there leaves the frames in the drive's cache, with SQLite's own syncs
// (before and after a checkpoint, of the log's header) made full too (PRAGMA fullfsync, sqliteDSN), else a checkpoint
// could be lost from the drive's cache after the log that held its frames had started over; on Windows
// FlushFileBuffers, which SQLite's own syncs use too. The argument is then the same everywhere: a frame is durable
// once a sync of the log that began after its commit has returned.
//
// Readers see a commit as soon as it is made, before its sync. So that no one is shown what a power loss could
// still take back, every read through the read pool waits, once it has read, until every commit begun before then is
// synced (awaitRead); reads inside write transactions need not, their own commit's sync covers what they read.
type durability struct {
	wal     logFile // the log that is synced; only the holder of the syncing token touches it (group.go)
	written logFile // the same log, whose writing the writer starts (startWriteback); only the holder of the turn touches it
	logSync         // the platform's state of the syncs of wal; as wal

	begun  atomic.Int64 // commits begun: counted before COMMIT, so before any reader can see the commit
	synced atomic.Int64 // every commit up to this count is durable
	failed atomic.Pointer[error]

	mu      sync.Mutex
	changed *sync.Cond // synced advanced, or a sync failed
}

func newDurability(dbPath string) *durability {
	d := &durability{wal: logFile{path: dbPath + "-wal"}, written: logFile{path: dbPath + "-wal"}, logSync: newLogSync()}
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
	err := d.syncWAL()
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

// syncWAL syncs the log file, as SQLite would in COMMIT under synchronous=FULL: the file at the path (logFile.open),
// as each commit wrote to the file at the path when it was made, and a file deleted since was checkpointed into the
// database file and the database synced first. With none there, nothing is left to sync.
func (d *durability) syncWAL() error {
	wal, err := d.wal.open()
	if err != nil || wal == nil {
		return err
	}
	return d.syncLog(wal)
}

// logFile is the write-ahead log at a path, kept open between uses.
type logFile struct {
	path string
	f    *os.File // nil until the log exists: it does once the first transaction has committed
}

// open returns the log file at the path, nil when there is none. It opens the file again when SQLite has deleted the
// one open (when its last connection closed; a new one is created on the next write). While the open file is still
// linked, no path is looked up (unlinked asks of the open file).
func (l *logFile) open() (*os.File, error) {
	if l.f != nil && unlinked(l.f) {
		l.f.Close()
		l.f = nil
	}
	if l.f == nil {
		f, err := openLog(l.path)
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
