package testwait_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/testwait"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var calls atomic.Int32
	testwait.Until(t, "the third call", func() bool { return calls.Add(1) == 3 })
	if calls.Load() != 3 {
		t.Errorf("the condition was called %d times after it held", calls.Load())
	}
}

func TestWithinGivesUp(t *testing.T) {
	var calls atomic.Int32
	if testwait.Within(time.Millisecond, func() bool { calls.Add(1); return false }) {
		t.Fatal("a condition that never holds was reported to")
	}
	if calls.Load() == 0 {
		t.Error("the condition was never called")
	}
}
