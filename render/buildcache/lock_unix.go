//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package buildcache

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting (flock),
// released when f is closed: one build at a time appends to a pack.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// staleTemp reports whether the temporary file at path is no running
// build's: nobody holds its lock (a build holds its temporaries' locks
// until they are renamed into place, startNew and replaceIndex; a killed
// build's are released with its process).
func staleTemp(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return lockFile(f)
}
