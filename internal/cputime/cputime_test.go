package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/cputime"
)

const work = 20 * time.Millisecond

// Work done on this thread counts in both the thread's and the process's CPU time; waiting counts in neither. No bound
// here depends on the machine's speed or load: the work runs until the thread's own clock has counted it, however long
// that takes on a busy machine, and the waiting is for another thread's work, not for a span of wall time.
func TestCountsWorkNotWaiting(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	process := cputime.Start()
	busy(t, work)
	if got := process.PerOp(1); got < float64(work.Microseconds()) {
		t.Errorf("%v of work on a thread counted %.0f µs in the process", work, got)
	}

	waiting := cputime.Thread()
	done := make(chan struct{})
	go func() { // on another thread: this one is locked, and blocked below
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		busy(t, work)
	}()
	<-done
	if got := cputime.Thread() - waiting; got >= work/2 {
		t.Errorf("waiting for %v of another thread's work counted %v on the waiting thread", work, got)
	}
}

// busy keeps the calling thread working until its CPU time has grown by d. A thread clock that does not count work
// never gets there, and the test fails after a minute.
func busy(t *testing.T, d time.Duration) {
	deadline := time.Now().Add(time.Minute)
	for start := cputime.Thread(); cputime.Thread()-start < d; {
		if time.Now().After(deadline) {
			t.Errorf("a minute of work counted less than %v of thread CPU time", d)
			return
		}
	}
}
