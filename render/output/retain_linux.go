package output

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// retainSupported: a retained tree is read with getdents(2), which gives
// each entry's inode with its name (dirent below).
const retainSupported = true

// takeRetained reads the tree kept at dir (stage.go) for a build to use:
// every entry's name, type and inode, read a directory at a time (no
// system call per file). What a build writes nothing but regular files
// and directories into is removed on the way (a link, a pipe), and a
// directory whose mode is not the one a build gives it is set to it. It
// returns nil and no error where there is no tree (a file of that name
// is removed), and an error where the tree cannot be used: a directory
// in it on another device than out's parent (another file system
// mounted there, which a build must neither use nor remove) or one that
// cannot be read.
func takeRetained(dir string) (*retained, error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		if err == unix.ENOENT {
			return nil, nil
		}
		return nil, fmt.Errorf("output: retained site: %w", &os.PathError{Op: "lstat", Path: dir, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if err := os.Remove(dir); err != nil {
			return nil, fmt.Errorf("output: retained site: %w", err)
		}
		return nil, nil
	}
	var parent unix.Stat_t
	if err := unix.Stat(filepath.Dir(dir), &parent); err != nil || parent.Dev != st.Dev {
		return nil, fmt.Errorf("output: retained site %s: %w", dir, errForeign)
	}
	perm, err := madeDirPerm(dir)
	if err != nil {
		return nil, fmt.Errorf("output: retained site: %w", err)
	}
	w := &retainWalk{dev: st.Dev, perm: perm, r: &retained{entries: map[string]dent{}}}
	root, err := openDir(unix.AT_FDCWD, dir)
	if err != nil {
		return nil, fmt.Errorf("output: retained site: %w", &os.PathError{Op: "open", Path: dir, Err: err})
	}
	defer unix.Close(root)
	// The top level is read here, each directory in it walked on its own
	// core.
	var subdirs []string
	top := newDirents()
	if err := w.read(root, "", top, func(name string) { subdirs = append(subdirs, name) }); err != nil {
		return nil, fmt.Errorf("output: retained site %s: %w", dir, err)
	}
	var mu sync.Mutex
	var failed error
	onCores(slices.Values(subdirs), func(name string) bool {
		local := newDirents()
		err := w.tree(root, name, local)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && failed == nil {
			failed = err
		}
		top.merge(local)
		return err == nil
	})
	if failed != nil {
		return nil, fmt.Errorf("output: retained site %s: %w", dir, failed)
	}
	w.r.entries = top.m
	return w.r, nil
}

// dropRetained removes the tree kept at dir, where there is one on its
// parent's file system.
func dropRetained(dir string) {
	var st, parent unix.Stat_t
	if unix.Lstat(dir, &st) != nil {
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		os.Remove(dir)
		return
	}
	if unix.Stat(filepath.Dir(dir), &parent) == nil && parent.Dev == st.Dev {
		os.RemoveAll(dir)
	}
}

// madeDirPerm is the mode a directory made now gets (0755 less the
// umask), made in dir to be seen.
func madeDirPerm(dir string) (uint32, error) {
	probe := filepath.Join(dir, ".mode-probe")
	os.RemoveAll(probe) // a killed build's
	if err := os.Mkdir(probe, 0o755); err != nil {
		return 0, err
	}
	defer os.Remove(probe)
	var st unix.Stat_t
	if err := unix.Lstat(probe, &st); err != nil {
		return 0, err
	}
	return st.Mode & 0o7777, nil
}

// retainWalk reads a retained tree.
type retainWalk struct {
	dev  uint64
	perm uint32
	r    *retained
}

// dirents collects entries by slash-separated path.
type dirents struct{ m map[string]dent }

func newDirents() *dirents { return &dirents{m: map[string]dent{}} }

func (d *dirents) merge(o *dirents) {
	for k, v := range o.m {
		d.m[k] = v
	}
}

// tree reads the directory rel (its name in the directory at parent fd)
// and everything below it.
func (w *retainWalk) tree(parent int, rel string, into *dirents) error {
	fd, err := openDir(parent, filepath.Base(rel))
	if err != nil {
		return &os.PathError{Op: "open", Path: rel, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: rel, Err: err}
	}
	if st.Dev != w.dev {
		return fmt.Errorf("%s: %w", rel, errForeign)
	}
	if st.Mode&0o7777 != w.perm {
		if err := unix.Fchmod(fd, w.perm); err != nil {
			return &os.PathError{Op: "chmod", Path: rel, Err: err}
		}
	}
	into.m[rel] = dent{ino: st.Ino, dir: true}
	var subdirs []string
	if err := w.read(fd, rel, into, func(name string) { subdirs = append(subdirs, name) }); err != nil {
		return err
	}
	for _, sub := range subdirs {
		if err := w.tree(fd, sub, into); err != nil {
			return err
		}
	}
	return nil
}

// read records the entries of the directory open at fd (rel in the
// tree): regular files with their inodes; directories are handed to
// subdir (by path in the tree); anything else is removed.
func (w *retainWalk) read(fd int, rel string, into *dirents, subdir func(name string)) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "getdents", Path: rel, Err: err}
		}
		if n == 0 {
			return nil
		}
		for off := 0; off < n; {
			ino, typ, name, next := dirent(buf[off:n])
			if next <= 0 {
				return fmt.Errorf("%s: a directory entry cut short", rel)
			}
			off += next
			if name == "." || name == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					return &os.PathError{Op: "lstat", Path: rel + "/" + name, Err: err}
				}
				typ = dtOf(st.Mode)
			}
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			switch typ {
			case unix.DT_REG:
				into.m[p] = dent{ino: ino}
			case unix.DT_DIR:
				subdir(p)
			default:
				if err := unix.Unlinkat(fd, name, 0); err != nil && err != unix.ENOENT {
					return &os.PathError{Op: "unlink", Path: p, Err: err}
				}
			}
		}
	}
}

// dirent decodes the linux_dirent64 at the start of b: inode, type,
// name, and the record's length (0: cut short).
func dirent(b []byte) (ino uint64, typ uint8, name string, reclen int) {
	const nameOff = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
	if len(b) < nameOff {
		return 0, 0, "", 0
	}
	reclen = int(binary.NativeEndian.Uint16(b[16:18]))
	if reclen < nameOff || reclen > len(b) {
		return 0, 0, "", 0
	}
	nb := b[nameOff:reclen]
	for i, c := range nb {
		if c == 0 {
			nb = nb[:i]
			break
		}
	}
	return binary.NativeEndian.Uint64(b[0:8]), b[18], string(nb), reclen
}

// dtOf is the directory entry type of a file of mode m.
func dtOf(m uint32) uint8 {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFDIR:
		return unix.DT_DIR
	}
	return unix.DT_LNK // anything else: removed
}

// openDir opens the directory name in the directory at dirfd, without
// following a symbolic link.
func openDir(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// makeDirOver makes the directory name; a non-directory in its place is
// removed, and a missing parent made (mkParent).
func makeDirOver(name string, mkParent func() error) error {
	for try := 0; ; try++ {
		err := syscall.Mkdir(name, 0o755)
		switch {
		case err == nil:
			return nil
		case err == syscall.EINTR:
			continue
		case try > 2:
		case err == syscall.EEXIST:
			var st unix.Stat_t
			if unix.Lstat(name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
				return nil
			}
			if err := syscall.Unlink(name); err != nil && err != syscall.ENOENT {
				return &os.PathError{Op: "unlink", Path: name, Err: err}
			}
			continue
		case err == syscall.ENOENT || err == syscall.ENOTDIR:
			if err := mkParent(); err != nil {
				return err
			}
			continue
		}
		return &os.PathError{Op: "mkdir", Path: name, Err: err}
	}
}
