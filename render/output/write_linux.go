package output

import (
	"io"
	"os"
	"syscall"
)

// WriteFile writes data into a new file at name (mode 0644 less the
// umask), as os.WriteFile does, with the three system calls it takes:
// open, write and close. os.WriteFile also registers every file with the
// runtime's poller (an epoll_ctl that fails for a regular file) and
// allocates an *os.File with a finalizer; for the 4,000 files of a
// 1,000-report site that was a tenth of writing them. Errors read as
// os.WriteFile's (*os.PathError with the operation and the name).
func WriteFile(name string, data []byte) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	// close(2) is not retried on EINTR: Linux releases the descriptor
	// whatever it returns.
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// MakeDir creates the directory name, and its parents when they are
// missing, as os.MkdirAll does; where the parent exists (every report's
// directory after the first of its model) that is one mkdir(2), not
// MkdirAll's stat of name and of its parent first. Any failure is
// MkdirAll's to report.
func MakeDir(name string) error {
	for {
		err := syscall.Mkdir(name, 0o755)
		if err == nil {
			return nil
		}
		if err != syscall.EINTR {
			return os.MkdirAll(name, 0o755)
		}
	}
}
