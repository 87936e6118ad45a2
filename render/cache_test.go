package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameTree fails unless the two directories hold the same files, byte for
// byte.
func sameTree(t *testing.T, what, a, b string) {
	t.Helper()
	ta, tb := treeOf(t, a), treeOf(t, b)
	if len(ta) != len(tb) {
		t.Errorf("%s: %d files, %d without the cache", what, len(ta), len(tb))
	}
	for p, data := range tb {
		if got, ok := ta[p]; !ok || string(got) != string(data) {
			t.Errorf("%s: %s differs from the build without the cache", what, p)
		}
	}
}

// TestBuildCache: a build from the cache writes the site a build without
// it writes, byte for byte; a change to any input of a page (its
// Markdown, a result, the base URL) renders that page again; a broken or
// deleted cache only costs time.
func TestBuildCache(t *testing.T) {
	dir := copyFixture(t)
	cacheDir := filepath.Join(dir, "cache")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), CacheDir: cacheDir}
	ref := func() string { // the site as built without the cache
		o := opt
		o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
		st, err := BuildStats(context.Background(), o)
		if err != nil || st.Cached != 0 {
			t.Fatalf("build without the cache: %v, %d pages from the cache", err, st.Cached)
		}
		return o.Out
	}
	build := func(what string, wantCached func(st Stats) bool) {
		t.Helper()
		o := opt
		o.Out = filepath.Join(dir, "site")
		st, err := BuildStats(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !wantCached(st) {
			t.Errorf("%s: %d of %d pages from the cache", what, st.Cached, st.Pages-1)
		}
		sameTree(t, what, o.Out, ref())
	}
	all := func(st Stats) bool { return st.Cached == st.Pages-1 } // the home page is always rendered
	none := func(st Stats) bool { return st.Cached == 0 }
	allBut := func(n int) func(Stats) bool { return func(st Stats) bool { return st.Cached == st.Pages-1-n } }

	build("cold", none)
	build("warm", all)

	about := filepath.Join(dir, "content", "about.md")
	src, _ := os.ReadFile(about)
	writeFile(t, about, string(src)+"\nOne more line.\n")
	build("about.md edited", allBut(1))

	res, _ := filepath.Glob(filepath.Join(dir, "results", "demo-h100", "*.json"))
	if len(res) == 0 {
		t.Fatal("fixture has no results")
	}
	data, _ := os.ReadFile(res[0])
	edited := strings.Replace(string(data), `"error": "engine exited`, `"error": "the engine exited`, 1)
	if edited == string(data) {
		t.Fatalf("%s: no error to edit", res[0])
	}
	writeFile(t, res[0], edited)
	build("a result edited", allBut(2)) // demo/h100/ and demo/blocks/ read it
	build("warm again", all)

	// A broken entry is a miss, not an error.
	entries, _ := os.ReadDir(cacheDir)
	for _, e := range entries {
		writeFile(t, filepath.Join(cacheDir, e.Name()), "not gob")
	}
	build("broken entries", none)
	if err := os.RemoveAll(cacheDir); err != nil {
		t.Fatal(err)
	}
	build("cache deleted", none)
	build("warm after deletion", all)

	// The base URL shows in every page: another one misses.
	opt.BaseURL = "/perflab/"
	build("another base URL", none)
	build("warm with it", all)
	// Unused entries (the other base URL's) were pruned.
	if n, _ := os.ReadDir(cacheDir); len(n) != len(entries) {
		t.Errorf("%d cache entries after pruning, want %d (one per page)", len(n), len(entries))
	}
}

// TestBuilderSharesCache: the preview server's full build takes the pages
// perflab build left in the cache, and writes the same site.
func TestBuilderSharesCache(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	st, err := BuildStats(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := treeOf(t, opt.Out)
	inc, err := NewBuilder(opt).Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !inc.Full || inc.Cached != st.Pages-1 {
		t.Errorf("serve's first build: full %v, %d pages from the cache, want all %d", inc.Full, inc.Cached, st.Pages-1)
	}
	got := treeOf(t, opt.Out)
	for p, b := range want {
		if string(got[p]) != string(b) {
			t.Errorf("%s differs between perflab build and the builder's build from the cache", p)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files, want %d", len(got), len(want))
	}
}

// TestBuildCacheSweep: a sweep report (curves, SLO, repeats, curves.csv)
// from the cache is the report rendered afresh.
func TestBuildCacheSweep(t *testing.T) {
	content, results := sweepSite(t, 4, 0.01, "")
	dir := t.TempDir()
	ref := Options{Content: content, Results: results, Out: filepath.Join(dir, "ref"), NoCache: true}
	if err := Build(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	opt := Options{Content: content, Results: results, Out: filepath.Join(dir, "site"), CacheDir: filepath.Join(dir, "cache")}
	for i, want := range []int{0, 1} {
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Cached != want {
			t.Errorf("build %d: %d pages from the cache, want %d", i+1, st.Cached, want)
		}
		sameTree(t, fmt.Sprintf("build %d", i+1), opt.Out, ref.Out)
	}
	if _, err := os.Stat(filepath.Join(opt.Out, "sw", "curves.csv")); err != nil {
		t.Error(err)
	}
}

// TestRebuildUnchanged: a rebuild that would write the same site leaves
// the output directory untouched (no new directory swapped in, no file
// rewritten); a file edited, deleted or added in the output, or a page
// changed, makes the build write a site byte-identical to a build
// without the cache.
func TestRebuildUnchanged(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), CacheDir: filepath.Join(dir, "cache"), Out: filepath.Join(dir, "site")}
	ref := func() string {
		o := opt
		o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
		if err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return o.Out
	}
	build := func(what string, wantKept bool) Stats {
		t.Helper()
		before, _ := os.Stat(opt.Out)
		page := filepath.Join(opt.Out, "about", "index.html")
		pageBefore, _ := os.Stat(page)
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.Stat(opt.Out)
		pageAfter, _ := os.Stat(page)
		kept := before != nil && os.SameFile(before, after) && pageBefore != nil && pageAfter.ModTime().Equal(pageBefore.ModTime())
		if kept != wantKept {
			t.Errorf("%s: output directory left as it was = %v, want %v", what, kept, wantKept)
		}
		sameTree(t, what, opt.Out, ref())
		if left, _ := filepath.Glob(filepath.Join(dir, ".site.build-*")); len(left) != 0 {
			t.Errorf("%s: temporary directories left: %v", what, left)
		}
		return st
	}
	build("cold", false)
	if st := build("unchanged", true); st.LaidOut != 0 {
		t.Errorf("unchanged: %d pages laid out again, want 0", st.LaidOut)
	}
	build("unchanged again", true)

	page := filepath.Join(opt.Out, "demo", "h100", "index.html")
	writeFile(t, page, "edited by hand")
	build("a page edited in the output", false)
	build("unchanged after the repair", true)

	os.Remove(filepath.Join(opt.Out, "assets", "site.css"))
	build("a file deleted from the output", false)
	os.Remove(filepath.Join(opt.Out, "search.js"))
	build("the search index deleted from the output", false)
	writeFile(t, filepath.Join(opt.Out, "search.json"), "[]")
	build("the search index edited in the output", false)
	writeFile(t, filepath.Join(opt.Out, "stray.html"), "x")
	build("a file added to the output", false)
	os.MkdirAll(filepath.Join(opt.Out, "empty"), 0o755)
	build("a directory added to the output", false)

	about := filepath.Join(dir, "content", "about.md")
	src, _ := os.ReadFile(about)
	writeFile(t, about, string(src)+"\nOne more line.\n")
	build("about.md edited", false)
	build("unchanged after the edit", true)

	// An edit that leaves the page's bytes as they were (a trailing blank
	// line): the page is laid out again under its new key and Out is left
	// alone, but the manifest records the new key, so the next build
	// takes the page as it is.
	src, _ = os.ReadFile(about)
	writeFile(t, about, string(src)+"\n")
	if st := build("a blank line added", true); st.LaidOut == 0 {
		t.Errorf("a blank line added: no page laid out again")
	}
	if st := build("unchanged after the blank line", true); st.LaidOut != 0 {
		t.Errorf("unchanged after the blank line: %d pages laid out again, want 0", st.LaidOut)
	}

	// A new title shows in every page's navigation: pages laid out
	// again, from the cache.
	src, _ = os.ReadFile(about)
	writeFile(t, about, strings.Replace(string(src), "# About this lab", "# About the lab", 1))
	build("a title in the navigation edited", false)
	demo := filepath.Join(opt.Out, "demo", "h100", "index.html")
	if data, _ := os.ReadFile(demo); !strings.Contains(string(data), "About the lab") {
		t.Errorf("%s: navigation does not show the new title", demo)
	}
	build("unchanged after the title", true)

	os.RemoveAll(opt.CacheDir)
	build("cache deleted", false)
	build("unchanged with a new cache", true)
}

// TestBuildCacheDamagedPack: an entry whose text was damaged in the pack
// (its lengths intact, so that it decodes) is a miss: the page is
// rendered again, not written with the damage in it.
func TestBuildCacheDamagedPack(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
		CacheDir: filepath.Join(dir, "cache"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(opt.CacheDir, "pack")
	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	// Letters become x in the middle of the entries (the pack holds a
	// header and the entries; its index is a file beside it).
	end := len(data)
	n := 0
	for i := end / 3; i < end/3*2; i++ {
		if c := data[i]; c >= 'a' && c <= 'w' {
			data[i] = 'x'
			n++
		}
	}
	if n == 0 {
		t.Fatal("no text in the pack")
	}
	if err := os.WriteFile(pack, data, 0o600); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(opt.Out) // the pages come from the pack, not from Out
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	o := opt
	o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "the pack damaged", opt.Out, o.Out)
}

// TestBuildCachePackDamage: a pack or its index cut short, a pack whose
// header is not its index's, or one with a run of zeros where entries
// were (what a write that never happened leaves in a file written with
// WriteAt) costs rendering again: the site is the one a build without
// the cache writes, and the build after it takes every page from the
// pack it wrote.
func TestBuildCachePackDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(pack, index []byte) ([]byte, []byte)
	}{
		{"cut in the entries", func(d, ix []byte) ([]byte, []byte) { return d[:len(d)/3], ix }},
		{"index cut", func(d, ix []byte) ([]byte, []byte) { return d, ix[:len(ix)-20] }},
		{"header of another pack", func(d, ix []byte) ([]byte, []byte) {
			d[20] ^= 0xff
			return d, ix
		}},
		{"zeros where entries were", func(d, ix []byte) ([]byte, []byte) {
			clear(d[len(d)/4 : len(d)/2])
			return d, ix
		}},
		{"empty", func(d, ix []byte) ([]byte, []byte) { return nil, ix }},
		{"index empty", func(d, ix []byte) ([]byte, []byte) { return d, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t)
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
				CacheDir: filepath.Join(dir, "cache"), Out: filepath.Join(dir, "site")}
			if err := Build(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			pack, index := filepath.Join(opt.CacheDir, "pack"), filepath.Join(opt.CacheDir, "pack.index")
			data, err := os.ReadFile(pack)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			data, ix = tc.damage(data, ix)
			if err := os.WriteFile(pack, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(index, ix, 0o600); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(opt.Out) // the pages come from the pack, not from Out
			if err := Build(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			o := opt
			o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
			if err := Build(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			sameTree(t, tc.name, opt.Out, o.Out)
			os.RemoveAll(opt.Out)
			st, err := BuildStats(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Cached != st.Pages-1 {
				t.Errorf("after the damage: %d of %d pages from the rewritten pack", st.Cached, st.Pages-1)
			}
			sameTree(t, tc.name+", then from the pack", opt.Out, o.Out)
		})
	}
}
