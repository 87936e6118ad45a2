package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// copyRepoDir copies the repository's directory name (content, results)
// into the current directory.
func copyRepoDir(t *testing.T, name string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(name, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(name, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPublishCommandEndToEnd publishes the bundled reports from a fresh
// repository to a local bare remote twice.
func TestPublishCommandEndToEnd(t *testing.T) {
	_, bare := gitRepo(t)
	copyRepoDir(t, "content")
	copyRepoDir(t, "results")
	os.WriteFile(".gitignore", []byte("/site/\n"), 0o644)
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(".", "add", "-A")
	git(".", "commit", "-q", "-m", "reports")

	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"publish"}, &out, &errb); err != nil {
		t.Fatalf("publish: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "https://acme.github.io/lab/") {
		t.Errorf("stdout: %s", out.String())
	}
	first := git(bare, "rev-parse", "gh-pages")
	files := git(bare, "ls-tree", "-r", "--name-only", "gh-pages")
	for _, want := range []string{".nojekyll", "index.html", "search.json"} {
		if !strings.Contains("\n"+files+"\n", "\n"+want+"\n") {
			t.Errorf("gh-pages lacks %s:\n%s", want, files)
		}
	}
	home := git(bare, "show", "gh-pages:index.html")
	if !strings.Contains(home, `href="/lab/`) || strings.Contains(home, `href="/assets`) {
		t.Errorf("home page links are not under /lab/")
	}
	if st := git(".", "status", "--porcelain"); st != "" {
		t.Errorf("working tree changed: %s", st)
	}

	out.Reset()
	if err := run(context.Background(), []string{"publish", "--cname", "perf.example.com", "--message", "Second"}, &out, &errb); err != nil {
		t.Fatalf("second publish: %v\n%s", err, errb.String())
	}
	if p := git(bare, "log", "-1", "--format=%P", "gh-pages"); p != first {
		t.Errorf("second commit's parent = %s, want %s", p, first)
	}
	if c := git(bare, "show", "gh-pages:CNAME"); c != "perf.example.com" {
		t.Errorf("CNAME = %q", c)
	}
	if s := git(bare, "log", "-1", "--format=%s", "gh-pages"); s != "Second" {
		t.Errorf("subject = %q", s)
	}
	if home := git(bare, "show", "gh-pages:index.html"); strings.Contains(home, `href="/lab/`) {
		t.Errorf("with a custom domain the links must be at /")
	}
}
