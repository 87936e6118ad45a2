//go:build !linux

package output

import "os"

// WriteFile writes data into a new file at name (write_linux.go
// spares the poller's registration on Linux).
func WriteFile(name string, data []byte) error {
	return os.WriteFile(name, data, 0o644)
}

// MakeDir creates the directory name and its missing parents.
func MakeDir(name string) error { return os.MkdirAll(name, 0o755) }

// removePath removes the file or the directory tree at name.
func removePath(name string) error { return os.RemoveAll(name) }
