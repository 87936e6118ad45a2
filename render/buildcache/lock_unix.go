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
