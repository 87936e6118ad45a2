//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package inputs

import "os"

// holdMarker: without flock a marker is not locked.
func holdMarker(*os.File) {}

// staleMarker: without flock every other marker is taken for an
// interrupted build's.
func staleMarker(string) bool { return true }
