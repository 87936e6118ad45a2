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
