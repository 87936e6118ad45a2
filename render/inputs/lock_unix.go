//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package inputs

import (
	"os"
	"syscall"
)

// holdMarker takes an exclusive lock on a build's marker (flock), held
// until the marker is closed (or the process ends, killed or not): the
// marker of a build still running is never taken for an interrupted
// build's (staleMarker).
func holdMarker(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// staleMarker reports whether the marker at path is no running build's:
// nobody holds its lock.
func staleMarker(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
