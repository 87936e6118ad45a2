package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a source repository in a temporary directory whose origin
// is https://github.com/acme/lab.git, rewritten to a local bare
// repository, and makes it the current directory. It returns the bare
// repository's path.
func gitRepo(t *testing.T) (src, bare string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git not found")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "tester@example.com",
		"GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "tester@example.com",
	} {
		t.Setenv(k, v)
	}
	root := t.TempDir()
	src, bare = filepath.Join(root, "src"), filepath.Join(root, "lab.git")
	git := func(dir string, args ...string) {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(root, "init", "-q", "--bare", bare)
	git(root, "init", "-q", "-b", "main", src)
	git(src, "remote", "add", "origin", "https://github.com/acme/lab.git")
	git(src, "config", "url."+bare+".insteadOf", "https://github.com/acme/lab.git")
	t.Chdir(src)
	return src, bare
}

func TestPublishCommandRefusesAFailedBuild(t *testing.T) {
	_, bare := gitRepo(t)
	os.MkdirAll("content", 0o755)
	os.WriteFile("content/index.md", []byte("---\nnot_a_key: 1\n---\n# Home\n"), 0o644)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"publish"}, &out, &errb)
	if code := exitCode(err, &errb); code != 1 {
		t.Fatalf("exit %d, want 1 (%v)", code, err)
	}
	if !strings.Contains(errb.String(), "build failed, nothing published") {
		t.Errorf("stderr: %s", errb.String())
	}
	if b, _ := exec.Command("git", "-C", bare, "branch", "--list").Output(); len(b) != 0 {
		t.Errorf("the remote got branches: %s", b)
	}
	if b, _ := exec.Command("git", "branch", "--list", "gh-pages").Output(); len(b) != 0 {
		t.Errorf("a local gh-pages was made: %s", b)
	}
}

// TestPublishLeavesThePreviewSiteAlone checks that publish builds away
// from site/: a running perflab serve previews site/ (built for /) and
// does not watch it, so a site built there for /lab/ would be served with
// broken links.
func TestPublishLeavesThePreviewSiteAlone(t *testing.T) {
	_, bare := gitRepo(t)
	os.MkdirAll("content", 0o755)
	os.WriteFile("content/index.md", []byte("# Home\n"), 0o644)
	os.WriteFile(".gitignore", []byte("/site/\n"), 0o644)
	os.MkdirAll("site", 0o755)
	os.WriteFile("site/index.html", []byte("the preview's page"), 0o644)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"publish"}, &out, &errb); err != nil {
		t.Fatalf("publish: %v\n%s", err, errb.String())
	}
	if b, _ := os.ReadFile("site/index.html"); string(b) != "the preview's page" {
		t.Errorf("site/index.html after publish: %.80q", b)
	}
	home, err := exec.Command("git", "-C", bare, "show", "gh-pages:index.html").Output()
	if err != nil || !bytes.Contains(home, []byte(`href="/lab/`)) {
		t.Errorf("published home page: %v %.200q", err, home)
	}
}
