package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// flushPause is the idle time between two measured flushes: about what one client leaves between two commits. A disk
// behind a hypervisor flushes faster back to back than after a pause (docs/BENCHMARKS.md), and a single client's
// commits come after a pause.
const flushPause = 500 * time.Microsecond

// flushTime is how long the disk takes to make one small write durable: a 4 KiB page written in place in a file of
// dir and flushed (flush), as the store syncs a commit's frames, n times with a pause between. Every activity is answered
// only after such a flush (internal/store/durable.go), so its p50 is part of the floor under a single client's latency on this
// machine, however little else the server does.
func flushTime(dir string, n int) (p50, p90 time.Duration, err error) {
	f, err := os.CreateTemp(dir, "flush-probe-")
	if err != nil {
		return 0, 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	page := make([]byte, 4096)
	// Allocated and synced first, so that the measured flushes change data alone, as a commit into SQLite's
	// preallocated log does, and not the file's size.
	if _, err := f.WriteAt(make([]byte, 16*len(page)), 0); err != nil {
		return 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, 0, err
	}
	took := make([]time.Duration, n)
	for i := range took {
		page[0] = byte(i)
		if _, err := f.WriteAt(page, int64(i%16*len(page))); err != nil {
			return 0, 0, err
		}
		start := time.Now()
		if err := flush(f); err != nil {
			return 0, 0, fmt.Errorf("bench: flush probe in %s: %w", filepath.Dir(f.Name()), err)
		}
		took[i] = time.Since(start)
		time.Sleep(flushPause)
	}
	slices.Sort(took)
	return took[n/2], took[n*9/10], nil
}
