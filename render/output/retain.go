package output

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"syscall"
)

// retained is what a retained tree held when a build took it as its
// stage (takeRetained): its entries by slash-separated path.
type retained struct {
	entries map[string]dent
}

// dent is an entry of a retained tree: a directory, or a regular file
// and its inode.
type dent struct {
	ino uint64
	dir bool
}

// update brings the retained tree st up to this build's files, the
// written ones being there already: a file the build took from out is
// left as it is where the tree's entry is that file's very inode (the
// one out's manifest records and Reuse found in out), else linked (or
// copied) from out; what the build does not want is removed. Removals
// and links run on every core.
func (o *Tracker) update(st *Stage) error {
	skip := make(map[string]bool, len(o.skipped))
	for _, p := range o.skipped {
		skip[p] = true
	}
	dirs := Dirs(o.sums)
	// top: the entry at p is not inside a directory that is removed
	// whole.
	top := func(p string) bool {
		d := path.Dir(p)
		return d == "." || dirs[filepath.FromSlash(d)]
	}
	kept := make(map[string]bool, len(o.skipped))
	var removeTrees, removeFiles []string
	for p, e := range st.retained.entries {
		_, wanted := o.sums[p]
		switch {
		case e.dir && dirs[filepath.FromSlash(p)], e.dir && wanted && !skip[p]:
			// A directory the build wants, or one the build wrote a
			// file over (replaceFile removed it).
		case e.dir:
			if top(p) {
				removeTrees = append(removeTrees, p)
			}
		case skip[p] && e.ino != 0 && e.ino == o.prev.Files[p].Ino:
			kept[p] = true
		case wanted && !skip[p]:
			// Written over by the build.
		case top(p):
			// Not wanted, or a stale copy of a file taken from out. A
			// directory there now is the build's (MakeDir put it in the
			// file's place): it stays.
			removeFiles = append(removeFiles, p)
		}
	}
	var failed firstErr
	fail := failed.keep
	onCores(slices.Values(removeTrees), func(p string) bool {
		return fail(os.RemoveAll(filepath.Join(st.Dir, filepath.FromSlash(p))))
	})
	onCores(slices.Values(removeFiles), func(p string) bool {
		err := syscall.Unlink(filepath.Join(st.Dir, filepath.FromSlash(p)))
		if err == nil || err == syscall.ENOENT || err == syscall.EISDIR {
			return true
		}
		return fail(&os.PathError{Op: "unlink", Path: p, Err: err})
	})
	if err := failed.first(); err != nil {
		return err
	}
	onCores(slices.Values(o.skipped), func(p string) bool {
		if kept[p] {
			return true
		}
		return fail(o.place(st, p))
	})
	if failed.first() == nil {
		// Nothing changed the kept files' inodes (no link was made to them
		// nor removed): the manifest takes their records as they are.
		o.mu.Lock()
		o.asIs = kept
		o.mu.Unlock()
	}
	return failed.first()
}

// place links (or copies) the file p of out into the retained tree st,
// in place of whatever is there.
func (o *Tracker) place(st *Stage, p string) error {
	src := filepath.Join(o.prev.Out, filepath.FromSlash(p))
	dst := filepath.Join(st.Dir, filepath.FromSlash(p))
	if d := filepath.Dir(dst); d != st.Dir {
		if err := st.MakeDir(d); err != nil {
			return err
		}
	}
	if err := removePath(dst); err != nil {
		return err
	}
	if linkFile(src, dst) == nil {
		return nil
	}
	return copyFile(src, dst)
}

// linkFile is os.Link (a test makes it fail as across file systems).
var linkFile = os.Link
