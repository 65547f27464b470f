package cputime

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// getThreadTimes is kernel32's GetThreadTimes, which golang.org/x/sys/windows does not wrap.
var getThreadTimes = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetThreadTimes")

func processTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		panic(err)
	}
	return filetimes(kernel, user)
}

func threadTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	ok, _, err := getThreadTimes.Call(uintptr(windows.CurrentThread()), uintptr(unsafe.Pointer(&creation)),
		uintptr(unsafe.Pointer(&exit)), uintptr(unsafe.Pointer(&kernel)), uintptr(unsafe.Pointer(&user)))
	if ok == 0 {
		panic(err)
	}
	return filetimes(kernel, user)
}

// filetimes adds two durations counted in FILETIME's 100 ns ticks.
func filetimes(a, b windows.Filetime) time.Duration {
	ticks := func(t windows.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration(ticks(a)+ticks(b)) * 100
}
