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
	// Work until the thread has 30 ms of CPU time, however long a busy machine takes to give it that; the process has
	// at least as much.
	process, thread := cputime.Start(), cputime.Thread()
	for giveUp := time.Now().Add(time.Minute); cputime.Thread()-thread < 30*time.Millisecond; {
		if time.Now().After(giveUp) {
			t.Fatalf("a minute of work counted %v on the thread", cputime.Thread()-thread)
		}
	}
	if got := process.PerOp(1); got < 30_000 {
		t.Errorf("30 ms of the thread's work counted %.0f µs in the process", got)
	}
	waiting := cputime.Thread()
	time.Sleep(30 * time.Millisecond)
	if got := cputime.Thread() - waiting; got > 10*time.Millisecond {
		t.Errorf("30 ms asleep counted %v on the thread", got)
	}
}
