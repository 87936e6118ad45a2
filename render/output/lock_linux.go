package output

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Lock waits for, then holds, an exclusive lock on the directory that
// holds out (flock(2) on the directory itself: no lock file is left
// beside the site), so that two builds writing out (two perflab build,
// or perflab serve and perflab build) take turns. Without it a build
// that recorded out in its manifest after another build's swap recorded
// the other build's files under its own sums, and a later build trusted
// them. Where the lock cannot be taken the build goes on without it.
func Lock(out string) (unlock func()) {
	d, err := os.Open(filepath.Dir(out))
	if err != nil {
		return func() {}
	}
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return func() {}
	}
	// Holding the lock, no build is between its MakeBuildDir and its swap:
	// a build directory beside out is a killed build's (SIGKILL, a crash,
	// the OOM killer), which nothing else would remove.
	RemoveLeftovers(out)
	return sync.OnceFunc(func() { d.Close() }) // closing the descriptor releases the lock
}
