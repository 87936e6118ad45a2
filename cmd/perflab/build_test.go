package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestBuildCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	var stdout, stderr bytes.Buffer
	args := []string{"--content", "../../render/testdata/site/content", "--results", "../../render/testdata/site/results", "--out", out, "--base-url", "/perflab/"}
	if err := run(context.Background(), append([]string{"build"}, args...), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !regexp.MustCompile(`^perflab build: 4 pages \(2 reports\), \d+ files in .*public, \d+(\.\d+)?m?s\n$`).MatchString(stderr.String()) {
		t.Errorf("summary line = %q", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
	page, err := os.ReadFile(filepath.Join(out, "demo/h100/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `href="/perflab/assets/site.css"`) {
		t.Error("--base-url not applied")
	}
}

// TestBuildCommandTemplates: --templates lays a directory over the
// built-in templates: its "home" replaces the built-in one, the layout
// stays.
func TestBuildCommandTemplates(t *testing.T) {
	dir := t.TempDir()
	tdir := filepath.Join(dir, "look")
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tdir, "home.html"), []byte(`{{define "home"}}<p id="our-lab">{{len .Reports}} reports</p>{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "site")
	var stdout, stderr bytes.Buffer
	args := []string{"build", "--content", "../../render/testdata/site/content", "--results", "../../render/testdata/site/results", "--out", out, "--templates", tdir}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	home, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(home), `<p id="our-lab">2 reports</p>`) || !strings.Contains(string(home), `<footer class="foot">`) {
		t.Errorf("home page with --templates:\n%.600s", home)
	}
}

func TestBuildCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "content", "x.md")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("---\nnope: 1\n---\n# X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"build", "--frobnicate"}, 2, "flag provided but not defined"},
		{[]string{"build", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"build", "--content", filepath.Join(dir, "content"), "--out", filepath.Join(dir, "site")}, 1, `x.md:2: unknown field "nope" in front matter`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d stderr %q; want exit %d and %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
	}
}

// TestBuildCacheAcrossBinaries: `make build` runs `go run`, which links
// perflab afresh at another path each time; two binaries of the same
// source must share the build cache, so the second build renders no page.
func TestBuildCacheAcrossBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "site")
	args := []string{"build", "--content", "../../render/testdata/site/content", "--results", "../../render/testdata/site/results", "--out", out, "--cache-dir", filepath.Join(dir, "cache")}
	for i, want := range []string{"", " (3 pages from the cache)"} { // the home page is not cached
		bin := filepath.Join(dir, fmt.Sprintf("bin%d", i), "perflab")
		if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
		}
		if got := regexp.MustCompile(`files in .*site(.*), \d`).FindStringSubmatch(stderr.String()); got == nil || got[1] != want {
			t.Errorf("build %d: summary %q, want %q after the site path", i+1, stderr.String(), want)
		}
	}
}

// TestBuildCommandInterrupted: a build stopped by Ctrl-C says it was
// interrupted and that the site is as it was (it said "build: context
// canceled"), and leaves the site as it was.
func TestBuildCommandInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	args := []string{"build", "--content", "../../render/testdata/site/content", "--results", "../../render/testdata/site/results", "--out", out}
	if err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = run(ctx, append(args, "--no-cache"), &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "build: interrupted (context canceled): "+out+" is as it was") {
		t.Fatalf("interrupted build: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "index.html")); !bytes.Equal(after, before) {
		t.Error("the interrupted build changed the site")
	}
}
