//go:build unix

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

func processTime() time.Duration { return clock(unix.CLOCK_PROCESS_CPUTIME_ID) }

func threadTime() time.Duration { return clock(unix.CLOCK_THREAD_CPUTIME_ID) }

// clock reads a CPU-time clock, which every Unix Go runs on has (macOS since 10.12).
func clock(id int32) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		panic(err) // only for a clock the system lacks
	}
	return time.Duration(ts.Nano())
}
