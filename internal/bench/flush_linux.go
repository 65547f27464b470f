package bench

import (
	"os"
	"syscall"
)

// flush makes f's data durable as the store syncs its log on Linux: fdatasync.
func flush(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
