//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package buildcache

import "os"

// lockFile: without flock, no build appends to a pack (each writes a
// new one, as when the lock is held by another).
func lockFile(*os.File) bool { return false }

// staleTemp: without flock every temporary is taken for a killed build's.
func staleTemp(string) bool { return true }
