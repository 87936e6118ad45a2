//go:build !linux

package inputs

import "os"

// StatID reports no identity where stat's change time and inode are not
// read (stats.go): every input is hashed and the output directory's
// manifest falls back to size and modification time.
func StatID(fi os.FileInfo) (ID, bool) { return ID{}, false }

// statFile is the identity of the non-directory at name (none here).
func statFile(name string) (ID, bool) {
	fi, err := os.Stat(name)
	if err != nil || fi.IsDir() {
		return ID{}, false
	}
	return StatID(fi)
}

// statDir is the identity of the directory at name (none here).
func statDir(name string) (ID, bool) {
	fi, err := os.Stat(name)
	if err != nil || !fi.IsDir() {
		return ID{}, false
	}
	return StatID(fi)
}
