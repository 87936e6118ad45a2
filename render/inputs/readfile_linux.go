package inputs

import (
	"os"
	"syscall"
)

// On Linux, os.Open makes five system calls besides the open: it puts the
// descriptor in non-blocking mode (fcntl twice), asks the poller to take
// it (epoll_ctl, which the kernel refuses for a regular file) and puts it
// back in blocking mode (fcntl twice). Load opens some 16,000 files for a
// site of 1,000 reports (os.ReadDir, for directories, makes none of them).

// sysOpen opens name for reading (close-on-exec), retrying when a signal
// interrupts the call, as os.Open does.
func sysOpen(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			if err != nil {
				return -1, &os.PathError{Op: "open", Path: name, Err: err}
			}
			return fd, nil
		}
	}
}

// OpenFile is os.Open for a file or directory read in blocking mode: the
// descriptor is not offered to the poller (os.NewFile, one fcntl, instead
// of os.Open's five calls). Errors and the File's methods are os.Open's.
func OpenFile(name string) (*os.File, error) {
	fd, err := sysOpen(name)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// ReadInto appends the bytes of the file name to buf: open, read until a
// read returns nothing, close, retrying a call EINTR interrupts, as
// os.ReadFile does but without its fstat and the calls OpenFile spares.
// Errors are os.ReadFile's: &os.PathError{Op: "open" or "read", Path: name}.
func ReadInto(name string, buf []byte) ([]byte, error) {
	fd, err := sysOpen(name)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = grow(buf)
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
