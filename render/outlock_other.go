//go:build !linux

package render

// lockOut takes no lock where flock is not used (outlock_linux.go): two
// builds writing the same output directory at once are not kept apart.
func lockOut(out string) (unlock func()) { return func() {} }
