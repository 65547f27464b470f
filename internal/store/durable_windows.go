package store

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// logSync: Windows keeps nothing between syncs.
type logSync struct{}

func newLogSync() logSync { return logSync{} }

// openLog opens the log for writing, as FlushFileBuffers needs, though nothing is written through it, and shares its
// deletion: SQLite deletes the log when its last connection closes, which a handle that did not share it would make
// fail.
func openLog(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING,
		windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// syncLog makes the log's frames durable with os.File.Sync, which is FlushFileBuffers: it writes the file's data and
// metadata and flushes the device's write cache.
func (d *durability) syncLog(wal *os.File) error { return wal.Sync() }

// startWriteback: Windows has no call to start the writing of a range without waiting for it; the sync writes it.
func (d *durability) startWriteback() {}

// fileStandardInfo is Windows' FILE_STANDARD_INFO.
type fileStandardInfo struct {
	AllocationSize, EndOfFile int64
	NumberOfLinks             uint32
	DeletePending, Directory  bool
}

// unlinked reports whether an open file has been deleted (or is to be once its last handle closes), or cannot be
// told not to have been.
func unlinked(f *os.File) bool {
	var info fileStandardInfo
	err := windows.GetFileInformationByHandleEx(windows.Handle(f.Fd()), windows.FileStandardInfo,
		(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err != nil || info.DeletePending || info.NumberOfLinks == 0
}
