package output

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Stage is the directory a build writes its site into, beside out,
// before the swap puts it in out's place.
//
// A build that keeps a manifest keeps, too, the site its swap moved out
// of out (RetainedDir): most of its files are links of the new site's
// (Fill linked them), the others are the previous versions of the files
// the build wrote. The next build takes that tree as its Stage and
// brings it up to date (Complete) instead of linking every file it did
// not write into a new directory and unlinking the whole old site after
// the swap: a next-round build of a 1,000-report × 100-round site linked
// and unlinked 198,000 round files, a sixth of its time. What the tree
// holds is trusted only where it is, by its directory entry's inode, the
// very file of out the build found as its manifest records (Tracker.Reuse):
// anything else in it is removed or replaced, so a tree damaged, edited,
// or left half brought up to date by a killed build needs no record of
// its own. A build without a manifest (--no-cache) keeps nothing.
type Stage struct {
	Dir  string
	out  string
	keep string // where the site the swap moves out goes ("": removed)
	// retained is set when Dir is the tree the last swap moved out of
	// out: what Dir held when taken.
	retained *retained
	made     sync.Map // retained: directories made or found, by name
}

// errForeign: a retained tree, or a directory in it, is on another file
// system than out's parent (mounted there).
var errForeign = errors.New("on another file system than its parent")

// RetainedDir is where builds of out keep the site their swap moved out
// of out: a hidden sibling, as the build directories are, so that it is
// on out's file system and not part of a copy of out.
func RetainedDir(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".prev")
}

// NewStage returns the directory a build of out writes into. With retain
// it is the tree kept beside out (RetainedDir) where there is one that
// can be used, else a new directory (MakeBuildDir), and the site the swap
// moves out of out is kept for the next build; without, a kept tree is
// removed, and so is the old site after the swap. Only a caller holding
// out's Lock may call it.
func NewStage(out string, retain bool) (*Stage, error) {
	s := &Stage{out: out}
	prev := RetainedDir(out)
	if retain && retainSupported {
		r, err := takeRetained(prev)
		if r != nil {
			s.Dir, s.retained, s.keep = prev, r, prev
			return s, nil
		}
		if err != nil && !errors.Is(err, errForeign) {
			dropRetained(prev) // unreadable: made anew
			if _, serr := os.Lstat(prev); os.IsNotExist(serr) {
				err = nil
			}
		}
		if err == nil {
			s.keep = prev // none there (any other thing at that name is removed)
		}
		// Else the tree is not one a build may use or remove (another file
		// system mounted there): the old site is removed after the swap.
	} else {
		dropRetained(prev)
	}
	dir, err := MakeBuildDir(out)
	if err != nil {
		return nil, err
	}
	s.Dir = dir
	return s, nil
}

// Retained reports whether the stage is the tree the last build kept.
func (s *Stage) Retained() bool { return s.retained != nil }

// WriteFile writes data into the file name in the stage, replacing what
// name holds in a retained tree (never writing through it: it may be a
// link of out's file).
func (s *Stage) WriteFile(name string, data []byte) error {
	if s.retained != nil {
		return replaceFile(name, data)
	}
	return WriteFile(name, data)
}

// MakeDir makes the directory name in the stage (and its parents); in a
// retained tree a file in the way is removed.
func (s *Stage) MakeDir(name string) error {
	if s.retained == nil {
		return MakeDir(name)
	}
	if _, ok := s.made.Load(name); ok {
		return nil
	}
	if len(name) <= len(s.Dir) {
		return fmt.Errorf("output: make directory %s: outside the stage %s", name, s.Dir)
	}
	if err := makeDirOver(name, func() error { return s.MakeDir(filepath.Dir(name)) }); err != nil {
		return err
	}
	s.made.Store(name, true)
	return nil
}

// Complete puts into the stage what the build did not write: with a
// retained tree, it removes what the build does not want and links the
// files the build found in out where the tree does not already hold
// them (Tracker.update); else it links them all (Fill).
func (s *Stage) Complete(o *Tracker) error {
	if s.retained != nil {
		return o.update(s)
	}
	if o.Skipped() > 0 {
		return o.Fill(s.Dir)
	}
	return nil
}

// Abandon drops the stage of a build that is not swapped in: a new
// directory is removed; a retained tree stays for the next build (it
// trusts none of its files on their own).
func (s *Stage) Abandon() {
	if s.retained == nil {
		os.RemoveAll(s.Dir)
	}
}

// Swap puts the stage in out's place (SwapAside) and returns what must
// still be done with the old site: keep it for the next build, or remove
// it. The caller runs done before it records out's files when Fill
// linked the old site's files into the new one (removing the old links
// sets their change times); a kept site takes no time.
func (s *Stage) Swap() (done func() error, err error) {
	old, err := SwapAside(s.Dir, s.out)
	if err != nil {
		return nil, err
	}
	if old == "" || old == s.keep {
		return func() error { return nil }, nil
	}
	if s.keep != "" && os.Rename(old, s.keep) == nil {
		return func() error { return nil }, nil
	}
	return func() error { return RemoveOld(old) }, nil
}
