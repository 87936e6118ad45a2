package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/perflab/perflab/render"
)

const buildUsage = `usage: perflab build [--content DIR] [--results DIR] [--out DIR] [--base-url PATH] [--cache-dir DIR] [--no-cache] [--templates DIR]

Renders content/ (Markdown narrative and campaign.yaml page bundles) and
results/ (JSON results) into a static site. The site is built in a
temporary directory beside --out and swapped in only when the build
succeeds, so a bad input leaves the previous site intact. Rendered pages
are cached (default .cache/perflab-build beside --out) under a hash of
everything they are made from, so a rebuild renders only changed pages;
the cache may be deleted at any time. --templates lays a directory over
the built-in templates (a {{define}} there replaces the built-in template
of that name; a file under its assets/ replaces or adds a file).

Examples:
  perflab build
  perflab build --base-url /perflab/ --out public
`

// runBuild renders the site and prints a one-line summary to stderr.
func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, buildUsage); fs.PrintDefaults() }
	var opt render.Options
	fs.StringVar(&opt.Content, "content", "content", "content `DIR` (Markdown and campaigns)")
	fs.StringVar(&opt.Results, "results", "results", "results `DIR` (JSON results)")
	fs.StringVar(&opt.Out, "out", "site", "output `DIR`")
	fs.StringVar(&opt.BaseURL, "base-url", "/", "URL `PATH` the site is served under (/perflab/ for a GitHub project page); with the default /, links are relative and the site also opens from the disk")
	fs.StringVar(&opt.CacheDir, "cache-dir", "", "build cache `DIR` (default .cache/perflab-build beside --out)")
	fs.BoolVar(&opt.NoCache, "no-cache", false, "render every page; neither read nor write the build cache")
	fs.StringVar(&opt.TemplatesDir, "templates", "", "templates `DIR` laid over the built-in templates: its *.html {{define}}s replace the built-in ones of the same name, its assets/ files replace or add files")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError("build: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("build: unexpected argument %q", fs.Arg(0))
	}
	if _, err := os.Stat(opt.Content); os.IsNotExist(err) {
		fmt.Fprintf(stderr, "perflab build: %s does not exist; building a site with no pages but the home page\n", opt.Content)
	}
	tuneGC()
	start := time.Now()
	st, err := render.BuildStats(ctx, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// Ctrl-C: not "build: context canceled". A cancelled build
			// swaps nothing in (render's TestBuildCancelledAnywhere).
			return fmt.Errorf("build: interrupted (%v): %s is as it was", context.Cause(ctx), opt.Out)
		}
		return fmt.Errorf("build: %w", err)
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(stderr, "perflab build: warning:", w)
	}
	cached := ""
	if st.Cached > 0 {
		cached = fmt.Sprintf(" (%d pages from the cache)", st.Cached)
	}
	fmt.Fprintf(stderr, "perflab build: %d pages (%d reports), %d files in %s%s, %s\n",
		st.Pages, st.Reports, st.Files, opt.Out, cached, time.Since(start).Round(time.Millisecond))
	return nil
}

// tuneGC lets the heap grow to 3× the live data (GOGC=300) within a soft
// limit of 220 MiB, unless GOGC or GOMEMLIMIT is set: a build allocates
// ~1 GB of short-lived pages, and at the default 100 the collector was a
// tenth of a 1,000-report build's CPU; the limit keeps the peak (~240 MB
// there) under 300 MB. Only the build command does this: it is a
// short-lived batch process.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	setBuildGC(buildGCLimit)
}

const buildGCLimit = 220 << 20

// setBuildGC sets GOGC=300 under the soft limit and watches the live
// heap after each collection: once it passes half the limit, the limit
// would make the collector run more often than GOGC=100 does (the heap
// may grow by less than the live data), and a site whose live data nears
// the limit collects back to back (a 3,500-report synthetic site: 226
// collections, 40 % of the CPU, 23 s against 7 s at GOGC=100), so the
// runtime's defaults (GOGC=100, no limit) are restored for the rest of
// the build. The 1,000-report site's live heap stays near 60 MB.
func setBuildGC(limit int64) {
	debug.SetGCPercent(300)
	debug.SetMemoryLimit(limit)
	w := &gcWatch{limit: limit, gen: gcWatchGen.Add(1)}
	runtime.SetFinalizer(w, (*gcWatch).check)
}

// gcWatchGen numbers setBuildGC's calls: a watch from an earlier call
// (runBuild run twice in one process, as tests do) stops.
var gcWatchGen atomic.Int64

// gcWatch is garbage that the collector finds at every cycle: its
// finalizer looks at the live heap and re-arms itself.
type gcWatch struct {
	limit int64
	gen   int64
	_     [16]byte // not a tiny allocation, whose finalizer may never run
}

func (w *gcWatch) check() {
	if w.gen != gcWatchGen.Load() {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > uint64(w.limit/2) {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		return
	}
	runtime.SetFinalizer(w, (*gcWatch).check)
}
