package stack

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lockWait is how long a start waits for a lock held a moment longer than its stack: a process forked elsewhere in
// this one (a command run with exec) shares the lock's open file until it has exec'd, so a stack closed and started
// again at once can find its own lock still held for an instant.
const lockWait = time.Second

// lockSoon takes the file's exclusive lock, waiting up to lockWait while another holds it. It reports whether it took
// it.
func lockSoon(l *flock.Flock) (bool, error) {
	deadline := time.Now().Add(lockWait)
	for {
		locked, err := l.TryLock()
		if locked || err != nil || time.Now().After(deadline) {
			return locked, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LockFile is the file in a data directory that a running sigil up holds locked.
const LockFile = "lock"

// lockDir takes the data directory for this process before anything in it is written: a second sigil up on the same
// directory is refused and changes nothing (it would otherwise have rewritten bootstrap.json with its own ports). The
// lock is the system's (flock on Unix, LockFileEx on Windows), so it goes with the process, however the process ends;
// Close releases it.
func (s *Stack) lockDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, LockFile)
	l := flock.New(path, flock.SetFlag(os.O_RDWR|os.O_CREATE), flock.SetPermissions(0o600))
	locked, err := lockSoon(l)
	if err != nil {
		return fmt.Errorf("stack: lock %s: %w", path, err)
	}
	if !locked {
		return fmt.Errorf("stack: %s is in use by another sigil up (it holds %s); stop it, or give this one another --dir", dir, path)
	}
	s.onClose("data directory lock", l.Close)
	return nil
}
