//go:build unix && !linux

package store

import (
	"os"
	"syscall"
)

// logSync: these platforms keep nothing between syncs.
type logSync struct{}

func newLogSync() logSync { return logSync{} }

func openLog(path string) (*os.File, error) { return os.Open(path) }

// syncLog makes the log's frames durable with os.File.Sync: fcntl(F_FULLFSYNC) on macOS (fsync where the file system
// has no F_FULLFSYNC, as on a network share), fsync elsewhere.
func (d *durability) syncLog(wal *os.File) error { return wal.Sync() }

// startWriteback: there is no call to start the writing of a range without waiting for it here; the sync writes it.
func (d *durability) startWriteback() {}

// unlinked reports whether an open file has been deleted, or cannot be told not to have been.
func unlinked(f *os.File) bool {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return true
	}
	return st.Nlink == 0
}
