package output

import (
	"errors"
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
	return writeFile(name, data, syscall.O_TRUNC)
}

// replaceFile writes data into a new file at name, removing first what
// name held (a file, or a directory and all it holds): never through
// it, for a file of a retained tree may be a link of a file of the
// live site (retain.go).
func replaceFile(name string, data []byte) error {
	err := writeFile(name, data, syscall.O_EXCL)
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || pe.Err != syscall.EEXIST {
		return err
	}
	if err := removePath(name); err != nil {
		return err
	}
	return writeFile(name, data, syscall.O_EXCL)
}

// removePath removes the file or the directory tree at name, which need
// not exist.
func removePath(name string) error {
	err := syscall.Unlink(name)
	if err == nil || err == syscall.ENOENT {
		return nil
	}
	if err == syscall.EISDIR || err == syscall.EPERM {
		return os.RemoveAll(name)
	}
	return &os.PathError{Op: "unlink", Path: name, Err: err}
}

// writeFile is WriteFile, opening name with O_CREAT and mode (O_TRUNC or
// O_EXCL).
func writeFile(name string, data []byte, mode int) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|mode|syscall.O_CLOEXEC, 0o644)
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
