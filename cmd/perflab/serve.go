package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/perflab/perflab/render"
	"github.com/perflab/perflab/render/serve"
)

// pagesFlags are the build flags serve and publish share with build.
type pagesFlags struct {
	content, results, out, baseURL string
}

func addPagesFlags(fs *flag.FlagSet, f *pagesFlags) {
	fs.StringVar(&f.content, "content", "content", "content `DIR` (Markdown pages and campaign files)")
	fs.StringVar(&f.results, "results", "results", "results `DIR`")
	fs.StringVar(&f.out, "out", "site", "output `DIR` of the built site")
}

func (f *pagesFlags) options() render.Options {
	return render.Options{Content: f.content, Results: f.results, Out: f.out, BaseURL: f.baseURL}
}

// runServe builds the site, serves it with live reload and rebuilds on
// every change until interrupted.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf pagesFlags
	addPagesFlags(fs, &rf)
	fs.StringVar(&rf.baseURL, "base-url", "/", "path `PREFIX` the site is built and served under")
	addr := fs.String("addr", "127.0.0.1:8080", "`HOST:PORT` to listen on (loopback only by default)")
	templates := fs.String("templates", "templates", "templates `DIR` laid over the built-in templates as in perflab build, read from disk so edits show at once; the built-in templates alone when it does not exist")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perflab serve [--addr 127.0.0.1:8080] [--content DIR] [--results DIR] [--out DIR] [--base-url PATH] [--templates DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError("serve: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("serve: unexpected argument %q", fs.Arg(0))
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usageError("serve: --addr %q: want HOST:PORT such as 127.0.0.1:8080", *addr)
	}
	opt := rf.options()
	watch := []string{rf.content, rf.results}
	if fi, err := os.Stat(*templates); err == nil && fi.IsDir() {
		opt.TemplatesDir = *templates
		watch = append(watch, *templates)
	}
	// The reload script is injected by the server into each response, so
	// the files in site/ stay exactly what `perflab build` writes.
	opt.LiveReload = false
	log := linePrefixWriter{stderr, "serve: "}
	// The Builder re-renders only the pages a change touches (plus the
	// home page and search index) and falls back to a full build for
	// templates, new or removed pages and navigation changes.
	builder := render.NewBuilder(opt)
	s, err := serve.Start(ctx, serve.Config{
		Addr:    *addr,
		Site:    rf.out,
		BaseURL: rf.baseURL,
		Watch:   watch,
		Build: func(ctx context.Context, changed []string) error {
			inc, err := builder.Build(ctx, changed)
			switch {
			case err != nil:
			case inc.Full && changed != nil:
				fmt.Fprintf(log, "full rebuild: %s\n", inc.Why)
			case inc.Unchanged:
				return serve.ErrUnchanged // no reload for the open pages
			case !inc.Full && len(inc.Pages) > 0:
				fmt.Fprintf(log, "re-rendered %d page(s), the home page and the search index\n", len(inc.Pages))
			}
			return err
		},
		Log: log,
	})
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(*addr); !isLoopbackName(host) {
		fmt.Fprintf(stderr, "serve: warning: listening on %s, not loopback: anyone who can reach it can read the site\n", *addr)
	}
	fmt.Fprintf(stdout, "Serving %s at %s (Ctrl-C to stop)\n", rf.out, s.URL())
	err = s.Wait()
	fmt.Fprintln(stderr, "serve: stopped")
	return err
}

func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// linePrefixWriter prefixes every write (one log line) with a tag.
type linePrefixWriter struct {
	w      io.Writer
	prefix string
}

func (p linePrefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
