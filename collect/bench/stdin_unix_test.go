//go:build unix

package bench

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin is stdin read through Go's network poller. A plain
// os.Stdin read is a blocking syscall that keeps the paced server's only
// P (the server is pinned to one CPU) while the server is otherwise idle:
// the connections' readiness then waits for sysmon, 10–20 ms, which
// showed as ~18 ms of every request's TTFT after the server's "reset".
func pollableStdin() io.Reader {
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "stdin")
}

// voluntaryCSW is how many times this process's threads have gone to
// sleep (voluntary context switches): the wakeups a client pays for,
// counted by the kernel, unlike CPU time unmoved by other load.
func voluntaryCSW() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Nvcsw)
}
