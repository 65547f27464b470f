package testmem

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

const canLimit = true

// limitAddressSpace sets RLIMIT_AS to the address space the process maps now plus limit: a mapping past it fails,
// which the Go runtime reports as a fatal out of memory. The runtime reserves over a GiB of address space at start,
// which it never touches, so the cap is counted from what is mapped already.
func limitAddressSpace(limit uint64) error {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return err
	}
	fields := strings.Fields(string(statm))
	if len(fields) == 0 {
		return fmt.Errorf("/proc/self/statm: %q", statm)
	}
	pages, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil {
		return fmt.Errorf("/proc/self/statm: %v", err)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return err
	}
	rl.Cur = min(pages*uint64(os.Getpagesize())+limit, rl.Max)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &rl)
}
