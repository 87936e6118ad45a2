package output

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories tmp and out in one step
// (renameat2 RENAME_EXCHANGE), so that no moment, nor a build killed
// between two renames, leaves no out: out is the new site, tmp the old.
// It reports false, having done nothing, where the file system or the
// kernel cannot (the caller then renames twice).
func exchange(tmp, out string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, out, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	return err == nil, err
}
