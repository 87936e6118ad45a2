//go:build linux

package inputs

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeStat is a file's stat with a chosen identity.
type fakeStat struct {
	os.FileInfo
	st syscall.Stat_t
}

func (f fakeStat) Size() int64 { return f.st.Size }
func (f fakeStat) Sys() any    { return &f.st }

func statAt(size, mtime, ctime int64, ino uint64) os.FileInfo {
	st := syscall.Stat_t{Size: size, Ino: ino, Dev: 1}
	st.Mtim = syscall.NsecToTimespec(mtime)
	st.Ctim = syscall.NsecToTimespec(ctime)
	return fakeStat{st: st}
}

// TestInputStatsRacy: a file whose change time is not older than the
// moment the build began (its marker's change time) is not recorded, so
// a second change within the same timestamp tick, after the build read
// the file, is hashed by the next build although its stat is the same;
// an older one is recorded and trusted while its identity holds.
func TestInputStatsRacy(t *testing.T) {
	dir := t.TempDir()
	open := func() *Stats {
		s := OpenStats(dir, "salt")
		if s == nil {
			t.Fatal("no input stat cache")
		}
		return s
	}
	a, b := []byte("version A"), []byte("version B")
	s := open()
	h := s.horizon
	if h%1e9 == 0 {
		h++ // the horizon's own file system has whole-second times: keep the rows below apart
		s.horizon = h
	}
	racyStat := statAt(9, h, h, 7)    // changed in the tick the build began
	settled := statAt(9, h-1, h-1, 8) // changed before
	// A file system with whole-second times: changed a second before the
	// build began, yet a later change in that second would keep it.
	coarse := statAt(9, h/1e9*1e9-1e9, h/1e9*1e9-1e9, 10)
	oldCoarse := statAt(9, h/1e9*1e9-3e9, h/1e9*1e9-3e9, 11)
	if got := s.sum("racy.md", racyStat, a); got != sha256.Sum256(a) {
		t.Fatal("sum of a new file is not its SHA-256")
	}
	s.sum("settled.md", settled, a)
	s.sum("coarse.md", coarse, a)
	s.sum("oldcoarse.md", oldCoarse, a)
	s.Save()

	s = open()
	defer s.Abandon()
	// Both files now hold B with the stat recorded before.
	if got := s.sum("racy.md", racyStat, b); got != sha256.Sum256(b) {
		t.Error("racy file: the old hash was taken for its new bytes")
	}
	if got := s.sum("settled.md", settled, b); got != sha256.Sum256(a) {
		t.Error("settled file: hashed again although its identity is unchanged (the cache saves nothing)")
	}
	if got := s.sum("coarse.md", coarse, b); got != sha256.Sum256(b) {
		t.Error("whole-second file changed within 2 s of the build: the old hash was taken")
	}
	if got := s.sum("oldcoarse.md", oldCoarse, b); got != sha256.Sum256(a) {
		t.Error("whole-second file 3 s older than the build: hashed again")
	}
	for _, st := range []os.FileInfo{statAt(9, h-1, h, 8), statAt(9, h-1, h-1, 9), statAt(10, h-1, h-1, 8), statAt(9, h-2, h-1, 8)} {
		if got := s.sum("settled.md", st, b); got != sha256.Sum256(b) {
			t.Errorf("identity %+v: old hash taken", st.Sys())
		}
	}
	if s.hashed != 6 {
		t.Errorf("%d files hashed, want 6", s.hashed)
	}
}

// TestStatsBroken: a broken or foreign file hashes every input; one
// written under another salt (another perflab build, whose parser made
// the memos) is not read.
func TestStatsBroken(t *testing.T) {
	dir := t.TempDir()
	for _, data := range []string{"", statsVersion + "\x05ab", statsVersion + "\x01a" + strings.Repeat("\x00", 72) + "\x02", "other\n"} {
		os.WriteFile(filepath.Join(dir, statsName), []byte(data), 0o644)
		s := OpenStats(dir, "salt")
		if len(s.old) != 0 {
			t.Errorf("%q: %d entries", data, len(s.old))
		}
		s.Abandon()
	}
	m := map[string]entry{"a": {ID: ID{1, 2, 3, 4, 5}, Sum: sha256.Sum256([]byte("a"))}, "b/c.md": {Memo: []byte("front matter")}}
	got := decodeStats(encodeStats("salt", m), "salt")
	if len(got) != 2 || got["a"].ID != m["a"].ID || got["a"].Sum != m["a"].Sum || string(got["b/c.md"].Memo) != "front matter" {
		t.Errorf("round trip: %v", got)
	}
	if got := decodeStats(encodeStats("another build", m), "salt"); got != nil {
		t.Errorf("another salt's file read: %v", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".inputs-*")); len(left) != 0 {
		t.Errorf("markers left: %v", left)
	}
}

// TestStatsMarkers: a killed build's marker is removed by the next build
// even when that build leaves the file as it was (killed builds' markers
// piled up in the cache), and the marker of a build still running is
// not: that build's file is then saved.
func TestStatsMarkers(t *testing.T) {
	dir := t.TempDir()
	killed, err := os.CreateTemp(dir, ".inputs-*") // as OpenStats left it, its process gone
	if err != nil {
		t.Fatal(err)
	}
	killed.Close()
	s0 := OpenStats(dir, "salt") // unchanged: the file is not rewritten
	s0.Save()
	if _, err := os.Stat(killed.Name()); !os.IsNotExist(err) {
		t.Errorf("killed build's marker left (%v)", err)
	}
	put := func(s *Stats, name string) {
		s.mu.Lock()
		s.next[name] = entry{ID: ID{1, 2, 3, 4, 5}, Sum: sha256.Sum256([]byte(name))}
		s.unstable = true
		s.mu.Unlock()
	}
	s1 := OpenStats(dir, "salt")
	s2 := OpenStats(dir, "salt") // running beside s1
	put(s1, "a")
	s1.Save() // rewrites the file
	if _, err := os.Stat(s2.marker.Name()); err != nil {
		t.Fatalf("running build's marker removed: %v", err)
	}
	put(s2, "b")
	s2.Save()
	if s3 := OpenStats(dir, "salt"); len(s3.old) != 1 {
		t.Errorf("running build's entries not saved: %d entries", len(s3.old))
	} else {
		s3.Abandon()
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".inputs-*")); len(left) != 0 {
		t.Errorf("markers left: %v", left)
	}
}
