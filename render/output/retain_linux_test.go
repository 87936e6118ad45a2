package output

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// retainSite is a test's site: out beside its retained tree, and the
// cache directory its manifest is kept in.
type retainSite struct {
	t          *testing.T
	out, cache string
}

func newRetainSite(t *testing.T) *retainSite {
	dir := t.TempDir()
	return &retainSite{t: t, out: filepath.Join(dir, "site"), cache: filepath.Join(dir, "cache")}
}

// build builds files into out as render does (Lock, NewStage, Same, the
// stage's writes, Unchanged, Complete, Swap, WriteManifest); stop names
// the step after which the build is killed ("" : none): "write" (half
// the changed files written), "complete" (before the swap).
func (s *retainSite) build(files map[string]string, stop string) *Stage {
	t := s.t
	t.Helper()
	unlock := Lock(s.out)
	defer unlock()
	st, err := NewStage(s.out, true)
	if err != nil {
		t.Fatal(err)
	}
	o := NewTracker(ReadManifest(s.cache, s.out))
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	written := 0
	for _, p := range paths {
		f := File{Path: p, Data: []byte(files[p])}
		if o.Same(f) {
			continue
		}
		if stop == "write" && written > 0 {
			return st // killed
		}
		name := filepath.Join(st.Dir, filepath.FromSlash(p))
		if d := filepath.Dir(name); d != st.Dir {
			if err := st.MakeDir(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.WriteFile(name, f.Data); err != nil {
			t.Fatal(err)
		}
		written++
	}
	if o.Unchanged(s.out, st.Dir) {
		if o.Stale() {
			WriteManifest(s.cache, s.out, o)
		}
		st.Abandon()
		return st
	}
	if err := st.Complete(o); err != nil {
		t.Fatal(err)
	}
	if stop == "complete" {
		return st
	}
	done, err := st.Swap()
	if err != nil {
		t.Fatal(err)
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	WriteManifest(s.cache, s.out, o)
	return st
}

// check fails unless out holds files and nothing else, each directory
// with the mode a directory made now gets and each file with a new
// file's.
func (s *retainSite) check(what string, files map[string]string) {
	t := s.t
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	os.Mkdir(probe, 0o755)
	os.WriteFile(filepath.Join(probe, "f"), nil, 0o644)
	dst, _ := os.Stat(probe)
	fst, _ := os.Stat(filepath.Join(probe, "f"))
	want := map[string]string{}
	for p, data := range files {
		want[p] = "file " + fst.Mode().String() + " " + data
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			want[d+"/"] = "dir " + dst.Mode().String()
		}
	}
	got := map[string]string{}
	err := filepath.WalkDir(s.out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == s.out {
			return err
		}
		rel, _ := filepath.Rel(s.out, p)
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			got[filepath.ToSlash(rel)+"/"] = "dir " + st.Mode().String()
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[filepath.ToSlash(rel)] = "file " + st.Mode().String() + " " + string(data)
		default:
			got[filepath.ToSlash(rel)] = "other " + st.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %s is %q, want %q", what, p, got[p], w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s (%s) should not be in the site", what, p, g)
		}
	}
}

func (s *retainSite) prev() string { return RetainedDir(s.out) }

func ino(t *testing.T, name string) uint64 {
	t.Helper()
	st, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// siteV returns a site of n rounds: each round's file is written once,
// the page and data change with every round.
func siteV(n int) map[string]string {
	m := map[string]string{"index.html": "home", "assets/site.css": "css"}
	for i := 1; i <= n; i++ {
		m[fmt.Sprintf("r/rounds/%03d.json", i)] = fmt.Sprintf("round %03d", i)
	}
	m["r/slow.txt"] = fmt.Sprintf("every other round %03d", n/2)
	m["r/index.html"] = fmt.Sprintf("page of %03d", n)
	m["r/data.json"] = fmt.Sprintf("data of %03d", n)
	return m
}

// TestRetainedNextBuild: the site a swap moves out of out is kept beside
// it, and the next build renders into it: out's directory after that
// build is the tree kept by the one before; a file no build wrote again
// keeps its inode through every build (no link made, none removed); a
// file written again is replaced, never written through (the retained
// copy was a link of out's: out's file keeps its bytes until the swap).
func TestRetainedNextBuild(t *testing.T) {
	s := newRetainSite(t)
	for n := 1; n <= 2; n++ {
		s.build(siteV(n), "")
		s.check(fmt.Sprint("round ", n), siteV(n))
	}
	round := filepath.Join(s.out, "r", "rounds", "002.json")
	roundIno := ino(t, round)
	for n := 3; n <= 6; n++ {
		prevDir := ino(t, s.prev())
		// r/slow.txt, unchanged by the last build, is changed by this one:
		// the retained tree's copy is a link of out's.
		slow := filepath.Join(s.out, "r", "slow.txt")
		slowIno, slowBefore := ino(t, slow), siteV(n - 1)["r/slow.txt"]
		if n%2 == 1 { // unchanged by this build
			slowIno, slowBefore = 0, ""
		} else if ino(t, filepath.Join(s.prev(), "r", "slow.txt")) != slowIno {
			t.Fatalf("round %d: r/slow.txt in the retained tree is not a link of out's", n)
		}
		st := s.build(siteV(n), "")
		if !st.Retained() {
			t.Fatalf("round %d: built into a new directory, not the retained tree", n)
		}
		s.check(fmt.Sprint("round ", n), siteV(n))
		if got := ino(t, s.out); got != prevDir {
			t.Errorf("round %d: out is not the tree the last build kept", n)
		}
		if got := ino(t, round); got != roundIno {
			t.Errorf("round %d: an older round's file was linked or written again", n)
		}
		// The old out is the retained tree now: its r/slow.txt is out's as
		// it was before the build, same inode, same bytes.
		old := filepath.Join(s.prev(), "r", "slow.txt")
		if data, _ := os.ReadFile(old); slowIno != 0 && (ino(t, old) != slowIno || string(data) != slowBefore) {
			t.Errorf("round %d: out's r/slow.txt was written through by the build: %q, want %q", n, data, slowBefore)
		}
	}
}

// TestRetainedManifest: the records a build copies from the last manifest
// for files nothing touched are what a stat of out's files reads now.
func TestRetainedManifest(t *testing.T) {
	s := newRetainSite(t)
	for n := 1; n <= 4; n++ {
		time.Sleep(20 * time.Millisecond) // change times a tick apart
		s.build(siteV(n), "")
	}
	m := ReadManifest(s.cache, s.out)
	if m == nil {
		t.Fatal("no manifest")
	}
	for p, e := range m.Files {
		st, err := os.Lstat(filepath.Join(s.out, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		if e.Size != st.Size() || e.ModTime != st.ModTime().UnixNano() || e.CTime != sys.Ctim.Nano() || e.Ino != sys.Ino {
			t.Errorf("%s: manifest records %+v, the file is size %d, mtime %d, ctime %d, inode %d", p, e, st.Size(), st.ModTime().UnixNano(), sys.Ctim.Nano(), sys.Ino)
		}
	}
}

// TestRetainedKilled: a build killed while writing into the retained
// tree, or after bringing it up to date but before the swap, leaves out
// as it was; the next build makes the right site from the tree as the
// killed build left it.
func TestRetainedKilled(t *testing.T) {
	for _, stop := range []string{"write", "complete"} {
		t.Run(stop, func(t *testing.T) {
			s := newRetainSite(t)
			for n := 1; n <= 3; n++ {
				s.build(siteV(n), "")
			}
			killed := siteV(6)
			killed["r/rounds/002.json"] = "round b, edited" // a file the next build takes from out
			killed["stray/x"] = "x"
			s.build(killed, stop)
			s.check("after the killed build", siteV(3))
			s.build(siteV(4), "")
			s.check("the build after the killed one", siteV(4))
		})
	}
}

// TestRetainedTampered: nothing in the retained tree is trusted but a
// file that is out's very file (its inode): files replaced, strays,
// links to elsewhere (never followed: their targets stay as they are),
// a directory where a file belongs and a file where a directory does,
// a pipe, a directory's mode.
func TestRetainedTampered(t *testing.T) {
	s := newRetainSite(t)
	for n := 1; n <= 3; n++ {
		s.build(siteV(n), "")
	}
	prev := s.prev()
	outside := t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "index.html"), "outside")
	write(filepath.Join(outside, "data.json"), "outside")
	if err := os.Symlink("index.html", filepath.Join(outside, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(outside, 0o711); err != nil {
		t.Fatal(err)
	}
	// An older round's file: a link of out's, replaced by other bytes.
	os.Remove(filepath.Join(prev, "r/rounds/002.json"))
	write(filepath.Join(prev, "r/rounds/002.json"), "round X")
	write(filepath.Join(prev, "stray.html"), "stray")
	write(filepath.Join(prev, "strays/deep/x"), "stray")
	write(filepath.Join(prev, ".mode-probe/x"), "a killed build's probe, and more")
	// The report's directory: a link to a directory outside.
	os.RemoveAll(filepath.Join(prev, "r"))
	if err := os.Symlink(outside, filepath.Join(prev, "r")); err != nil {
		t.Fatal(err)
	}
	// A directory where the home page belongs, a file where assets/ does.
	os.Remove(filepath.Join(prev, "index.html"))
	write(filepath.Join(prev, "index.html", "x"), "dir")
	os.RemoveAll(filepath.Join(prev, "assets"))
	write(filepath.Join(prev, "assets"), "file")
	if err := syscall.Mkfifo(filepath.Join(prev, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := s.build(siteV(4), ""); !st.Retained() {
		t.Error("the tampered tree was not used")
	}
	s.check("the build after the retained tree was tampered with", siteV(4))
	for _, f := range []string{"index.html", "data.json", "link"} {
		if data, _ := os.ReadFile(filepath.Join(outside, f)); string(data) != "outside" {
			t.Errorf("%s outside the tree, behind a link in it, was written or removed: %q", f, data)
		}
	}
	if st, err := os.Stat(outside); err != nil || st.Mode().Perm() != 0o711 {
		t.Errorf("the directory outside the tree, behind a link in it, was changed: %v", st.Mode())
	}

	// A directory's mode, and a retained file edited in place: the
	// retained copy is a link of out's file, so the edit is out's too,
	// and its new change time makes the build write it again. (One build
	// first: removing the link of out's file above changed that file's
	// change time, so the last build wrote it again.)
	s.build(siteV(5), "")
	os.Chmod(filepath.Join(prev, "r", "rounds"), 0o700)
	b := filepath.Join(prev, "r/rounds/002.json")
	if ino(t, b) != ino(t, filepath.Join(s.out, "r/rounds/002.json")) {
		t.Fatal("the retained round file is not a link of out's")
	}
	write(b, "round 999") // same length
	s.build(siteV(6), "")
	s.check("after a retained file was edited in place", siteV(6))
}

// TestRetainedMissing: without the retained tree (deleted, or a file in
// its place) the build links into a new directory as before, and keeps
// the old site for the next one.
func TestRetainedMissing(t *testing.T) {
	s := newRetainSite(t)
	for n := 1; n <= 2; n++ {
		s.build(siteV(n), "")
	}
	for n, spoil := range []func(){
		func() { os.RemoveAll(s.prev()) },
		func() { os.RemoveAll(s.prev()); os.WriteFile(s.prev(), []byte("x"), 0o644) },
		func() { os.RemoveAll(s.prev()); os.Symlink(t.TempDir(), s.prev()) },
	} {
		spoil()
		if st := s.build(siteV(3+n), ""); st.Retained() {
			t.Errorf("spoil %d: the build took a retained tree that was not there", n)
		}
		s.check("without the retained tree", siteV(3+n))
		if st, err := os.Lstat(s.prev()); err != nil || !st.IsDir() {
			t.Errorf("spoil %d: the old site was not kept: %v", n, err)
		}
	}
	if st := s.build(siteV(7), ""); !st.Retained() {
		t.Error("the tree kept again was not used")
	}
	s.check("with the tree kept again", siteV(7))
	// out deleted, the kept tree there: it becomes out, whole.
	os.RemoveAll(s.out)
	s.build(siteV(8), "")
	s.check("out deleted", siteV(8))
	s.build(siteV(9), "")
	s.check("out deleted, then the next build", siteV(9))
}

// TestRetainedNoLinks: where out's files cannot be linked into the tree
// (a file system without links, or across file systems), they are
// copied: the site is the same.
func TestRetainedNoLinks(t *testing.T) {
	defer func(l func(string, string) error) { linkFile = l }(linkFile)
	linkFile = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EXDEV} }
	s := newRetainSite(t)
	for n := 1; n <= 5; n++ {
		s.build(siteV(n), "")
		s.check("without links", siteV(n))
	}
}

// TestRetainedDropped: a build that keeps no manifest (--no-cache)
// removes the retained tree, and keeps none.
func TestRetainedDropped(t *testing.T) {
	s := newRetainSite(t)
	for n := 1; n <= 2; n++ {
		s.build(siteV(n), "")
	}
	unlock := Lock(s.out)
	st, err := NewStage(s.out, false)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abandon()
	if st.Retained() || strings.HasSuffix(st.Dir, ".prev") {
		t.Error("a build without a manifest took the retained tree")
	}
	if _, err := os.Lstat(s.prev()); err == nil {
		t.Error("the retained tree is still there")
	}
}

// TestRetainedReaders: while builds write into the retained tree and
// swap it in, a reader of out (a web server, perflab serve) always finds
// out, and its page whole: one build's bytes, never a file being
// written (the builds write beside out, never through its files).
func TestRetainedReaders(t *testing.T) {
	s := newRetainSite(t)
	s.build(siteV(1), "")
	var stop atomic.Bool
	var bad atomic.Value
	done := make(chan bool)
	go func() {
		defer close(done)
		for !stop.Load() {
			data, err := os.ReadFile(filepath.Join(s.out, "r", "slow.txt"))
			if err != nil || !strings.HasPrefix(string(data), "every other round ") || len(data) != len("every other round 000") {
				bad.Store(fmt.Sprintf("%q (%v)", data, err))
				return
			}
		}
	}()
	n := 2
	for ; n <= 200 && bad.Load() == nil; n++ {
		s.build(siteV(n), "")
	}
	stop.Store(true)
	<-done
	if b := bad.Load(); b != nil {
		t.Fatalf("a reader of out found %s", b)
	}
	s.check("after 200 builds", siteV(n-1))
}
