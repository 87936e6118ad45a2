//go:build !linux

package output

// exchange: no atomic exchange of two directories here (the caller
// renames twice).
func exchange(string, string) (bool, error) { return false, nil }
