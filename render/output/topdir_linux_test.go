//go:build linux

package output

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBuildDirSpreads: a build's temporary directory carries the top-of-
// tree flag where the file system keeps flags (ext4), and a file system
// that does not (tmpfs) still gets a build directory.
func TestBuildDirSpreads(t *testing.T) {
	dirs := []string{t.TempDir()}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "perflab-topdir-*")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			dirs = append(dirs, d)
		}
	}
	checked := 0
	for _, parent := range dirs {
		tmp, err := MakeBuildDir(filepath.Join(parent, "site"))
		if err != nil {
			t.Fatalf("%s: %v", parent, err)
		}
		if filepath.Dir(tmp) != parent {
			t.Errorf("build dir %s is not beside %s/site", tmp, parent)
		}
		f, err := os.Open(tmp)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		f.Close()
		if err != nil {
			if !errors.Is(err, unix.ENOTTY) && !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EINVAL) {
				t.Errorf("%s: %v", tmp, err)
			}
			continue // no flags here
		}
		// A file system that keeps flags but not this one (xfs, btrfs)
		// drops it silently; ext4 keeps it.
		var st unix.Statfs_t
		if unix.Statfs(tmp, &st) == nil && st.Type == unix.EXT4_SUPER_MAGIC {
			checked++
			if flags&fsTopdirFL == 0 {
				t.Errorf("%s: flags %#x lack FS_TOPDIR_FL on ext4", tmp, flags)
			}
		}
	}
	if checked == 0 {
		t.Log("no ext4 directory to check the flag on")
	}
}
