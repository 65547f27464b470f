package stack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait is how long a start waits for a lock held a moment longer than its stack: a process forked elsewhere in
// this one (a command run with exec) shares the lock's open file until it has exec'd, so a stack closed and started
// again at once can find its own lock still held for an instant.
const lockWait = time.Second

// flockSoon takes the file's exclusive lock, waiting up to lockWait while another holds it.
func flockSoon(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LockFile is the file in a data directory that a running sigil up holds locked.
const LockFile = "lock"

// lockDir takes the data directory for this process before anything in it is written: a second sigil up on the same
// directory is refused and changes nothing (it would otherwise have rewritten bootstrap.json with its own ports). The
// lock is an flock, so it goes with the process, however the process ends; Close releases it.
func (s *Stack) lockDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := flockSoon(f); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("stack: %s is in use by another sigil up (it holds %s); stop it, or give this one another --dir", dir, path)
		}
		return fmt.Errorf("stack: lock %s: %w", path, err)
	}
	s.onClose("data directory lock", f.Close)
	return nil
}
