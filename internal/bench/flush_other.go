//go:build !linux

package bench

import "os"

// flush makes f's data durable as the store syncs its log off Linux: os.File.Sync, F_FULLFSYNC on macOS and
// FlushFileBuffers on Windows.
func flush(f *os.File) error { return f.Sync() }
