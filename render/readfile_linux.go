package render

import (
	"os"
	"syscall"
)

// readInto appends the bytes of the file name to buf: open, read until a
// read returns nothing, close, retrying a call EINTR interrupts, as
// os.ReadFile does but without its poller registration and fstat. Errors
// are os.ReadFile's: &os.PathError{Op: "open" or "read", Path: name}.
func readInto(name string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
