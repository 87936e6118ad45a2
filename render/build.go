package render

import (
	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/output"

	"context"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options locate the inputs and the output of a build.
type Options struct {
	Content string // default "content"
	Results string // default "results"
	Out     string // default "site"
	// BaseURL is the path prefix every link gets ("/perflab/" for a
	// GitHub project page): links are then absolute with pretty URLs. The
	// default "/" makes every link relative to its page and spelled with
	// index.html, so the site works from any path and from the disk
	// (file://) as well.
	BaseURL string
	// TemplatesDir, when set, is laid over the embedded templates, read
	// from disk (customdir.go): its *.html definitions replace the
	// embedded ones of the same name, its assets/ files replace or add
	// files.
	TemplatesDir string
	// LiveReload injects the reload script (serve mode only): the page
	// listens for Server-Sent Events on BaseURL+ReloadPath and reloads on
	// each message.
	LiveReload bool
	// CacheDir is the build cache's directory (default: DefaultCacheDir,
	// .cache/perflab-build beside Out). It may be deleted at any time.
	CacheDir string
	// NoCache renders every page, neither reading nor writing the cache.
	NoCache bool

	// blocks are block types besides the built-in ones (tests: a block
	// with a new kind of input). Not part of the cache's salt: a test
	// gives every build of a site the same blocks.
	blocks blockFuncs `wire:"-"`
}

func (o Options) withDefaults() Options {
	if o.Content == "" {
		o.Content = "content"
	}
	if o.Results == "" {
		o.Results = "results"
	}
	if o.Out == "" {
		o.Out = "site"
	}
	o.Content = filepath.ToSlash(filepath.Clean(o.Content))
	o.Results = filepath.ToSlash(filepath.Clean(o.Results))
	o.BaseURL = normalizeBase(o.BaseURL)
	return o
}

// normalizeBase makes a base URL path start and end with "/".
func normalizeBase(b string) string {
	b = strings.TrimSpace(b)
	if b == "" || b == "/" {
		return "/"
	}
	if !strings.HasPrefix(b, "/") && !layout.HasScheme(b) {
		b = "/" + b
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	return b
}

// Stats describe a finished build.
type Stats struct {
	Pages   int // HTML pages written, the home page included
	Reports int
	Files   int // every file written
	Cached  int // pages whose content came from the build cache
	// LaidOut counts the pages laid out again (the home page aside); an
	// unchanged rebuild takes every other page as it is in Out.
	LaidOut int
	// Warnings are what the build left out and why (one line per report
	// with results its campaign no longer defines); the pages say it too.
	Warnings []string
	// Unchanged is set when the site stamp found every input and every
	// file of Out as the last build left them (sitestamp.go): nothing
	// was loaded, rendered or written.
	Unchanged bool
}

// Build renders the whole site into a temporary directory and swaps it in
// place of Out; on error Out is left as it was.
func Build(ctx context.Context, opt Options) error {
	_, err := BuildStats(ctx, opt)
	return err
}

// BuildStats is Build, returning what was written.
func BuildStats(ctx context.Context, opt Options) (Stats, error) {
	opt = opt.withDefaults()
	if err := checkOut(opt); err != nil { // outdir.go
		return Stats{}, err
	}
	if st, ok := unchangedSite(opt); ok { // sitestamp.go
		return st, nil
	}
	t, assets, err := layout.ParseTemplates(opt.TemplatesDir)
	if err != nil {
		return Stats{}, err
	}
	site, err := loadForBuild(ctx, opt)
	if err != nil {
		return Stats{}, err
	}
	defer site.InputStats.Abandon()     // after a failure; a no-op after save
	defer site.RoundCache.Finish(false) // the same (render/roundload)
	if site.cache, err = openCache(opt, assets); err != nil {
		return Stats{}, err
	}
	defer site.cache.finish(false) // after a failure; a no-op after success
	out := filepath.Clean(opt.Out)
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Stats{}, fmt.Errorf("render: %w", err)
	}
	unlock := output.Lock(out) // one build at a time writes out
	defer unlock()
	st, err := site.renderInto(ctx, out, t, assets, site.readManifest(out), site.cache != nil)
	unlock()
	if err != nil {
		return st, err
	}
	for _, r := range site.Reports {
		if len(r.Stale) > 0 {
			st.Warnings = append(st.Warnings, fmt.Sprintf("%s: %d result(s) in %s that the campaign no longer defines are left out of /%s (first: %s: %s)",
				r.CampaignFile, len(r.Stale), r.ResultsDir, r.Page.URL, r.Stale[0].Run.File, r.Stale[0].Why))
		}
		if len(r.Redefined) > 0 {
			st.Warnings = append(st.Warnings, fmt.Sprintf("%s: /%s shows %d run(s) measured under an older definition of their run (the campaign changed since; first: %s): perflab collect measures them again",
				r.CampaignFile, r.Page.URL, len(r.Redefined), r.Redefined[0].File))
		}
	}
	site.cache.finish(true)
	site.InputStats.Save()
	site.RoundCache.Finish(true)
	st.Cached = site.cache.hitCount()
	site.stamp(out, st) // sitestamp.go
	return st, nil
}

// renderInto renders the site into a directory beside out and swaps it
// in; with prev (the manifest of out's last build) files that are
// already in out are not written again, and out is not touched at all
// when nothing in it would change. With retain the site the swap moves
// out of out is kept beside it, and the next build renders into that
// tree, bringing it up to date (output.Stage), instead of linking every
// file it did not write into a new directory and removing the old site.
func (s *Site) renderInto(ctx context.Context, out string, t *template.Template, assets fs.FS, prev *output.Manifest, retain bool) (Stats, error) {
	stage, err := output.NewStage(out, retain)
	if err != nil {
		return Stats{}, fmt.Errorf("render: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			stage.Abandon()
		}
	}()
	s.outputs, s.stage = output.NewTracker(prev), stage
	s.prevSearch = prevSearchOf(s.cache, s.outputs)
	defer func() { s.outputs, s.stage = nil, nil }()
	st, err := s.Render(ctx, stage.Dir, t, assets)
	if err != nil {
		return st, err
	}
	o := s.outputs
	if o.Unchanged(out, stage.Dir) {
		s.untouched = o
		if o.Stale() {
			s.writeManifest(out, o)
		}
		return st, nil // the deferred Abandon drops a new directory's empty directories
	}
	if err := stage.Complete(o); err != nil {
		// out changed under us, or the retained tree could not be brought
		// up to date: render everything afresh, into a new directory.
		stage.Abandon()
		ok = true
		return s.renderInto(ctx, out, t, assets, nil, false)
	}
	done, err := stage.Swap()
	if err != nil {
		return st, err
	}
	ok = true
	if o.Skipped() > 0 {
		// Fill linked files of the old site into the new: removing the
		// old links (where the old site is not kept) sets their change
		// times, which the manifest records.
		if err := done(); err != nil {
			return st, err
		}
		s.writeManifest(out, o)
		return st, nil
	}
	// The old site shares no file with the new one: it is removed while
	// the manifest is written (both were serial at the end of a build).
	removed := make(chan error, 1)
	go func() { removed <- done() }()
	s.writeManifest(out, o)
	return st, <-removed
}

// File is one output file.
type File = output.File

// Templates are the parsed HTML templates and the assets beside them.
type Templates struct {
	t      *template.Template
	assets fs.FS
}

// LoadTemplates parses the templates from dir, or the embedded ones when
// dir is "" (Options.TemplatesDir).
func LoadTemplates(dir string) (*Templates, error) {
	t, assets, err := layout.ParseTemplates(dir)
	if err != nil {
		return nil, err
	}
	return &Templates{t: t, assets: assets}, nil
}

// PageFiles renders one page on its own (a preview server's incremental
// step when only inputs in p.Deps changed): its index.html and, for a
// report, data.json and data.csv, and its rounds' files. Navigation, the home page and the search
// index depend on every page; rebuild the site when pages are added,
// removed or retitled.
func (s *Site) PageFiles(p *Page, tm *Templates) ([]File, error) {
	nav := s.Nav()
	files, _, err := s.renderPage(p, tm.t, s.Frame(&nav))
	if err != nil {
		return nil, err
	}
	rounds, err := s.allRoundFiles(p) // roundfiles.go
	return append(files, rounds...), err
}
