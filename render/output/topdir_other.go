//go:build !linux

package output

// SpreadTree is a no-op where ext4's allocator hint does not exist.
func SpreadTree(string) {}
