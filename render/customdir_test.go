package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplatesDirOverlay: a templates directory is laid over the
// built-in templates as MkDocs' custom_dir is: its definition of "runs"
// replaces the built-in one while every other template stays; its
// assets/site.css replaces the built-in one, a new asset is added and
// the other built-in assets are still written.
func TestTemplatesDirOverlay(t *testing.T) {
	dir := t.TempDir()
	tdir := filepath.Join(dir, "overrides")
	if err := os.MkdirAll(filepath.Join(tdir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"mine.html":           `{{define "runs"}}<p class="lab-runs">{{len .Rows}} runs</p>{{end}}`,
		"assets/site.css":     "/* the lab's css */\n",
		"assets/lab-logo.svg": "<svg/>\n",
	} {
		if err := os.WriteFile(filepath.Join(tdir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "site")
	opt := Options{Content: fixtureSite + "/content", Results: fixtureSite + "/results", Out: out, TemplatesDir: tdir, CacheDir: filepath.Join(dir, "cache")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var runs, tables int
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".html" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		runs += strings.Count(s, `<p class="lab-runs">`)
		tables += strings.Count(s, `<table class="sortable runs">`)
		if !strings.Contains(s, `<footer class="foot">`) {
			t.Errorf("%s: the built-in layout is gone", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs == 0 || tables != 0 {
		t.Errorf("the lab's runs template was used %d times, the built-in one %d times", runs, tables)
	}
	if got := read("assets/site.css"); got != "/* the lab's css */\n" {
		t.Errorf("assets/site.css = %.60q, want the lab's", got)
	}
	read("assets/lab-logo.svg")
	if !strings.Contains(read("assets/echarts.min.js"), "echarts") {
		t.Error("the built-in echarts.min.js is missing")
	}

	opt.TemplatesDir = filepath.Join(dir, "missing")
	if err := Build(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing templates directory: err = %v, want one naming it", err)
	}
}
