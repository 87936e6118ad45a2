package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Config says what to publish where. The zero value of every field but
// Build means the documented default.
type Config struct {
	// Dir is a directory inside the source repository; default ".".
	Dir string
	// Site is the directory Build writes; default "site" (relative to the
	// current directory, as the build flags are).
	Site string
	// Remote is a remote's name or a URL; default "origin".
	Remote string
	// Branch is the Pages branch; default "gh-pages".
	Branch string
	// CNAME, when set, is written to the branch's CNAME file (a custom
	// domain serves the site at its root, so the base URL becomes "/").
	CNAME string
	// BaseURL overrides the base URL derived from the remote's address.
	BaseURL string
	// Message is the commit's title; default "Publish site built from
	// <short sha> with perflab". The source commit is always added below.
	Message string
	// NoPush commits to the local branch only.
	NoPush bool
	// AllowSecrets publishes a site that holds token-shaped strings
	// (hf_…, sk-…, ghp_…: collect/redact's Find); by default Publish
	// refuses it, naming each file and line.
	AllowSecrets bool
	// Build renders the site into Site for baseURL. Required.
	Build func(ctx context.Context, baseURL string) error
	// Log receives progress lines; default io.Discard.
	Log io.Writer
	// Git is the git executable; default "git".
	Git string
	// Env is added to git's environment (tests use it for a hermetic
	// configuration).
	Env []string
}

// Result describes what Publish did.
type Result struct {
	BaseURL string // the base URL the site was built for
	Source  string // the source commit (HEAD), "" in a repository without one
	Commit  string // the branch's new tip
	Parent  string // the previous tip the commit builds on; "" for the first
	Files   int    // files on the branch, .nojekyll and CNAME included
	// Unchanged is set when the site is identical to the previous tip's:
	// no commit is made (Commit == Parent).
	Unchanged bool
	Pushed    bool
	// PagesURL is where GitHub Pages serves the branch (see PagesURL);
	// "" when the remote is not on github.com.
	PagesURL string
}

// Publish builds the site for the Pages address and commits it to the
// branch, then pushes unless NoPush. Nothing is committed when the build
// fails; the working tree, index and HEAD are never touched.
func Publish(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &git{exe: cfg.Git, dir: cfg.Dir, env: append([]string{"GIT_OPTIONAL_LOCKS=0"}, cfg.Env...)}
	ref := "refs/heads/" + cfg.Branch
	if err := g.checkBranch(ctx, cfg, ref); err != nil {
		return nil, err
	}
	remoteURL, err := g.remoteURL(ctx, cfg.Remote)
	if err != nil && !cfg.NoPush {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res := &Result{BaseURL: cfg.BaseURL, PagesURL: PagesURL(remoteURL, cfg.CNAME)}
	switch {
	case res.BaseURL != "":
	case cfg.CNAME != "":
		res.BaseURL = "/"
	case err != nil:
		return nil, fmt.Errorf("publish: %w (or pass --base-url)", err)
	default:
		if res.BaseURL, err = PagesBaseURL(remoteURL); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
	}

	fmt.Fprintf(cfg.Log, "publish: building for base URL %s\n", res.BaseURL)
	if err := cfg.Build(ctx, res.BaseURL); err != nil {
		return nil, fmt.Errorf("publish: build failed, nothing published: %w", err)
	}
	if !cfg.AllowSecrets {
		if err := checkSecrets(cfg.Site); err != nil {
			return nil, err
		}
	}

	res.Source, _ = g.out(ctx, nil, nil, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	dirty := false
	if res.Source != "" {
		st, err := g.out(ctx, nil, nil, "status", "--porcelain", "--untracked-files=no")
		dirty = err == nil && st != ""
	}

	tree, files, err := g.siteTree(ctx, cfg.Site, cfg.CNAME)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res.Files = files

	local, _ := g.out(ctx, nil, nil, "rev-parse", "--verify", "-q", ref+"^{commit}")
	res.Parent = local
	if !cfg.NoPush {
		remoteTip, err := g.remoteTip(ctx, cfg.Remote, ref)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		// Build on the remote's tip unless the local branch already
		// contains it (an earlier --no-push publish).
		if remoteTip != "" && (local == "" || !g.isAncestor(ctx, remoteTip, local)) {
			res.Parent = remoteTip
		}
	}

	if res.Parent != "" {
		parentTree, err := g.out(ctx, nil, nil, "rev-parse", res.Parent+"^{tree}")
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		res.Unchanged = parentTree == tree
	}
	if res.Unchanged {
		res.Commit = res.Parent
		fmt.Fprintf(cfg.Log, "publish: site unchanged since %s\n", short(res.Parent))
	} else {
		msg := commitMessage(cfg.Message, res, dirty)
		args := []string{"commit-tree", tree, "-F", "-"}
		if res.Parent != "" {
			args = append(args, "-p", res.Parent)
		}
		if res.Commit, err = g.out(ctx, strings.NewReader(msg), g.identity(ctx), args...); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
	}
	fmt.Fprintf(cfg.Log, "publish: %s commit %s (%d files)\n", cfg.Branch, short(res.Commit), res.Files)
	if !cfg.NoPush {
		// The commit goes to the remote first and the local branch moves
		// only once it is there: a refused push leaves both as they were.
		if _, err := g.out(ctx, nil, nil, "push", "--quiet", cfg.Remote, res.Commit+":"+ref); err != nil {
			return nil, fmt.Errorf("publish: push to %s failed; %s was not changed, there or here: %w", cfg.Remote, cfg.Branch, err)
		}
		res.Pushed = true
		fmt.Fprintf(cfg.Log, "publish: pushed %s to %s\n", cfg.Branch, cfg.Remote)
	}
	if res.Commit != local {
		// The old value makes the update fail if the branch moved meanwhile.
		if _, err := g.out(ctx, nil, nil, "update-ref", "-m", "perflab publish", ref, res.Commit, local); err != nil {
			return res, fmt.Errorf("publish: %w", err)
		}
	}
	return res, nil
}

// withDefaults is cfg with its defaults, or why it cannot be used.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Build == nil {
		return cfg, errors.New("publish: no build function")
	}
	if cfg.Dir == "" {
		cfg.Dir = "."
	}
	if cfg.Site == "" {
		cfg.Site = "site"
	}
	if cfg.Remote == "" {
		cfg.Remote = "origin"
	}
	if cfg.Branch == "" {
		cfg.Branch = "gh-pages"
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Git == "" {
		cfg.Git = "git"
	}
	if strings.ContainsAny(cfg.CNAME, " \t\r\n/") {
		return cfg, fmt.Errorf("publish: CNAME %q: want a domain name such as perf.example.com", cfg.CNAME)
	}
	return cfg, nil
}

// checkBranch makes sure the branch ref can be published to from here:
// a valid name, in a repository, checked out neither here nor in
// another worktree.
func (g *git) checkBranch(ctx context.Context, cfg Config, ref string) error {
	if _, err := g.out(ctx, nil, nil, "check-ref-format", ref); err != nil {
		return fmt.Errorf("publish: branch %q: not a valid branch name", cfg.Branch)
	}
	if _, err := g.out(ctx, nil, nil, "rev-parse", "--git-dir"); err != nil {
		return fmt.Errorf("publish: %s is not in a git repository: %w", cfg.Dir, err)
	}
	if head, _ := g.out(ctx, nil, nil, "symbolic-ref", "-q", "HEAD"); head == ref {
		return fmt.Errorf("publish: %s is checked out here; switch to your source branch first", cfg.Branch)
	}
	// Moving a branch checked out in another worktree (a gh-pages
	// worktree left by an earlier tool) would leave that worktree's files
	// disagreeing with its HEAD.
	if wts, err := g.out(ctx, nil, nil, "worktree", "list", "--porcelain"); err == nil {
		dir := ""
		for _, l := range strings.Split(wts, "\n") {
			if d, ok := strings.CutPrefix(l, "worktree "); ok {
				dir = d
			}
			if l == "branch "+ref {
				return fmt.Errorf("publish: %s is checked out in the worktree %s; remove that worktree (git worktree remove) or publish to another --branch", cfg.Branch, dir)
			}
		}
	}
	return nil
}

func commitMessage(title string, res *Result, dirty bool) string {
	src := res.Source
	if src == "" {
		src = "no commit"
	}
	if title == "" {
		title = "Publish site built from " + short(src) + " with perflab"
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(title))
	b.WriteString("\n\nSource commit: " + src)
	if dirty {
		b.WriteString(" (with uncommitted changes)")
	}
	b.WriteString("\nBase URL: " + res.BaseURL + "\nPublished by perflab publish.\n")
	return b.String()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// siteTree writes the site's files as blobs, lists them (with .nojekyll
// and CNAME) in a temporary index file and writes that as a tree. The
// repository's own index is not used.
func (g *git) siteTree(ctx context.Context, site, cname string) (tree string, files int, err error) {
	type entry struct{ mode, path, abs, sha string }
	var entries []entry
	err = filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(site, p)
		rel = filepath.ToSlash(rel)
		if strings.ContainsAny(rel, "\n\x00") {
			return fmt.Errorf("%s: a file name with a newline cannot be published", p)
		}
		abs, _ := filepath.Abs(p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			entries = append(entries, entry{mode: "120000", path: rel, abs: abs})
		case d.Type().IsRegular():
			mode := "100644"
			if fi, err := d.Info(); err == nil && fi.Mode()&0o111 != 0 {
				mode = "100755"
			}
			entries = append(entries, entry{mode: mode, path: rel, abs: abs})
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, fmt.Errorf("site %s: not found after the build", site)
	}
	if err != nil {
		return "", 0, fmt.Errorf("read site: %w", err)
	}
	if len(entries) == 0 {
		return "", 0, fmt.Errorf("site %s is empty", site)
	}
	// Regular files in one hash-object call; links by their target.
	var paths strings.Builder
	for _, e := range entries {
		if e.mode != "120000" {
			paths.WriteString(e.abs + "\n")
		}
	}
	out, err := g.out(ctx, strings.NewReader(paths.String()), nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return "", 0, err
	}
	shas := strings.Fields(out)
	extra := map[string]string{}
	put := func(path, content string) error {
		sha, err := g.out(ctx, strings.NewReader(content), nil, "hash-object", "-w", "--stdin")
		extra[path] = sha
		return err
	}
	for i := range entries {
		e := &entries[i]
		if e.mode == "120000" {
			target, err := os.Readlink(e.abs)
			if err != nil {
				return "", 0, fmt.Errorf("read site: %w", err)
			}
			if e.sha, err = g.out(ctx, strings.NewReader(target), nil, "hash-object", "-w", "--stdin"); err != nil {
				return "", 0, err
			}
			continue
		}
		if len(shas) == 0 {
			return "", 0, errors.New("git hash-object: fewer hashes than files")
		}
		e.sha, shas = shas[0], shas[1:]
	}
	if err := put(".nojekyll", ""); err != nil {
		return "", 0, err
	}
	if cname != "" {
		if err := put("CNAME", cname+"\n"); err != nil {
			return "", 0, err
		}
	}
	byPath := map[string]entry{}
	for _, e := range entries {
		byPath[e.path] = e
	}
	for p, sha := range extra {
		if _, ok := byPath[p]; ok && p == ".nojekyll" {
			continue // the site's own .nojekyll
		}
		byPath[p] = entry{mode: "100644", path: p, sha: sha}
	}
	keys := make([]string, 0, len(byPath))
	for p := range byPath {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	var info bytes.Buffer
	for _, p := range keys {
		e := byPath[p]
		fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.sha, e.path)
	}

	tmp, err := os.MkdirTemp("", "perflab-publish-*")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := g.out(ctx, &info, env, "update-index", "--add", "-z", "--index-info"); err != nil {
		return "", 0, err
	}
	tree, err = g.out(ctx, nil, env, "write-tree")
	return tree, len(keys), err
}

// git runs the git CLI in a directory.
type git struct {
	exe string
	dir string
	env []string
}

// out runs git and returns its trimmed standard output; the error carries
// the command and git's standard error.
func (g *git) out(ctx context.Context, stdin io.Reader, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.exe, append([]string{"-C", g.dir}, args...)...)
	cmd.Env = append(append(os.Environ(), g.env...), env...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return strings.TrimSpace(stdout.String()), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// remoteURL is the configured URL of a remote name (as written, before
// url.*.insteadOf rewriting, which is what names the GitHub repository),
// or remote itself when it is a URL or a path.
func (g *git) remoteURL(ctx context.Context, remote string) (string, error) {
	if u, err := g.out(ctx, nil, nil, "config", "--get", "remote."+remote+".url"); err == nil && u != "" {
		return u, nil
	}
	if strings.ContainsAny(remote, ":/") {
		return remote, nil
	}
	return "", fmt.Errorf("no remote named %q", remote)
}

// remoteTip is the remote branch's commit ("" when it does not exist yet),
// fetched so that it can be the new commit's parent.
func (g *git) remoteTip(ctx context.Context, remote, ref string) (string, error) {
	out, err := g.out(ctx, nil, nil, "ls-remote", "--heads", remote, ref)
	if err != nil {
		return "", err
	}
	sha, _, _ := strings.Cut(out, "\t")
	if sha == "" {
		return "", nil
	}
	if _, err := g.out(ctx, nil, nil, "cat-file", "-e", sha+"^{commit}"); err == nil {
		return sha, nil
	}
	if _, err := g.out(ctx, nil, nil, "fetch", "--quiet", "--no-tags", remote, ref); err != nil {
		return "", err
	}
	return sha, nil
}

func (g *git) isAncestor(ctx context.Context, a, b string) bool {
	_, err := g.out(ctx, nil, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// identity supplies a committer when git has none configured, so publishing
// from a fresh CI machine works.
func (g *git) identity(ctx context.Context) []string {
	_, errA := g.out(ctx, nil, nil, "var", "GIT_AUTHOR_IDENT")
	_, errC := g.out(ctx, nil, nil, "var", "GIT_COMMITTER_IDENT")
	if errA == nil && errC == nil {
		return nil
	}
	return []string{
		"GIT_AUTHOR_NAME=perflab", "GIT_AUTHOR_EMAIL=perflab@localhost",
		"GIT_COMMITTER_NAME=perflab", "GIT_COMMITTER_EMAIL=perflab@localhost",
	}
}
