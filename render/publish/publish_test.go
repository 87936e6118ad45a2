package publish

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestPagesBaseURL(t *testing.T) {
	cases := []struct {
		remote, want string
		err          bool
	}{
		{"https://github.com/acme/perf-lab.git", "/perf-lab/", false},
		{"https://github.com/acme/perf-lab", "/perf-lab/", false},
		{"https://github.com/acme/perf-lab/", "/perf-lab/", false},
		{"https://user:token@github.com/acme/perf-lab.git", "/perf-lab/", false},
		{"git@github.com:acme/perf-lab.git", "/perf-lab/", false},
		{"github.com:acme/perf-lab.git", "/perf-lab/", false},
		{"ssh://git@github.com/acme/perf-lab.git", "/perf-lab/", false},
		{"ssh://git@github.com:22/acme/perf-lab.git", "/perf-lab/", false},
		{"git://github.com/acme/perf-lab.git", "/perf-lab/", false},
		// The user or organisation site is served at the root.
		{"https://github.com/acme/acme.github.io.git", "/", false},
		{"git@github.com:Acme/acme.github.io.git", "/", false},
		// Another owner's .github.io repository is a project site.
		{"https://github.com/acme/other.github.io", "/other.github.io/", false},
		{"https://gitlab.com/acme/perf-lab.git", "", true},
		{"/srv/git/perf-lab.git", "", true},
		{"../perf-lab.git", "", true},
		{"https://github.com/acme", "", true},
		{"https://github.com/acme/perf-lab/extra", "", true},
	}
	for _, c := range cases {
		got, err := PagesBaseURL(c.remote)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("PagesBaseURL(%q) = %q, %v; want %q, error %v", c.remote, got, err, c.want, c.err)
		}
	}
}

// hermetic is the environment for every git command of these tests: no
// user or system configuration, a fixed identity, and no optional index
// refresh (so the tests' own `git status` does not touch the index).
var hermetic = append([]string{"GIT_OPTIONAL_LOCKS=0"}, configEnv...)

// configEnv is what Publish gets: the same without GIT_OPTIONAL_LOCKS, so
// the test sees whether Publish itself avoids writing the index.
var configEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=tester@example.com",
	"GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=tester@example.com",
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), hermetic...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a source repository whose origin is
// https://github.com/acme/lab.git, rewritten (url.insteadOf) to a local
// bare repository, so the base URL is derived as for GitHub and the push
// lands on disk.
type fixture struct {
	src, bare string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git not found")
	}
	root := t.TempDir()
	f := fixture{src: filepath.Join(root, "src"), bare: filepath.Join(root, "remote", "lab.git")}
	gitT(t, root, "init", "-q", "--bare", f.bare)
	gitT(t, root, "init", "-q", "-b", "main", f.src)
	write(t, filepath.Join(f.src, ".gitignore"), "/site/\n")
	write(t, filepath.Join(f.src, "content/about.md"), "# About\n")
	write(t, filepath.Join(f.src, "README.md"), "readme\n")
	gitT(t, f.src, "add", "-A")
	gitT(t, f.src, "commit", "-q", "-m", "source")
	gitT(t, f.src, "remote", "add", "origin", "https://github.com/acme/lab.git")
	gitT(t, f.src, "config", "url."+f.bare+".insteadOf", "https://github.com/acme/lab.git")
	return f
}

// site is a build function writing a two-page site whose links use the
// base URL, with text as the home page's words.
func (f fixture) site(text string) func(ctx context.Context, base string) error {
	return func(ctx context.Context, base string) error {
		site := filepath.Join(f.src, "site")
		if err := os.RemoveAll(site); err != nil {
			return err
		}
		for name, body := range map[string]string{
			"index.html":            `<a href="` + base + `about/">About</a><p>` + text + `</p>`,
			"about/index.html":      `<a href="` + base + `">Home</a>`,
			"assets/echarts.min.js": "/* js */",
		} {
			p := filepath.Join(site, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func (f fixture) config(build func(context.Context, string) error) Config {
	return Config{Dir: f.src, Site: filepath.Join(f.src, "site"), Build: build, Env: configEnv}
}

// snapshot fingerprints what publishing must not touch: every file of the
// working tree (outside .git and the build output), the index file's bytes
// and time, HEAD, and git status.
func (f fixture) snapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(f.src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.src, p)
		if d.IsDir() && (rel == ".git" || rel == "site") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		}
		return nil
	})
	index := filepath.Join(f.src, ".git", "index")
	data, _ := os.ReadFile(index)
	fi, _ := os.Stat(index)
	fmt.Fprintf(&b, "index %x %v\n", sha256.Sum256(data), fi.ModTime().UnixNano())
	fmt.Fprintf(&b, "HEAD %s %s\n", gitT(t, f.src, "symbolic-ref", "HEAD"), gitT(t, f.src, "rev-parse", "HEAD"))
	b.WriteString(gitT(t, f.src, "status", "--porcelain"))
	return b.String()
}

func TestPublishToBareRepository(t *testing.T) {
	f := newFixture(t)
	// Work in progress the publish must leave alone: a staged change, an
	// unstaged one and an untracked file.
	write(t, filepath.Join(f.src, "content/about.md"), "# About (staged)\n")
	gitT(t, f.src, "add", "content/about.md")
	write(t, filepath.Join(f.src, "README.md"), "readme, edited\n")
	write(t, filepath.Join(f.src, "notes.txt"), "untracked\n")
	before := f.snapshot(t)
	source := gitT(t, f.src, "rev-parse", "HEAD")

	res, err := Publish(context.Background(), f.config(f.site("first")))
	if err != nil {
		t.Fatal(err)
	}
	if res.BaseURL != "/lab/" || !res.Pushed || res.Parent != "" || res.Source != source {
		t.Fatalf("first publish = %+v", res)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("the source repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	tip := gitT(t, f.bare, "rev-parse", "refs/heads/gh-pages")
	if tip != res.Commit {
		t.Fatalf("remote gh-pages = %s, want %s", tip, res.Commit)
	}
	files := gitT(t, f.bare, "ls-tree", "-r", "--name-only", "gh-pages")
	if want := ".nojekyll\nabout/index.html\nassets/echarts.min.js\nindex.html"; files != want {
		t.Errorf("branch files:\n%s\nwant:\n%s", files, want)
	}
	if home := gitT(t, f.bare, "show", "gh-pages:index.html"); !strings.Contains(home, `href="/lab/about/"`) {
		t.Errorf("home page links: %q, want href=\"/lab/about/\"", home)
	}
	if about := gitT(t, f.bare, "show", "gh-pages:about/index.html"); !strings.Contains(about, `href="/lab/"`) {
		t.Errorf("about page links: %q", about)
	}
	msg := gitT(t, f.bare, "log", "-1", "--format=%B", "gh-pages")
	if !strings.Contains(msg, "Publish site built from "+source[:12]+" with perflab") ||
		!strings.Contains(msg, "Source commit: "+source+" (with uncommitted changes)") {
		t.Errorf("commit message:\n%s", msg)
	}
	if parents := gitT(t, f.bare, "log", "-1", "--format=%P", "gh-pages"); parents != "" {
		t.Errorf("first commit has parents %q", parents)
	}

	// A new source commit and a custom domain: the site moves to "/".
	gitT(t, f.src, "commit", "-q", "-m", "second source")
	source2 := gitT(t, f.src, "rev-parse", "HEAD")
	before = f.snapshot(t)
	cfg := f.config(f.site("second"))
	cfg.CNAME = "perf.example.com"
	res2, err := Publish(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("the source repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if res2.Parent != res.Commit || res2.BaseURL != "/" || res2.Source != source2 {
		t.Fatalf("second publish = %+v, want parent %s", res2, res.Commit)
	}
	if parents := gitT(t, f.bare, "log", "-1", "--format=%P", "gh-pages"); parents != res.Commit {
		t.Errorf("second commit's parent = %q, want the first %s", parents, res.Commit)
	}
	if n := gitT(t, f.bare, "rev-list", "--count", "gh-pages"); n != "2" {
		t.Errorf("gh-pages has %s commits, want 2", n)
	}
	if cname := gitT(t, f.bare, "show", "gh-pages:CNAME"); cname != "perf.example.com" {
		t.Errorf("CNAME = %q", cname)
	}
	if home := gitT(t, f.bare, "show", "gh-pages:index.html"); !strings.Contains(home, `href="/about/"`) || !strings.Contains(home, "second") {
		t.Errorf("home page after the second publish: %q", home)
	}

	// The same site again: nothing new to commit.
	res3, err := Publish(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res3.Unchanged || res3.Commit != res2.Commit {
		t.Errorf("unchanged publish = %+v", res3)
	}

	// A failed build publishes nothing, locally or remotely.
	before = f.snapshot(t)
	boom := errors.New("render: content/about.md:3: unknown key \"x\"")
	cfg.Build = func(context.Context, string) error { return boom }
	if _, err := Publish(context.Background(), cfg); !errors.Is(err, boom) || !strings.Contains(err.Error(), "nothing published") {
		t.Fatalf("failed build: err = %v", err)
	}
	if tip := gitT(t, f.bare, "rev-parse", "gh-pages"); tip != res2.Commit {
		t.Errorf("remote moved after a failed build: %s", tip)
	}
	if tip := gitT(t, f.src, "rev-parse", "gh-pages"); tip != res2.Commit {
		t.Errorf("local branch moved after a failed build: %s", tip)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("the source repository changed on a failed build")
	}
}

func TestPublishNoPushThenPush(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(f.site("one"))
	cfg.NoPush = true
	res, err := Publish(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pushed || gitT(t, f.src, "rev-parse", "gh-pages") != res.Commit {
		t.Fatalf("no-push publish = %+v", res)
	}
	if out := gitT(t, f.bare, "branch", "--list", "gh-pages"); out != "" {
		t.Fatalf("remote has gh-pages after --no-push: %q", out)
	}
	// Pushing later keeps the local commit as the parent.
	cfg.NoPush = false
	cfg.Build = f.site("two")
	res2, err := Publish(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Parent != res.Commit || gitT(t, f.bare, "rev-parse", "gh-pages") != res2.Commit {
		t.Fatalf("push after no-push = %+v", res2)
	}
}

func TestPublishBuildsOnTheRemoteTip(t *testing.T) {
	// Someone else published from another clone; our next publish must
	// build on their commit, not replace it.
	f := newFixture(t)
	if _, err := Publish(context.Background(), f.config(f.site("mine"))); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	gitT(t, filepath.Dir(other), "clone", "-q", f.bare, other)
	gitT(t, other, "remote", "set-url", "origin", f.bare)
	cfg := Config{Dir: other, Site: filepath.Join(other, "site"), Remote: f.bare, BaseURL: "/lab/", Env: configEnv,
		Build: fixture{src: other}.site("theirs")}
	theirs, err := Publish(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Publish(context.Background(), f.config(f.site("mine again")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Parent != theirs.Commit {
		t.Fatalf("parent = %s, want the remote tip %s", res.Parent, theirs.Commit)
	}
}

func TestPublishRefusals(t *testing.T) {
	f := newFixture(t)
	ok := f.site("x")
	cases := []struct {
		name string
		cfg  func(c *Config)
		want string
	}{
		{"no build", func(c *Config) { c.Build = nil }, "no build function"},
		{"unknown remote", func(c *Config) { c.Remote = "upstream" }, `no remote named "upstream"`},
		{"remote not on GitHub", func(c *Config) { c.Remote = "/srv/lab.git" }, "pass --base-url"},
		{"bad branch", func(c *Config) { c.Branch = "gh..pages" }, "not a valid branch name"},
		{"bad CNAME", func(c *Config) { c.CNAME = "https://x.example/" }, "want a domain name"},
		{"not a repository", func(c *Config) { c.Dir = t.TempDir() }, "not in a git repository"},
		{"empty site", func(c *Config) { c.Build = func(context.Context, string) error { return os.MkdirAll(c.Site, 0o755) } }, "is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := f.config(ok)
			os.RemoveAll(cfg.Site)
			c.cfg(&cfg)
			_, err := Publish(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if out := gitT(t, f.src, "branch", "--list", "gh-pages"); out != "" {
		t.Errorf("a refused publish made gh-pages: %q", out)
	}
	// gh-pages checked out in another worktree of the repository.
	pages := filepath.Join(t.TempDir(), "pages")
	gitT(t, f.src, "worktree", "add", "-q", "-b", "gh-pages", pages)
	if _, err := Publish(context.Background(), f.config(ok)); err == nil || !strings.Contains(err.Error(), "checked out in the worktree "+pages) {
		t.Fatalf("publishing onto a branch checked out in another worktree: %v", err)
	}
	gitT(t, f.src, "worktree", "remove", pages)
	gitT(t, f.src, "branch", "-q", "-D", "gh-pages")
	// gh-pages checked out in the source repository: updating it would
	// make the working tree disagree with HEAD.
	gitT(t, f.src, "checkout", "-q", "-b", "gh-pages")
	if _, err := Publish(context.Background(), f.config(ok)); err == nil || !strings.Contains(err.Error(), "checked out") {
		t.Fatalf("publishing onto the checked-out branch: %v", err)
	}
}

func TestSiteTreeModes(t *testing.T) {
	f := newFixture(t)
	site := filepath.Join(t.TempDir(), "site")
	write(t, filepath.Join(site, "index.html"), "home")
	write(t, filepath.Join(site, "run.sh"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(site, "run.sh"), 0o755)
	os.Symlink("index.html", filepath.Join(site, "alias.html"))
	write(t, filepath.Join(site, "CNAME"), "own.example.com\n") // the site's own, kept without --cname
	g := &git{exe: "git", dir: f.src, env: hermetic}
	tree, n, err := g.siteTree(context.Background(), site, "")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(gitT(t, f.src, "ls-tree", "-r", tree), "\n")
	var got []string
	for _, l := range lines {
		meta, path, _ := strings.Cut(l, "\t")
		got = append(got, strings.Fields(meta)[0]+" "+path)
	}
	sort.Strings(got)
	want := []string{"100644 .nojekyll", "100644 CNAME", "100644 index.html", "100755 run.sh", "120000 alias.html"}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || n != 5 {
		t.Errorf("tree (%d files):\n%s\nwant:\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := gitT(t, f.src, "cat-file", "-p", tree+":CNAME"); c != "own.example.com" {
		t.Errorf("CNAME = %q", c)
	}
	tree2, _, err := g.siteTree(context.Background(), site, "perf.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if c := gitT(t, f.src, "cat-file", "-p", tree2+":CNAME"); c != "perf.example.com" {
		t.Errorf("--cname CNAME = %q", c)
	}
}

func TestPagesURL(t *testing.T) {
	cases := []struct{ remote, cname, want string }{
		{"git@github.com:Acme/perf-lab.git", "", "https://acme.github.io/perf-lab/"},
		{"https://github.com/acme/acme.github.io", "", "https://acme.github.io/"},
		{"https://github.com/acme/perf-lab", "perf.example.com", "https://perf.example.com/"},
		{"/srv/git/lab.git", "", ""},
	}
	for _, c := range cases {
		if got := PagesURL(c.remote, c.cname); got != c.want {
			t.Errorf("PagesURL(%q, %q) = %q, want %q", c.remote, c.cname, got, c.want)
		}
	}
}

// TestPublishRejectedPushLeavesBranchesAlone has the remote refuse the
// push (a hook, as branch protection does) and checks that the error
// says so and that neither the remote's nor the local gh-pages moved, on
// a first publish and on a later one.
func TestPublishRejectedPushLeavesBranchesAlone(t *testing.T) {
	f := newFixture(t)
	hook := filepath.Join(f.bare, "hooks", "pre-receive")
	write(t, hook, "#!/bin/sh\necho 'gh-pages is protected' >&2\nexit 1\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Publish(context.Background(), f.config(f.site("one")))
	if err == nil || !strings.Contains(err.Error(), "gh-pages is protected") || !strings.Contains(err.Error(), "not changed") {
		t.Fatalf("first publish to a refusing remote: err = %v", err)
	}
	if out := gitT(t, f.src, "branch", "--list", "gh-pages"); out != "" {
		t.Errorf("local gh-pages made though the push failed: %q", out)
	}

	os.Remove(hook)
	first, err := Publish(context.Background(), f.config(f.site("two")))
	if err != nil {
		t.Fatal(err)
	}
	write(t, hook, "#!/bin/sh\necho 'gh-pages is protected' >&2\nexit 1\n")
	os.Chmod(hook, 0o755)
	if _, err := Publish(context.Background(), f.config(f.site("three"))); err == nil {
		t.Fatal("publish to a refusing remote succeeded")
	}
	if tip := gitT(t, f.src, "rev-parse", "gh-pages"); tip != first.Commit {
		t.Errorf("local gh-pages = %s after a refused push, want %s", tip, first.Commit)
	}
	if tip := gitT(t, f.bare, "rev-parse", "gh-pages"); tip != first.Commit {
		t.Errorf("remote gh-pages = %s, want %s", tip, first.Commit)
	}
}
