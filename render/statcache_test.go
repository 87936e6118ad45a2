//go:build linux

package render

import (
	"github.com/perflab/perflab/render/output"

	"github.com/perflab/perflab/render/inputs"

	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// statCacheFixture is the fixture site with a cache directory, a --no-cache
// reference build and a build that checks its output against it.
type statCacheFixture struct {
	t   *testing.T
	dir string
	opt Options
}

func newStatCacheFixture(t *testing.T) *statCacheFixture {
	dir := copyFixture(t)
	return &statCacheFixture{t: t, dir: dir, opt: Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
		CacheDir: filepath.Join(dir, "cache"), Out: filepath.Join(dir, "site")}}
}

// build builds with the cache and requires the site a build without it
// writes, byte for byte.
func (f *statCacheFixture) build(what string) Stats {
	f.t.Helper()
	st, err := BuildStats(context.Background(), f.opt)
	if err != nil {
		f.t.Fatalf("%s: %v", what, err)
	}
	o := f.opt
	o.NoCache, o.Out = true, filepath.Join(f.t.TempDir(), "site")
	if err := Build(context.Background(), o); err != nil {
		f.t.Fatal(err)
	}
	sameTree(f.t, what, f.opt.Out, o.Out)
	return st
}

// hashed is how many inputs a Load hashes rather than take from the input
// stat cache.
func (f *statCacheFixture) hashed() int {
	f.t.Helper()
	s, err := loadForBuild(context.Background(), f.opt)
	if err != nil {
		f.t.Fatal(err)
	}
	defer s.InputStats.Abandon()
	if s.InputStats == nil {
		f.t.Fatal("no input stat cache")
	}
	return s.InputStats.Hashed()
}

// settle builds until the input stat cache holds every input: a file
// changed in the same timestamp tick as a build began is hashed again
// by the next one (racy), so the fixture's fresh files may take a build
// or two.
func (f *statCacheFixture) settle(what string) {
	f.t.Helper()
	for i := 0; i < 50; i++ {
		f.build(what)
		if f.hashed() == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("%s: inputs still hashed after 50 builds", what)
}

// sameSizeEdit rewrites path with content of the same length (the first
// from replaced by to, which must be as long) and puts its modification
// time back, so that a check of size and modification time alone sees
// no change; with rename, the new bytes come in a new file renamed over
// the old one.
func sameSizeEdit(t *testing.T, path, from, to string, rename bool) {
	t.Helper()
	if len(from) != len(to) {
		t.Fatalf("%q and %q differ in length", from, to)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	edited := strings.Replace(string(data), from, to, 1)
	if edited == string(data) {
		t.Fatalf("%s: no %q", path, from)
	}
	target := path
	if rename {
		target = path + ".new"
	}
	if err := os.WriteFile(target, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(target, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if rename {
		if err := os.Rename(target, path); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := os.Stat(path)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("%s: size or modification time changed", path)
	}
}

// TestInputStatCache: an unchanged rebuild hashes no input (the input stat
// cache has them), and every way of changing an input is still noticed,
// including those a check of size and modification time alone misses:
// the site equals a build without the cache after each.
func TestInputStatCache(t *testing.T) {
	f := newStatCacheFixture(t)
	f.settle("cold")
	about := filepath.Join(f.opt.Content, "about.md")
	campaign := filepath.Join(f.opt.Content, "demo", "h100", "campaign.yaml")
	aboutPage := filepath.Join(f.opt.Out, "about", "index.html")
	steps := []struct {
		name   string
		change func()
		want   string // in the about page after the change, when set
	}{
		// Same size, modification time put back: a size+mtime check
		// takes the old hash; the change time differs.
		{"about.md edited, size and mtime kept", func() { sameSizeEdit(t, about, "About this lab", "About thus lab", false) }, "About thus lab"},
		// A new file renamed over it: another inode.
		{"about.md replaced, size and mtime kept", func() { sameSizeEdit(t, about, "About thus lab", "About thix lab", true) }, "About thix lab"},
		{"about.md touched", func() {
			now := time.Now()
			os.Chtimes(about, now, now)
		}, "About thix lab"},
		{"campaign edited, size and mtime kept", func() { sameSizeEdit(t, campaign, "high throughput", "high thruput!!!", false) }, ""},
		{"a page added", func() { writeFile(t, filepath.Join(f.opt.Content, "new.md"), "# New page\n\nText.\n") }, ""},
		{"a draft added", func() { writeFile(t, filepath.Join(f.opt.Content, "draft.md"), "---\ndraft: true\n---\n# Draft\n") }, ""},
		{"a title in front matter", func() {
			writeFile(t, filepath.Join(f.opt.Content, "new.md"), "---\ntitle: Front\nweight: -1\n---\n# New page\n\nText.\n")
		}, ""},
		// Another base URL keys every page anew: each is rendered from
		// its body, read then (Load took it from the input stat cache).
		{"another base URL", func() { f.opt.BaseURL = "/perflab/" }, ""},
		{"the base URL back", func() { f.opt.BaseURL = "" }, ""},
		{"a page deleted", func() { os.Remove(filepath.Join(f.opt.Content, "new.md")) }, ""},
	}
	for _, s := range steps {
		s.change()
		f.build(s.name) // equal to the build without the cache
		if s.want != "" {
			if data, _ := os.ReadFile(aboutPage); !strings.Contains(string(data), s.want) {
				t.Errorf("%s: the page does not say %q", s.name, s.want)
			}
		}
		f.settle(s.name)
	}
	if _, err := os.Stat(filepath.Join(f.opt.Out, "new")); err == nil {
		t.Error("the deleted page is still in the site")
	}
	if _, err := os.Stat(filepath.Join(f.opt.Out, "draft")); err == nil {
		t.Error("the draft is in the site")
	}
	// Settled, Load reads no page: each one's front matter and heading
	// come from the input stat cache.
	s, err := loadForBuild(context.Background(), f.opt)
	if err != nil {
		t.Fatal(err)
	}
	s.InputStats.Abandon()
	for _, p := range append(s.Pages, s.Home) {
		if p.BodyLoaded() {
			t.Errorf("%s was read", p.Src)
		}
	}
}

// editManifest rewrites the manifest of f's output directory with edit.
func (f *statCacheFixture) editManifest(edit func(m *output.Manifest)) {
	f.t.Helper()
	out, _ := filepath.Abs(f.opt.Out)
	m := output.ReadManifest(f.opt.CacheDir, out)
	if m == nil {
		f.t.Fatal("no manifest")
	}
	edit(m)
	fh, err := os.Create(output.ManifestPath(f.opt.CacheDir, out))
	if err != nil {
		f.t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.Write(m.Encode()); err != nil {
		f.t.Fatal(err)
	}
}

// identity is path's identity as the manifest records it.
func identity(t *testing.T, path string) inputs.ID {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := inputs.StatID(st)
	return id
}

// TestOutputManifestStat: an unchanged rebuild does not read Out's
// directories (their identities are recorded), yet every change to Out
// is noticed: a stray file deep in a subdirectory, a file rewritten with
// its size and modification time put back or replaced by another, and the
// racy cases (a change the manifest's identities cannot see, made in the
// tick it was written): the site equals a build without the cache.
func TestOutputManifestStat(t *testing.T) {
	f := newStatCacheFixture(t)
	f.settle("cold")
	kept := func(what string) {
		t.Helper()
		before, _ := os.Stat(f.opt.Out)
		if st := f.build(what); st.LaidOut != 0 {
			t.Errorf("%s: %d pages laid out", what, st.LaidOut)
		}
		if after, _ := os.Stat(f.opt.Out); !os.SameFile(before, after) {
			t.Errorf("%s: the output directory was replaced", what)
		}
	}
	kept("unchanged")
	page := filepath.Join(f.opt.Out, "about", "index.html")
	steps := []struct {
		name   string
		change func()
		check  func() // after the build, when set
	}{
		{"a file added deep in a subdirectory", func() { writeFile(t, filepath.Join(f.opt.Out, "demo", "h100", "stray.html"), "x") }, nil},
		{"a directory added in a subdirectory", func() { os.Mkdir(filepath.Join(f.opt.Out, "demo", "h100", "empty"), 0o755) }, nil},
		{"a file deleted in a subdirectory", func() { os.Remove(filepath.Join(f.opt.Out, "demo", "h100", "data.csv")) }, nil},
		{"a page touched", func() {
			now := time.Now()
			os.Chtimes(page, now, now)
		}, nil},
		{"a file's mode changed", func() { os.Chmod(page, 0o600) }, func() {
			if st, err := os.Stat(page); err != nil || st.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode not restored: %v", page, st.Mode())
			}
		}},
		// A directory's mode: no file in it changed, but a build without
		// the cache makes it with the mode every directory gets.
		{"a directory's mode changed", func() { os.Chmod(filepath.Join(f.opt.Out, "demo"), 0o700) }, func() {
			probe := filepath.Join(t.TempDir(), "d")
			os.Mkdir(probe, 0o755)
			want, _ := os.Stat(probe)
			if st, err := os.Stat(filepath.Join(f.opt.Out, "demo")); err != nil || st.Mode().Perm() != want.Mode().Perm() {
				t.Errorf("demo: mode not restored: %v, want %v", st.Mode(), want.Mode())
			}
		}},
		{"a directory's mode changed, no directories recorded", func() {
			os.Chmod(filepath.Join(f.opt.Out, "demo", "h100"), 0o700)
			f.editManifest(func(m *output.Manifest) { m.Dirs = nil })
		}, func() {
			if st, err := os.Stat(filepath.Join(f.opt.Out, "demo", "h100")); err != nil || st.Mode().Perm() == 0o700 {
				t.Errorf("demo/h100: mode not restored: %v", st.Mode())
			}
		}},
		{"the output directory's mode changed", func() { os.Chmod(f.opt.Out, 0o700) }, func() {
			if st, err := os.Stat(f.opt.Out); err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("%s: mode not restored: %v", f.opt.Out, st.Mode())
			}
		}},
		{"a page edited, size and mtime kept", func() { sameSizeEdit(t, page, "About this lab", "About thus lab", false) }, nil},
		{"a page replaced, size and mtime kept", func() { sameSizeEdit(t, page, "About this lab", "About thus lab", true) }, nil},
		// Racy: the page changes in the tick the manifest was written, so
		// the identity recorded is the edited file's; Racy makes the next
		// build compare the bytes.
		{"a page edited in the manifest's tick", func() {
			sameSizeEdit(t, page, "About this lab", "About thus lab", false)
			id := identity(t, page)
			f.editManifest(func(m *output.Manifest) {
				e := m.Files["about/index.html"]
				e.ModTime, e.CTime, e.Ino, e.Racy = id.MTime, id.CTime, id.Ino, true
				m.Files["about/index.html"] = e
			})
		}, nil},
		// Racy: a stray file added to a directory in that tick.
		{"a file added in the manifest's tick", func() {
			writeFile(t, filepath.Join(f.opt.Out, "demo", "h100", "stray.html"), "x")
			id := identity(t, filepath.Join(f.opt.Out, "demo", "h100"))
			f.editManifest(func(m *output.Manifest) {
				m.Dirs["demo/h100"] = output.DirRecord{ModTime: id.MTime, CTime: id.CTime, Ino: id.Ino, Racy: true}
			})
		}, nil},
	}
	for _, s := range steps {
		s.change()
		f.build(s.name) // equal to the build without the cache
		if s.check != nil {
			s.check()
		}
		f.build(s.name + ", then unchanged")
		kept(s.name + ", then unchanged again")
	}
	// A directory recorded as Racy and found as it should be is recorded
	// again (the manifest is rewritten), and not read by later builds.
	f.editManifest(func(m *output.Manifest) {
		d := m.Dirs["demo"]
		d.Racy = true
		m.Dirs["demo"] = d
	})
	kept("a racy directory as it should be")
	out, _ := filepath.Abs(f.opt.Out)
	if m := output.ReadManifest(f.opt.CacheDir, out); m == nil || m.Dirs["demo"].Racy {
		t.Error("the racy directory was not recorded again")
	}
}

// TestManifestSearchFile: the search entries of the pages a build takes
// as they are come from the manifest's search file when another page's
// entry changes; a missing or stale file costs rendering those pages
// again, never a wrong index.
func TestManifestSearchFile(t *testing.T) {
	f := newStatCacheFixture(t)
	f.build("cold")
	out, _ := filepath.Abs(f.opt.Out)
	side := output.SidePath(f.opt.CacheDir, out)
	if _, err := os.Stat(side); err != nil {
		t.Fatalf("no search file: %v", err)
	}
	about := filepath.Join(f.opt.Content, "about.md")
	edit := func(what, line string) {
		src, _ := os.ReadFile(about)
		writeFile(t, about, string(src)+"\n"+line+"\n")
		st := f.build(what)
		if st.LaidOut != 1 {
			t.Errorf("%s: %d pages laid out, want 1", what, st.LaidOut)
		}
		// A page rendered again for its search entry is one page from
		// the cache, not two.
		if st.Cached != st.Pages-2 {
			t.Errorf("%s: %d pages from the cache, want %d (all but the home page and about)", what, st.Cached, st.Pages-2)
		}
	}
	edit("about.md edited", "First added line.")
	os.Remove(side)
	edit("about.md edited, search file deleted", "Second added line.")
	// A search file whose entries are not those the manifest recorded.
	os.WriteFile(side, encodeSearchEntries(map[string]searchEntry{"demo/h100/": {Title: "stale", URL: "demo/h100/index.html", Text: "stale"}}), 0o644)
	edit("about.md edited, search file stale", "Third added line.")
	if data, _ := os.ReadFile(filepath.Join(f.opt.Out, "search.json")); strings.Contains(string(data), "stale") {
		t.Error("the stale entry is in the search index")
	}
}

// TestLazyBodyChanged: a page Load took from the input stat cache that
// changes before it is rendered fails the build (its cache key was made
// from the bytes it had), and the next build renders the new text.
func TestLazyBodyChanged(t *testing.T) {
	f := newStatCacheFixture(t)
	f.settle("cold")
	s, err := loadForBuild(context.Background(), f.opt)
	if err != nil {
		t.Fatal(err)
	}
	s.InputStats.Abandon()
	var about *Page
	for _, p := range s.Pages {
		if p.Rel == "about.md" {
			about = p
		}
	}
	if about == nil || about.BodyLoaded() {
		t.Fatal("about.md was read by Load")
	}
	src, _ := os.ReadFile(about.Src)
	writeFile(t, about.Src, string(src)+"\nLate line.\n")
	if _, err := s.RenderBody(about, nil, nil); err == nil || !strings.Contains(err.Error(), "about.md: changed during the build") {
		t.Errorf("render after a change: %v", err)
	}
	f.build("after the change")
	if data, _ := os.ReadFile(filepath.Join(f.opt.Out, "about", "index.html")); !strings.Contains(string(data), "Late line.") {
		t.Error("the new text is not in the page")
	}
}

// TestBuildLocksOut: a build writes Out only while it holds lockOut's
// lock, so that a second build (or perflab serve) writing the same Out
// meanwhile cannot leave its files under the first one's manifest. The
// previous site kept beside Out (output.RetainedDir), which the next
// build writes into, is not touched either.
func TestBuildLocksOut(t *testing.T) {
	f := newStatCacheFixture(t)
	f.build("cold")
	writeFile(t, filepath.Join(f.opt.Content, "other.md"), "# Other page\n")
	f.build("a page added: the old site is kept")
	out, _ := filepath.Abs(f.opt.Out)
	prev := output.RetainedDir(out)
	if _, err := os.Stat(prev); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.opt.Content, "new.md"), "# New page\n")
	unlock := output.Lock(out)
	done := make(chan error, 1)
	go func() { _, err := BuildStats(context.Background(), f.opt); done <- err }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("the build finished while another held Out's lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(f.opt.Out, "new")); err == nil {
		t.Error("the page is in Out while another build held its lock")
	}
	if _, err := os.Stat(filepath.Join(prev, "new")); err == nil {
		t.Error("the page is in the kept previous site while another build held Out's lock")
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.build("after the lock")
	if _, err := os.Stat(filepath.Join(f.opt.Out, "new", "index.html")); err != nil {
		t.Error(err)
	}
}

// TestInputChangedWhileRead: an input changed between readInput's stat
// (as recorded) and its read is hashed, not given its recorded sum: with
// that sum the page was taken from the build cache as it was before the
// change, or rendered from the new bytes and cached under the old sum.
func TestInputChangedWhileRead(t *testing.T) {
	f := newStatCacheFixture(t)
	f.settle("cold")
	campaign := filepath.Join(f.opt.Content, "demo", "h100", "campaign.yaml")
	var once sync.Once
	inputs.TestHookAfterStat = func(name string) {
		if name == campaign {
			once.Do(func() { sameSizeEdit(t, campaign, "version: v0.11.0", "version: v0.12.9", false) })
		}
	}
	defer func() { inputs.TestHookAfterStat = nil }()
	st, err := BuildStats(context.Background(), f.opt)
	if err != nil {
		t.Fatal(err)
	}
	inputs.TestHookAfterStat = nil
	if st.Cached == 0 {
		t.Fatal("nothing from the cache: the fixture did not settle")
	}
	o := f.opt
	o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "the campaign edited while it was read", f.opt.Out, o.Out)
	f.build("then unchanged")
}

// TestInputStatsDamaged: a page's heading damaged in the input stat cache
// (its lengths intact) is not taken for the page's: the file is dropped.
func TestInputStatsDamaged(t *testing.T) {
	f := newStatCacheFixture(t)
	f.settle("cold")
	file := filepath.Join(f.opt.CacheDir, "inputs")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	damaged := strings.Replace(string(data), "About this lab", "About xxxx lab", 1)
	if damaged == string(data) {
		t.Fatal("no heading to damage")
	}
	if err := os.WriteFile(file, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	f.build("a heading damaged in the input stat cache") // equal to the build without the cache
}
