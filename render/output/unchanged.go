package output

import (
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perflab/perflab/render/inputs"
)

// Unchanged reports whether out holds exactly this build's files: every
// one was skipped, and out has no other file or directory, and its
// directories have the modes a build gives them (out's own 0755, set by
// swap; below it the mode a directory made now in tmp, this build's
// directory, gets: 0755 less the umask). A chmod of a directory sets its
// change time, so only a directory whose identity changed is checked.
func (o *Tracker) Unchanged(out, tmp string) bool {
	if o.prev == nil || len(o.skipped) != len(o.sums) || len(o.sums) != len(o.prev.Files) {
		return false
	}
	// (Windows reports every directory as 0777 and has no chmod to undo.)
	if st, err := os.Lstat(out); err != nil || !st.IsDir() || runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		return false
	}
	dirPerm := sync.OnceValue(func() fs.FileMode {
		probe := filepath.Join(tmp, ".mode")
		if err := os.Mkdir(probe, 0o755); err != nil {
			return 0o755
		}
		defer os.Remove(probe)
		if st, err := os.Lstat(probe); err == nil {
			return st.Mode().Perm()
		}
		return 0o755
	})
	dirs := Dirs(o.sums)
	if o.prev.Dirs != nil && len(o.prev.Dirs) == len(dirs) {
		return o.unchangedDirs(out, dirs, dirPerm)
	}
	// Each top-level entry is walked on its own worker: reading 900
	// directories was an eighth of an unchanged 924-page rebuild, all of
	// it on one core.
	top, err := os.ReadDir(out)
	if err != nil {
		return false
	}
	var files atomic.Int64
	var stray atomic.Bool
	check := func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if !dirs[rel] {
				return fs.ErrExist
			}
			if st, err := d.Info(); err != nil || st.Mode().Perm() != dirPerm() {
				return fs.ErrExist
			}
			return nil
		}
		if _, ok := o.sums[filepath.ToSlash(rel)]; !ok || !d.Type().IsRegular() {
			return fs.ErrExist
		}
		files.Add(1)
		return nil
	}
	onCores(slices.Values(top), func(d fs.DirEntry) bool {
		var err error
		if !d.IsDir() {
			err = check(d.Name(), d)
		} else {
			root := filepath.Join(out, d.Name())
			err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				return check(filepath.Join(d.Name(), p[len(root):]), e)
			})
		}
		if err != nil {
			stray.Store(true)
		}
		return err == nil
	})
	return !stray.Load() && files.Load() == int64(len(o.sums))
}

// unchangedDirs is unchanged's check for stray files when the manifest
// recorded out's directories (and every file of this build was found in
// out as recorded): out's own entries are read; a directory below it
// whose identity is as recorded holds what it held and is not read, any
// other is. The directories are checked on every core.
func (o *Tracker) unchangedDirs(out string, dirs map[string]bool, dirPerm func() fs.FileMode) bool {
	// entryOK reports whether rel, found in out, is one of the build's
	// files or directories.
	entryOK := func(rel string, d fs.DirEntry) bool {
		if d.IsDir() {
			return dirs[rel]
		}
		_, ok := o.sums[filepath.ToSlash(rel)]
		return ok && d.Type().IsRegular()
	}
	top, err := os.ReadDir(out)
	if err != nil {
		return false
	}
	for _, d := range top {
		if !entryOK(d.Name(), d) {
			return false
		}
	}
	var stray, reverified atomic.Bool
	check := func(d string) {
		md, ok := o.prev.Dirs[filepath.ToSlash(d)]
		if !ok {
			stray.Store(true)
			return
		}
		st, err := os.Lstat(filepath.Join(out, d))
		if err != nil || !st.IsDir() {
			stray.Store(true)
			return
		}
		if id, ok := inputs.StatID(st); ok && !md.Racy && id.MTime == md.ModTime && id.CTime == md.CTime && id.Ino == md.Ino {
			return
		}
		if st.Mode().Perm() != dirPerm() {
			stray.Store(true) // chmod'ed: made afresh
			return
		}
		entries, err := os.ReadDir(filepath.Join(out, d))
		if err != nil {
			stray.Store(true)
			return
		}
		for _, e := range entries {
			if !entryOK(filepath.Join(d, e.Name()), e) {
				stray.Store(true)
				return
			}
		}
		reverified.Store(true) // read and found as it should be: record it
	}
	onCores(maps.Keys(dirs), func(d string) bool {
		check(d)
		return !stray.Load()
	})
	if stray.Load() {
		return false
	}
	if reverified.Load() {
		o.mu.Lock()
		o.reverified = true
		o.mu.Unlock()
	}
	return true
}

// Fill links (or copies) the skipped files from the previous output
// directory into dir, where the build wrote the others. The files are
// linked on every core, each directory made once: a report's rounds'
// files (two per round, taken as they are) made a serial Fill with a
// MkdirAll per file a tenth of a next-round build.
func (o *Tracker) Fill(dir string) error {
	var made sync.Map
	var failed firstErr
	onCores(slices.Values(o.skipped), func(p string) bool {
		return failed.keep(o.fillOne(dir, p, &made))
	})
	return failed.first()
}

// fillOne links (or copies) the skipped file p into dir.
func (o *Tracker) fillOne(dir, p string, made *sync.Map) error {
	src := filepath.Join(o.prev.Out, filepath.FromSlash(p))
	dst := filepath.Join(dir, filepath.FromSlash(p))
	if d := filepath.Dir(dst); d != dir {
		if _, ok := made.Load(d); !ok {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made.Store(d, true)
		}
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	return copyFile(src, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
