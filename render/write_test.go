package render

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perflab/perflab/render/layout"
)

// TestSearchFilesEncoded: the search index joined from entries encoded one
// by one (by the page workers) is json.Marshal's encoding of the whole
// index, for entries with markup, quotes, line and paragraph separators
// and invalid UTF-8; entries without their encoding are encoded there.
func TestSearchFilesEncoded(t *testing.T) {
	index := []searchEntry{
		{Title: "Home", URL: "index.html", Text: "plain"},
		{Title: `<script>"x" & 'y'</script>`, URL: "a/index.html", Tags: "t1 t2", Text: "line\u2028para\u2029end \x00 \xff\xfe"},
		{},
		{Title: "Ünïcödé ✓", URL: "b/c/index.html", Text: strings.Repeat("word ", 900)},
	}
	want, err := json.Marshal(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []int{-1, 0, 1, 3} {
		enc := make([][]byte, len(index))
		for i, e := range index {
			if i != skip {
				enc[i], _ = json.Marshal(e)
			}
		}
		files, err := layout.SearchFilesEncoded(index, enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(files[0].Data); got != string(want)+"\n" {
			t.Errorf("without entry %d's encoding: search.json is\n%s\nwant\n%s", skip, got, want)
		}
		if got := string(files[1].Data); got != "window.perflabSearch="+string(want)+";\n" {
			t.Errorf("without entry %d's encoding: search.js differs", skip)
		}
	}
}

// TestStaticFiles: the files beside the pages (a report's campaign.yaml,
// images; copied by the page workers) are in the site byte for byte,
// after a cold build and after rebuilds that take the pages from the
// input stat cache and the build cache (whose bytes were not read), a
// changed one with its new bytes; one that cannot be read fails the
// build with its name and leaves the site as it was.
func TestStaticFiles(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
		Out: filepath.Join(dir, "site"), CacheDir: filepath.Join(dir, "cache")}
	static := map[string]string{}
	for i := 0; i < 40; i++ { // more files than workers, in several directories
		static[fmt.Sprintf("files/d%d/f%02d.txt", i%3, i)] = strings.Repeat(fmt.Sprint(i), i*100)
	}
	static["demo/h100/chart.svg"] = "<svg/>"
	for rel, data := range static {
		writeFile(t, filepath.Join(opt.Content, filepath.FromSlash(rel)), data)
	}
	check := func(what string) {
		t.Helper()
		for _, rel := range append(mapKeys(static), "demo/h100/campaign.yaml") {
			want, err := os.ReadFile(filepath.Join(opt.Content, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(opt.Out, filepath.FromSlash(rel))); err != nil || string(got) != string(want) {
				t.Errorf("%s: %s in the site: %v, %q, want %q", what, rel, err, truncate(string(got)), truncate(string(want)))
			}
		}
	}
	build := func(what string) Stats {
		t.Helper()
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		check(what)
		return st
	}
	cold := build("cold")
	if st := build("unchanged"); st.Files != cold.Files || st.LaidOut != 0 {
		t.Errorf("unchanged: %d files, %d laid out; cold: %d files", st.Files, st.LaidOut, cold.Files)
	}
	static["files/d1/f04.txt"] = "changed"
	static["demo/h100/chart.svg"] = "<svg>changed</svg>"
	for _, rel := range []string{"files/d1/f04.txt", "demo/h100/chart.svg"} {
		writeFile(t, filepath.Join(opt.Content, filepath.FromSlash(rel)), static[rel])
	}
	build("static files changed")
	campaign := filepath.Join(opt.Content, "demo", "h100", "campaign.yaml")
	data, err := os.ReadFile(campaign)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, campaign, string(data)+"\n# a comment\n")
	build("campaign changed")

	// A static file that cannot be read: a link to nothing.
	before := treeOf(t, opt.Out)
	bad := filepath.Join(opt.Content, "files", "d2", "gone.txt")
	if err := os.Symlink(filepath.Join(dir, "nothing"), bad); err != nil {
		t.Skip("no symbolic links:", err)
	}
	_, err = BuildStats(context.Background(), opt)
	want := fmt.Sprintf("render: open %s: %v", bad, syscall.ENOENT)
	if err == nil || err.Error() != want {
		t.Errorf("unreadable static file: %v, want %s", err, want)
	}
	after := treeOf(t, opt.Out)
	if len(after) != len(before) {
		t.Errorf("the failed build changed the site: %d files, %d before", len(after), len(before))
	}
	for p, d := range before {
		if string(after[p]) != string(d) {
			t.Errorf("the failed build changed %s", p)
		}
	}
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestStaticWins: a file of content/ copied as it is wins over what the
// build makes at the same path (the home page, a report's data.json, the
// stylesheet, the search index), as when the copies were written last:
// after a cold build, after a rebuild that takes the pages from the last
// site (the copies changed), and after one with nothing changed. The
// static copies are written by the page workers now: the search index
// went over its copy, the others raced with theirs, and a page taken
// from the last site brought the old copy back.
func TestStaticWins(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
		Out: filepath.Join(dir, "site"), CacheDir: filepath.Join(dir, "cache")}
	paths := []string{"index.html", "search.json", "search.js", "assets/site.css", "assets/chroma.css", "demo/h100/data.json", "demo/h100/index.html"}
	put := func(round string) {
		for _, rel := range paths {
			writeFile(t, filepath.Join(opt.Content, filepath.FromSlash(rel)), "static "+rel+" "+round)
		}
	}
	check := func(what, round string) {
		t.Helper()
		for _, rel := range paths {
			want := "static " + rel + " " + round
			if got, err := os.ReadFile(filepath.Join(opt.Out, filepath.FromSlash(rel))); err != nil || string(got) != want {
				t.Errorf("%s: %s in the site: %v, %q, want %q", what, rel, err, truncate(string(got)), want)
			}
		}
	}
	put("1")
	for i := 0; i < 3; i++ { // the race of the workers: more than once
		if err := os.RemoveAll(opt.Out); err != nil {
			t.Fatal(err)
		}
		if err := Build(context.Background(), Options{Content: opt.Content, Results: opt.Results, Out: opt.Out, NoCache: true}); err != nil {
			t.Fatal(err)
		}
		check("cold", "1")
	}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	check("with the cache", "1")
	put("2")
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	check("copies changed", "2")
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	check("unchanged", "2")
}
