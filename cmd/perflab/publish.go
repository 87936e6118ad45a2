package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perflab/perflab/render"
	"github.com/perflab/perflab/render/publish"
)

// runPublish builds the site for the repository's GitHub Pages address and
// commits it to the gh-pages branch, then pushes it.
func runPublish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf pagesFlags
	addPagesFlags(fs, &rf)
	fs.StringVar(&rf.baseURL, "base-url", "", "path `PREFIX` to build for (default: derived from the remote, /REPO/ or / for OWNER.github.io and --cname)")
	remote := fs.String("remote", "origin", "remote `NAME or URL` to push to")
	branch := fs.String("branch", "gh-pages", "`BRANCH` to commit the site to")
	cname := fs.String("cname", "", "custom `DOMAIN` written to CNAME (the site is then built for /)")
	message := fs.String("message", "", "commit `TITLE` (default: Publish site built from SHA with perflab)")
	noPush := fs.Bool("no-push", false, "commit to the local branch only")
	allowSecrets := fs.Bool("allow-secrets", false, "publish even if token-shaped strings (hf_…, sk-…, ghp_…) survive in the built site (by default publish refuses, naming file and line)")
	out := fs.Lookup("out")
	out.Usage = "output `DIR` of the build (default: a temporary directory, so the site/ a running perflab serve previews is left alone)"
	out.DefValue = ""
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perflab publish [--remote NAME|URL] [--branch gh-pages] [--cname DOMAIN] [--message M] [--no-push] [--allow-secrets] [--base-url PATH] [--content DIR] [--results DIR] [--out DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError("publish: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("publish: unexpected argument %q", fs.Arg(0))
	}
	outSet := false
	fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
	if !outSet {
		// The site is built for the Pages base URL: written to site/, it
		// would replace the preview's pages (built for /) under a running
		// perflab serve, which does not watch its own output.
		tmp, err := os.MkdirTemp("", "perflab-publish-*")
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		defer os.RemoveAll(tmp)
		rf.out = filepath.Join(tmp, "site")
	}
	res, err := publish.Publish(ctx, publish.Config{
		Site:         rf.out,
		Remote:       *remote,
		Branch:       *branch,
		CNAME:        *cname,
		BaseURL:      rf.baseURL,
		Message:      *message,
		NoPush:       *noPush,
		AllowSecrets: *allowSecrets,
		Build: func(ctx context.Context, baseURL string) error {
			opt := rf.options()
			opt.BaseURL = baseURL
			return render.Build(ctx, opt)
		},
		Log: stderr,
	})
	if err != nil {
		return err
	}
	switch {
	case !res.Pushed:
		fmt.Fprintf(stdout, "Committed %s to %s (not pushed)\n", shortSHA(res.Commit), *branch)
	case res.Unchanged:
		fmt.Fprintf(stdout, "Site unchanged; %s on %s is %s\n", *branch, *remote, shortSHA(res.Commit))
	default:
		fmt.Fprintf(stdout, "Published %s to %s on %s\n", shortSHA(res.Commit), *branch, *remote)
	}
	if res.Pushed && res.PagesURL != "" {
		fmt.Fprintf(stdout, "GitHub Pages (once enabled for the %s branch): %s\n", *branch, res.PagesURL)
	}
	return nil
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
