package output

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitignoreBuildDirs: the repository's .gitignore, which a lab starts
// from, ignores every directory a build of site leaves beside it as well
// as site itself: the kept previous site (.site.prev, left after every
// changing build with the cache: `git add -A` committed a whole second
// site) and what a killed build leaves (the build directory, the old site
// moved aside).
func TestGitignoreBuildDirs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ignore, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	out := filepath.Join(repo, "site")
	build, err := MakeBuildDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{out, RetainedDir(out), build, RetainedDir(out) + ".old", build + ".old"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(st) != "?? .gitignore\n" {
		t.Errorf("git status shows what a build of site left beside it:\n%s", st)
	}
}
