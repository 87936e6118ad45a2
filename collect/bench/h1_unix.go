//go:build unix

package bench

import (
	"os"
	"syscall"

	"github.com/perflab/perflab/collect/sse"
)

// h1Supported: h1Client reads sockets with read(2) itself (h1Conn.stream).
const h1Supported = true

// rawRead is one read(2) of the non-blocking socket fd; no data yet is
// sse.ErrWouldBlock.
func rawRead(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, sse.ErrWouldBlock
		default:
			return 0, os.NewSyscallError("read", err)
		}
	}
}
