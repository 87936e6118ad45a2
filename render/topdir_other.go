//go:build !linux

package render

// spreadTree is a no-op where ext4's allocator hint does not exist.
func spreadTree(string) {}
