//go:build !linux

package render

import "os"

// writeOutput writes data into a new file at name (outfile_linux.go
// spares the poller's registration on Linux).
func writeOutput(name string, data []byte) error {
	return os.WriteFile(name, data, 0o644)
}

// makeDir creates the directory name and its missing parents.
func makeDir(name string) error { return os.MkdirAll(name, 0o755) }
