package buildcache

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestExeBuildID: the build ID read from the test binary is the one the
// go tool reports, and a file that is no Go executable has none.
func TestExeBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	want, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if got := ExeBuildID(exe); got != strings.TrimSpace(string(want)) {
		t.Errorf("ExeBuildID = %q, want %q", got, want)
	}
	if !strings.HasPrefix(SelfVersion(), "buildid ") {
		t.Errorf("SelfVersion = %q, want the build ID", SelfVersion())
	}
	other := filepath.Join(t.TempDir(), "x")
	os.WriteFile(other, []byte("#!/bin/sh\necho hi\n"), 0o755)
	if got := ExeBuildID(other); got != "" {
		t.Errorf("ExeBuildID(shell script) = %q, want none", got)
	}
}

// TestBuildCacheConcurrentPut: entries stored by many goroutines at once
// (put writes outside the lock, each at the place it took) all read back
// from the next build's pack as they were stored, and the pack's entries
// and index are in the same order; a put after finish stores nothing
// (the incremental builder renders with a finished cache) and leaves no
// temporary pack behind.
func TestBuildCacheConcurrentPut(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir, "salt")
	entry := func(i int) []byte {
		return []byte(strings.Repeat(fmt.Sprintf("<p>page %d</p>", i), 1+i*97%4000)) // 10 B to 60 kB
	}
	const n = 200
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				c.Put(fmt.Sprint("key", i), entry(i))
			}
		}()
	}
	wg.Wait()
	c.Finish(true)
	c.Put("late", entry(1))
	c.Finish(true)
	if names, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
	// A cache that stored nothing before finish: a later put used to
	// start a pack that nothing finished.
	idle := t.TempDir()
	ci := Open(idle, "salt")
	ci.Finish(true)
	ci.Put("late", entry(1))
	if names, _ := filepath.Glob(filepath.Join(idle, ".tmp-*")); len(names) != 0 {
		t.Errorf("a put after finish left %v", names)
	}
	c2 := Open(dir, "salt")
	defer c2.Finish(false)
	c2.openPack()
	if len(c2.old) != n {
		t.Fatalf("the pack holds %d entries, want %d", len(c2.old), n)
	}
	var end int64
	for i := 0; i < n; i++ {
		if got := c2.Get(fmt.Sprint("key", i)); !bytes.Equal(got, entry(i)) {
			t.Fatalf("entry %d reads back as %+v", i, got)
		}
		if r := c2.old[fmt.Sprint("key", i)]; r.off+r.n > end {
			end = r.off + r.n
		}
	}
	if c2.Get("late") != nil {
		t.Error("an entry put after finish is in the pack")
	}
	// The entries fill the pack up to the index: no gap, no overlap.
	var total int64
	for _, r := range c2.old {
		total += r.n
	}
	if total != end {
		t.Errorf("entries hold %d bytes and end at %d", total, end)
	}
}

// TestBuildCacheKeepsUsed: a build that stores entries and uses some of
// the last pack's (read or kept; entries unused in between, so that the
// kept ones lie in runs) writes a pack with exactly those, each with its
// bytes, whatever runs the copy went by.
func TestBuildCacheKeepsUsed(t *testing.T) {
	dir := t.TempDir()
	entry := func(i int) []byte { return []byte(strings.Repeat(fmt.Sprintf("entry %d;", i), 1+i%7)) }
	c := Open(dir, "salt")
	for i := 0; i < 50; i++ {
		c.Put(fmt.Sprint("k", i), entry(i))
	}
	c.Finish(true)
	used := func(i int) bool { return i%5 != 0 && i != 23 }
	c = Open(dir, "salt")
	for i := 0; i < 50; i++ {
		switch {
		case !used(i):
		case i%2 == 0:
			if got := c.Get(fmt.Sprint("k", i)); !bytes.Equal(got, entry(i)) {
				t.Fatalf("entry %d read back %q", i, got)
			}
		default:
			c.Keep(fmt.Sprint("k", i))
		}
	}
	c.Put("new", entry(99))
	c.Finish(true)
	c = Open(dir, "salt")
	defer c.Finish(false)
	for i := 0; i < 50; i++ {
		got := c.Get(fmt.Sprint("k", i))
		if used(i) && !bytes.Equal(got, entry(i)) || !used(i) && got != nil {
			t.Errorf("entry %d: %q (used: %v)", i, got, used(i))
		}
	}
	if got := c.Get("new"); !bytes.Equal(got, entry(99)) {
		t.Errorf("new entry: %q", got)
	}
}

// TestBuildCacheAppends: a build that uses the last pack's entries and
// stores more appends them to the same file (the old entries are not
// copied); one that leaves most of the pack unused writes a new pack of
// the entries it used and stored; bytes an interrupted build appended
// are cut off by the next; an index beside a pack of another identity
// (a build stopped between its renames) is an empty cache.
func TestBuildCacheAppends(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, packName)
	entry := func(i int) []byte { return []byte(strings.Repeat(fmt.Sprintf("entry %d;", i), 50)) }
	stat := func() os.FileInfo {
		t.Helper()
		fi, err := os.Stat(pack)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	check := func(what string, want map[int]bool) {
		t.Helper()
		c := Open(dir, "salt")
		defer c.Finish(false)
		for i := 0; i < 20; i++ {
			got := c.Get(fmt.Sprint("k", i))
			if want[i] && !bytes.Equal(got, entry(i)) || !want[i] && got != nil {
				t.Errorf("%s: entry %d: %.20q (want it: %v)", what, i, got, want[i])
			}
		}
	}
	c := Open(dir, "salt")
	for i := 0; i < 10; i++ {
		c.Put(fmt.Sprint("k", i), entry(i))
	}
	c.Finish(true)
	first := stat()

	c = Open(dir, "salt")
	for i := 0; i < 10; i++ {
		c.Keep(fmt.Sprint("k", i))
	}
	c.Put("k10", entry(10))
	c.Finish(true)
	if after := stat(); !os.SameFile(first, after) || after.Size() != first.Size()+int64(len(entry(10))) {
		t.Fatalf("the pack was not appended to: same file %v, %d bytes after %d", os.SameFile(first, after), after.Size(), first.Size())
	}
	want := map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true}
	check("appended", want)

	// An interrupted build's appended bytes, then a build that appends.
	c = Open(dir, "salt")
	for i := 0; i <= 10; i++ {
		c.Keep(fmt.Sprint("k", i))
	}
	c.Put("k11", entry(11))
	c.mu.Lock()
	c.next.Close() // the process dies: no index written
	c.mu.Unlock()
	c = Open(dir, "salt")
	for i := 0; i <= 10; i++ {
		c.Keep(fmt.Sprint("k", i))
	}
	c.Put("k12", entry(12))
	c.Finish(true)
	want[12] = true
	check("after an interrupted build", want)
	if got := stat().Size(); got != first.Size()+int64(len(entry(10))+len(entry(12))) {
		t.Errorf("pack of %d bytes: the interrupted build's bytes were not cut off", got)
	}

	// Most entries unused: appended still (the build cannot know before
	// its end), then the next build that stores writes a new pack of
	// the entries it used and stored.
	c = Open(dir, "salt")
	c.Keep("k1")
	c.Put("k13", entry(13))
	c.Finish(true)
	check("mostly dead", map[int]bool{1: true, 13: true})
	c = Open(dir, "salt")
	c.Keep("k1")
	c.Keep("k13")
	c.Put("k14", entry(14))
	c.Finish(true)
	if after := stat(); os.SameFile(first, after) || after.Size() != headerLen+int64(len(entry(1))+len(entry(13))+len(entry(14))) {
		t.Errorf("a mostly dead pack was kept: same file %v, %d bytes", os.SameFile(first, after), after.Size())
	}
	check("rewritten", map[int]bool{1: true, 13: true, 14: true})

	// The index of the pack before, beside the new pack.
	oldIndex, err := os.ReadFile(filepath.Join(dir, indexName))
	if err != nil {
		t.Fatal(err)
	}
	c = Open(dir, "salt")
	c.Put("k15", entry(15))
	c.Finish(true) // the others unused: a new index; the next build, a new pack
	c = Open(dir, "salt")
	c.Keep("k15")
	c.Put("k16", entry(16))
	c.Finish(true)
	if after := stat(); after.Size() != headerLen+int64(len(entry(15))+len(entry(16))) {
		t.Fatalf("pack of %d bytes, want a new pack of two entries", after.Size())
	}
	if err := os.WriteFile(filepath.Join(dir, indexName), oldIndex, 0o644); err != nil {
		t.Fatal(err)
	}
	check("another pack's index", nil)
}

// TestBuildCacheTemporaries: a build that finishes removes the
// temporaries of killed builds, not the new pack another build is still
// writing (that build's entries are then the cache's), nor the cache
// when a build finishes between the other's two renames.
func TestBuildCacheTemporaries(t *testing.T) {
	dir := t.TempDir()
	killed, err := os.CreateTemp(dir, ".tmp-pack-*") // a killed build's
	if err != nil {
		t.Fatal(err)
	}
	killed.Close()
	a := Open(dir, "salt")
	a.Put("a", []byte("entry a")) // a new pack: none yet
	b := Open(dir, "salt")
	b.Put("b", []byte("entry b"))
	b.Finish(true)
	if _, err := os.Stat(killed.Name()); !os.IsNotExist(err) {
		t.Errorf("killed build's temporary left (%v)", err)
	}
	a.Finish(true) // after b: its pack and index are the cache
	c := Open(dir, "salt")
	if got := c.Get("a"); string(got) != "entry a" {
		t.Errorf("the entry of the build that finished last: %q", got)
	}
	c.Finish(false)
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) != 0 {
		t.Errorf("temporaries left: %v", left)
	}
	// A killed build's temporary, then a build that stores nothing.
	if killed, err = os.CreateTemp(dir, ".tmp-pack-*"); err != nil {
		t.Fatal(err)
	}
	killed.Close()
	c = Open(dir, "salt")
	c.Get("a")
	c.Finish(true)
	if _, err := os.Stat(killed.Name()); !os.IsNotExist(err) {
		t.Errorf("killed build's temporary left by a build that stored nothing (%v)", err)
	}
}

// TestBuildCacheIndexRewriteRace: a build that stored nothing, but left
// entries unused, does not put back the index it read over the index of
// a build that appended meanwhile (that build's entries were lost, and
// the index could name bytes a later append had cut and written again).
func TestBuildCacheIndexRewriteRace(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir, "salt")
	c.Put("a", []byte("entry a"))
	c.Put("b", []byte("entry b"))
	c.Finish(true)

	reader := Open(dir, "salt") // uses a only: would drop b from the index
	if got := reader.Get("a"); string(got) != "entry a" {
		t.Fatalf("a: %q", got)
	}
	writer := Open(dir, "salt") // appends c beside it
	writer.Keep("a")
	writer.Keep("b")
	writer.Put("c", []byte("entry c"))
	writer.Finish(true)
	reader.Finish(true)

	c = Open(dir, "salt")
	defer c.Finish(false)
	for _, k := range []string{"a", "b", "c"} {
		if got := c.Get(k); string(got) != "entry "+k {
			t.Errorf("%s after both builds: %q", k, got)
		}
	}
}
