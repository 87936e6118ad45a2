//go:build unix

package render

import (
	"syscall"
	"time"
)

// processCPU is the user and system time the process has used (every
// thread: the garbage collector's too), for benchmarks to report beside
// wall time on a shared machine.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
