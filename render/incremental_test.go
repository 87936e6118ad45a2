package render

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// copyDir copies the tree at src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBuilderMatchesFullBuild applies a series of edits to a copy of the
// fixture site and checks after each that the Builder's output is byte
// for byte a fresh full build's, and that it rebuilt incrementally where
// it should.
func TestBuilderMatchesFullBuild(t *testing.T) {
	// "/" gives relative links (pages open from the disk); a base URL
	// gives absolute ones.
	for _, base := range []string{"/", "/lab/"} {
		t.Run("base="+base, func(t *testing.T) { builderMatchesFullBuild(t, base) })
	}
}

func builderMatchesFullBuild(t *testing.T, base string) {
	dir := t.TempDir()
	copyDir(t, fixtureSite, dir)
	copyDir(t, "../templates", filepath.Join(dir, "templates"))
	opt := Options{
		Content:      filepath.Join(dir, "content"),
		Results:      filepath.Join(dir, "results"),
		Out:          filepath.Join(dir, "site"),
		TemplatesDir: filepath.Join(dir, "templates"),
		BaseURL:      base,
	}
	b := NewBuilder(opt)
	if inc, err := b.Build(context.Background(), nil); err != nil || !inc.Full {
		t.Fatalf("first build: %+v, %v", inc, err)
	}
	p := func(rel string) string { return filepath.Join(dir, rel) }
	edit := func(rel, old, new string) func(t *testing.T) {
		return func(t *testing.T) {
			data, err := os.ReadFile(p(rel))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(old)) {
				t.Fatalf("%s lacks %q", rel, old)
			}
			if err := os.WriteFile(p(rel), bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var saved []byte
	steps := []struct {
		name    string
		do      func(t *testing.T)
		changed []string
		full    bool
		pages   []string // pages rendered again by an incremental build
		fails   bool
	}{
		{"a result's numbers", edit("results/demo-h100/vllm-fp8--long.json", `"total_token_throughput_tok_per_s": 1500`, `"total_token_throughput_tok_per_s": 5000.5`),
			[]string{"results/demo-h100/vllm-fp8--long.json"}, false, []string{"demo/blocks/", "demo/h100/"}, false},
		{"a report's narrative", edit("content/demo/h100/index.md", "A short preamble", "An edited preamble"),
			[]string{"content/demo/h100/index.md"}, false, []string{"demo/h100/"}, false},
		{"a result removed", func(t *testing.T) {
			var err error
			saved, err = os.ReadFile(p("results/demo-h100/sglang-base--long.json"))
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(p("results/demo-h100/sglang-base--long.json"))
		}, []string{"results/demo-h100/sglang-base--long.json"}, false, []string{"demo/blocks/", "demo/h100/"}, false},
		{"a result added", func(t *testing.T) {
			os.WriteFile(p("results/demo-h100/sglang-base--long.json"), saved, 0o644)
		}, []string{"results/demo-h100/sglang-base--long.json"}, false, []string{"demo/blocks/", "demo/h100/"}, false},
		// A directory above a report's results moved away (mv results
		// elsewhere): one event, for the directory, not one per file.
		{"the results root moved away", func(t *testing.T) {
			if err := os.Rename(p("results"), p("results.away")); err != nil {
				t.Fatal(err)
			}
		}, []string{"results"}, false, nil, true},
		{"the results root back", func(t *testing.T) {
			if err := os.Rename(p("results.away"), p("results")); err != nil {
				t.Fatal(err)
			}
		}, []string{"results"}, false, []string{"demo/blocks/", "demo/h100/"}, false},
		// sed -i and editors that save through "NAME.new": the temporary
		// file is gone by the build, and read by no page.
		{"a page saved through a temporary file", func(t *testing.T) {
			data, err := os.ReadFile(p("content/demo/h100/index.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte("An edited preamble")) {
				t.Fatal("index.md lacks the text to edit")
			}
			tmp := p("content/demo/h100/sedX1b2c3")
			os.WriteFile(tmp, bytes.Replace(data, []byte("An edited preamble"), []byte("A saved preamble"), 1), 0o644)
			if err := os.Rename(tmp, p("content/demo/h100/index.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{"content/demo/h100/sedX1b2c3", "content/demo/h100/index.md"}, false, []string{"demo/h100/"}, false},
		{"a plain page's text", edit("content/about.md", "Plain MkDocs page", "A plain MkDocs page"),
			[]string{"content/about.md"}, false, []string{"about/"}, false},
		{"a plain page's title (navigation)", edit("content/about.md", "# About this lab", "# About the lab"),
			[]string{"content/about.md"}, true, nil, false},
		{"a campaign's statement", edit("content/demo/h100/campaign.yaml", "objective_statement: Achieve", "objective_statement: Reach"),
			[]string{"content/demo/h100/campaign.yaml"}, false, []string{"demo/blocks/", "demo/h100/"}, false},
		{"a campaign's model name (navigation)", edit("content/demo/h100/campaign.yaml", "  name: Qwen3-32B", "  name: Qwen3 32B"),
			[]string{"content/demo/h100/campaign.yaml"}, true, nil, false},
		{"a broken result", edit("results/demo-h100/vllm-fp8--long.json", `"schema_version": 2,`, `"schema_version": 2,,`),
			[]string{"results/demo-h100/vllm-fp8--long.json"}, false, nil, true},
		// The fix comes with an unrelated change; the failed build's change
		// must still be applied.
		{"fixed, with another edit", func(t *testing.T) {
			edit("results/demo-h100/vllm-fp8--long.json", `"schema_version": 2,,`, `"schema_version": 2,`)(t)
			edit("results/demo-h100/vllm-fp8--long.json", `"total_token_throughput_tok_per_s": 5000.5`, `"total_token_throughput_tok_per_s": 5100`)(t)
			edit("content/about.md", "A plain MkDocs page", "The plain MkDocs page")(t)
		}, []string{"content/about.md"}, false, []string{"about/", "demo/blocks/", "demo/h100/"}, false},
		// A change only a full build handles (a new page) that fails on
		// another page's error; fixing only that file must still bring
		// the new page in.
		{"a new page with a broken result", func(t *testing.T) {
			os.WriteFile(p("content/extra.md"), []byte("# Extra\n\nMore.\n"), 0o644)
			edit("results/demo-h100/vllm-base--long.json", `"schema_version": 2,`, `"schema_version": 2,,`)(t)
		}, []string{"content/extra.md", "results/demo-h100/vllm-base--long.json"}, true, nil, true},
		{"the result fixed", edit("results/demo-h100/vllm-base--long.json", `"schema_version": 2,,`, `"schema_version": 2,`),
			[]string{"results/demo-h100/vllm-base--long.json"}, true, nil, false},
		// The page becomes campaign-only (the skeleton alone), then gets its
		// narrative back.
		{"a report's narrative removed", func(t *testing.T) {
			var err error
			saved, err = os.ReadFile(p("content/demo/h100/index.md"))
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(p("content/demo/h100/index.md"))
		}, []string{"content/demo/h100/index.md"}, true, nil, false},
		{"a report's narrative back", func(t *testing.T) {
			os.WriteFile(p("content/demo/h100/index.md"), saved, 0o644)
		}, []string{"content/demo/h100/index.md"}, false, []string{"demo/h100/"}, false},
		{"a plain page removed", func(t *testing.T) { os.Remove(p("content/about.md")) },
			[]string{"content/about.md"}, true, nil, false},
		{"a new page", func(t *testing.T) { os.WriteFile(p("content/new.md"), []byte("# New\n\nText.\n"), 0o644) },
			[]string{"content/new.md"}, true, nil, false},
		{"the home page removed", func(t *testing.T) { os.Remove(p("content/index.md")) },
			[]string{"content/index.md"}, true, nil, false},
		{"a home page added", func(t *testing.T) {
			os.WriteFile(p("content/index.md"), []byte("---\ntitle: The Lab\n---\nWelcome.\n"), 0o644)
		}, []string{"content/index.md"}, true, nil, false},
		{"the home page's text", edit("content/index.md", "Welcome.", "Welcome back."),
			[]string{"content/index.md"}, false, []string{""}, false},
		{"a template", edit("templates/layout.html", "</body>", "<!-- edited --></body>"),
			[]string{"templates/layout.html"}, true, nil, false},
		{"results of no report", func(t *testing.T) {
			os.MkdirAll(p("results/other"), 0o755)
			os.WriteFile(p("results/other/x.json"), []byte("{"), 0o644)
		},
			[]string{"results/other/x.json"}, false, nil, false},
		{"a hidden file", func(t *testing.T) { os.WriteFile(p("content/.notes.md"), []byte("x"), 0o644) },
			[]string{"content/.notes.md"}, false, nil, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := treeOf(t, opt.Out)
			st.do(t)
			var changed []string
			for _, c := range st.changed {
				changed = append(changed, p(c))
			}
			inc, err := b.Build(context.Background(), changed)
			if st.fails {
				if err == nil {
					t.Fatal("build succeeded")
				}
				if !equalTrees(t, before, treeOf(t, opt.Out)) {
					t.Fatal("a failed build changed the site")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inc.Full != st.full {
				t.Errorf("full = %v (%s), want %v; pages %q", inc.Full, inc.Why, st.full, inc.Pages)
			}
			if !st.full {
				sort.Strings(inc.Pages)
				if strings.Join(inc.Pages, ",") != strings.Join(st.pages, ",") {
					t.Errorf("pages rendered = %q, want %q", inc.Pages, st.pages)
				}
			}
			fresh := filepath.Join(t.TempDir(), "site")
			fo := opt
			fo.Out = fresh
			if err := Build(context.Background(), fo); err != nil {
				t.Fatal(err)
			}
			if !equalTrees(t, treeOf(t, fresh), treeOf(t, opt.Out)) {
				t.Fatal("the incremental site differs from a full build")
			}
		})
	}
}

// equalTrees reports whether two trees hold the same files, naming the
// differences.
func equalTrees(t *testing.T, want, got map[string][]byte) bool {
	t.Helper()
	ok := true
	for name, w := range want {
		g, found := got[name]
		switch {
		case !found:
			t.Errorf("missing %s", name)
			ok = false
		case !bytes.Equal(g, w):
			t.Errorf("%s differs", name)
			ok = false
		}
	}
	for name := range got {
		if _, found := want[name]; !found {
			t.Errorf("extra %s", name)
			ok = false
		}
	}
	return ok
}

// TestBuilderReportsUnchanged checks that a change that alters no output
// (an engine's log beside the results, appended to while collect runs)
// is reported as Unchanged and rewrites no file, and that a real change
// is not.
func TestBuilderReportsUnchanged(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, fixtureSite, dir)
	opt := Options{
		Content: filepath.Join(dir, "content"),
		Results: filepath.Join(dir, "results"),
		Out:     filepath.Join(dir, "site"),
	}
	b := NewBuilder(opt)
	if _, err := b.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(opt.Out, "demo", "h100", "index.html")
	old, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "results", "demo-h100", "vllm-fp8.engine.log")
	for i := range 3 {
		f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("INFO: 127.0.0.1 - \"POST /v1/completions HTTP/1.1\" 200 OK\n")
		f.Close()
		inc, err := b.Build(context.Background(), []string{log})
		if err != nil {
			t.Fatal(err)
		}
		if inc.Full || !inc.Unchanged {
			t.Fatalf("append %d to the engine log: %+v, want an incremental build with Unchanged", i, inc)
		}
	}
	if now, err := os.Stat(page); err != nil || !os.SameFile(old, now) {
		t.Errorf("the report page was rewritten (%v)", err)
	}
	res := filepath.Join(dir, "results", "demo-h100", "vllm-fp8--long.json")
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"total_token_throughput_tok_per_s": 1500`), []byte(`"total_token_throughput_tok_per_s": 1600`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("the fixture result lacks the number to edit")
	}
	if err := os.WriteFile(res, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	inc, err := b.Build(context.Background(), []string{res})
	if err != nil {
		t.Fatal(err)
	}
	if inc.Full || inc.Unchanged {
		t.Fatalf("a result's number edited: %+v, want an incremental build that changed the site", inc)
	}
}
