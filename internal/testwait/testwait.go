// Package testwait waits, in tests, for something that happens in another goroutine or process: a condition polled
// until it holds, with a deadline generous enough for a loaded 2-core machine, so that no test depends on how fast
// the machine is. A test that waits this way never waits longer than it must.
package testwait

import (
	"testing"
	"time"
)

// Deadline is how long Until waits before it fails the test.
const Deadline = time.Minute

// Until calls cond until it returns true, and fails the test if it has not within Deadline. It polls often at first
// and then every 20 ms.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(Deadline, cond) {
		t.Fatalf("waited %v for %s", Deadline, what)
	}
}

// Within calls cond until it returns true or d has passed, and reports whether it did.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		timer := time.NewTimer(pause)
		<-timer.C
	}
}
