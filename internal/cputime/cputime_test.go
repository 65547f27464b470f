package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/cputime"
)

// Work done on this thread counts in both the thread's and the process's CPU time; waiting counts in neither.
func TestCountsWorkNotWaiting(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	process, thread := cputime.Start(), cputime.Thread()
	for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
	}
	if got := cputime.Thread() - thread; got < 15*time.Millisecond {
		t.Errorf("30 ms of work counted %v on the thread", got)
	}
	if got := process.PerOp(1); got < 15_000 {
		t.Errorf("30 ms of work counted %.0f µs in the process", got)
	}
	waiting := cputime.Thread()
	time.Sleep(30 * time.Millisecond)
	if got := cputime.Thread() - waiting; got > 10*time.Millisecond {
		t.Errorf("30 ms asleep counted %v on the thread", got)
	}
}
