package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/output"
	"github.com/perflab/perflab/render/site"
)

// Builder rebuilds a site after changes to some of its inputs, for the
// preview server. It keeps what the previous build loaded; on a change it
// reloads only the pages whose inputs changed (a page's Markdown, its
// campaign, its results, or a result appearing in its results directory),
// renders them, the home page and the search index again, and writes
// those files in place. A change it cannot pin to pages (a template, a
// new or removed page, a static file, a page turning draft) or one that
// alters the navigation every page carries makes a full Build. Either
// way Out ends up byte for byte what Build would write (tested).
//
// A Builder is not safe for concurrent use.
type Builder struct {
	opt Options
	abs absPaths

	// What the last successful build used; site is nil before it.
	site   *Site
	t      *template.Template
	nav    navView                // the navigation's data; a change re-renders everything
	search map[string]searchEntry // by page URL ("" is the home page)
	// pending holds the changes of a failed incremental build: they are
	// applied with the next ones.
	pending []string
	// fullDue is set when a full build failed: until one succeeds, every
	// build is full (the failed one's changes are not all known to be
	// in the kept state).
	fullDue bool
}

// absPaths are Options' directories made absolute, for matching the
// watcher's paths.
type absPaths struct{ content, results, templates string }

// NewBuilder returns a Builder for opt; nothing is read until Build.
func NewBuilder(opt Options) *Builder {
	opt = opt.withDefaults()
	b := &Builder{opt: opt}
	b.abs.content, _ = filepath.Abs(opt.Content)
	b.abs.results, _ = filepath.Abs(opt.Results)
	if opt.TemplatesDir != "" {
		b.abs.templates, _ = filepath.Abs(opt.TemplatesDir)
	}
	return b
}

// Incremental reports how a Builder.Build went.
type Incremental struct {
	Full bool   // a full build was made
	Why  string // why a full build was needed ("" for an incremental one)
	// Pages are the URLs of the pages whose inputs changed, rendered
	// again ("" is the home page, which an incremental build always
	// renders again since it summarises every report).
	Pages []string
	// Unchanged is set when an incremental build found every file it
	// rendered already in Out byte for byte (an engine's log appended
	// to, a result rewritten as it was): nothing was written, so open
	// pages need no reload.
	Unchanged bool
	// Cached is how many pages a full build took from the build cache.
	Cached int
}

// Build brings Out up to date after the input files in changed (absolute
// or relative to the current directory) changed; nil means anything may
// have changed. On error Out is left as it was.
func (b *Builder) Build(ctx context.Context, changed []string) (Incremental, error) {
	out := filepath.Clean(b.opt.Out)
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	defer output.Lock(out)() // perflab build's lock: one writer of Out at a time
	switch {
	case b.site == nil:
		return b.full(ctx, "first build")
	case changed == nil:
		return b.full(ctx, "everything may have changed")
	case b.fullDue:
		return b.full(ctx, "the last full build failed")
	}
	all := append(append([]string(nil), b.pending...), changed...)
	inc, err := b.incremental(ctx, all)
	if err != nil {
		if errors.Is(err, errFull) {
			return b.full(ctx, inc.Why)
		}
		b.pending = all
		return inc, err
	}
	b.pending = nil
	return inc, nil
}

var errFull = errors.New("full build needed")

// full is Build, keeping what it loaded and the search entries it wrote.
func (b *Builder) full(ctx context.Context, why string) (Incremental, error) {
	inc := Incremental{Full: true, Why: why}
	b.fullDue = true // until this build succeeds
	// checkOut: outdir.go
	if err := checkOut(b.opt); err != nil {
		return inc, err
	}
	t, assets, err := layout.ParseTemplates(b.opt.TemplatesDir)
	if err != nil {
		return inc, err
	}
	site, err := loadForBuild(ctx, b.opt)
	if err != nil {
		return inc, err
	}
	defer site.InputStats.Abandon()     // after a failure; a no-op after save
	defer site.RoundCache.Finish(false) // the same (render/roundload)
	if site.cache, err = openCache(b.opt, assets); err != nil {
		return inc, err
	}
	defer site.cache.finish(false) // after a failure; a no-op after success
	out := filepath.Clean(b.opt.Out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return inc, fmt.Errorf("render: %w", err)
	}
	tmp, err := output.MakeBuildDir(out)
	if err != nil {
		return inc, fmt.Errorf("render: %w", err)
	}
	if _, err := site.Render(ctx, tmp, t, assets); err != nil {
		os.RemoveAll(tmp)
		return inc, err
	}
	// The search index holds each page's entry; keep them for incremental
	// builds rather than render every page twice.
	data, err := os.ReadFile(filepath.Join(tmp, "search.json"))
	var entries []searchEntry
	if err == nil {
		err = json.Unmarshal(data, &entries)
	}
	// The index lists the home page, then every page in order (Render's
	// contract, which incremental keeps too).
	if err == nil && len(entries) != len(site.Pages)+1 {
		err = fmt.Errorf("%d entries for %d pages and the home page", len(entries), len(site.Pages))
	}
	if err != nil {
		os.RemoveAll(tmp)
		return inc, fmt.Errorf("render: search index: %w", err)
	}
	if err := output.Swap(tmp, out); err != nil {
		os.RemoveAll(tmp)
		return inc, err
	}
	site.cache.finish(true)
	site.InputStats.Save()
	site.RoundCache.Finish(true)
	inc.Cached = site.cache.hitCount()
	b.site, b.t, b.nav, b.pending, b.fullDue = site, t, site.Nav(), nil, false
	b.search = map[string]searchEntry{"": entries[0]}
	for i, p := range site.Pages {
		b.search[p.URL] = entries[i+1]
	}
	return inc, nil
}

// incremental renders the pages changed touches, or returns errFull.
func (b *Builder) incremental(ctx context.Context, changed []string) (Incremental, error) {
	var inc Incremental
	full := func(why string) (Incremental, error) {
		inc.Why = why
		return inc, errFull
	}
	s := b.site
	affected, static, why := b.affected(changed)
	if why != "" {
		return full(why)
	}
	if len(affected) == 0 && len(static) == 0 {
		inc.Unchanged = true
		return inc, nil
	}
	var files []File
	for rel := range static {
		data, err := os.ReadFile(filepath.Join(s.opt.Content, filepath.FromSlash(rel)))
		if err != nil {
			return inc, fmt.Errorf("render: %w", err)
		}
		files = append(files, File{Path: rel, Data: s.StaticData(rel, data)})
	}
	if len(affected) == 0 {
		n, err := output.WriteInPlace(b.opt.Out, files)
		if err != nil {
			return inc, err
		}
		inc.Unchanged = n == 0
		return inc, nil
	}
	ns, why, err := b.reload(affected)
	if why != "" {
		return full(why)
	}
	if err != nil {
		return inc, err
	}
	navData := ns.Nav()
	if !reflect.DeepEqual(navData, b.nav) {
		return full("the navigation changed")
	}
	rendered, search, err := b.renderAffected(ctx, ns, affected, &navData)
	if err != nil {
		return inc, err
	}
	files = append(files, rendered...)
	for _, pg := range ns.Pages {
		if _, ok := search[pg.URL]; ok {
			inc.Pages = append(inc.Pages, pg.URL)
		}
	}
	if affected[""] {
		inc.Pages = append(inc.Pages, "")
	}
	n, err := output.WriteInPlace(b.opt.Out, files)
	if err != nil {
		return inc, err
	}
	inc.Unchanged = n == 0
	b.site = ns
	for u, se := range search {
		b.search[u] = se
	}
	return inc, nil
}

// affected returns the URLs of the pages whose inputs are among changed
// ("" is the home page) and the static files to copy again, or why a
// full build is needed.
func (b *Builder) affected(changed []string) (affected, static map[string]bool, why string) {
	s := b.site
	affected = map[string]bool{} // page URLs
	static = map[string]bool{}   // static files to copy again
	isStatic := map[string]bool{}
	for _, rel := range s.Static {
		isStatic[rel] = true
	}
	for _, c := range changed {
		p, err := filepath.Abs(c)
		if err != nil {
			return nil, nil, c + ": " + err.Error()
		}
		if b.abs.templates != "" && within(b.abs.templates, p) {
			return nil, nil, "template " + c + " changed"
		}
		hit := false
		if rel, err := filepath.Rel(b.abs.content, p); err == nil && isStatic[filepath.ToSlash(rel)] {
			// Copied as it is (a bundle's campaign.yaml is both an input
			// and a static file).
			if _, err := os.Stat(p); err != nil {
				return nil, nil, c + " removed"
			}
			static[filepath.ToSlash(rel)] = true
			hit = true
		}
		for _, pg := range b.pages() {
			if dependsOn(pg, p, b) {
				affected[pg.URL] = true
				hit = true
			}
		}
		switch {
		case hit:
		case within(b.abs.content, p):
			// Not an input of any page: a new or removed page, a static
			// file, a directory. Load ignores "." and "_" names.
			if rel, _ := filepath.Rel(b.abs.content, p); ignoredByLoad(rel) {
				continue
			}
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				// Gone and read by no page: an editor's temporary file
				// renamed over a page (sed -i's "sedXXXXXX", "index.md.new").
				continue
			}
			return nil, nil, c + " is not an input of a known page"
		case within(b.abs.results, p):
			// Results outside every report's results directory are read
			// by nobody.
		default:
			return nil, nil, c + " is outside content, results and templates"
		}
	}
	return affected, static, ""
}

// reload returns the site with the affected pages loaded again (the
// others keep what they loaded), or why a full build is needed.
func (b *Builder) reload(affected map[string]bool) (*Site, string, error) {
	s := b.site
	ns := *s
	ls := *s.Site // the layout's site and its model too: their pages and reports are replaced
	m := *ls.Site
	ls.Site = &m
	ns.Site = &ls
	ns.Pages = append([]*Page(nil), s.Pages...)
	for i, pg := range ns.Pages {
		if !affected[pg.URL] {
			continue
		}
		if _, err := os.Stat(filepath.FromSlash(pg.Src)); err != nil {
			// Removed: the page may be gone, or become a campaign-only
			// bundle; Load decides.
			return nil, pg.Src + " removed", nil
		}
		np, _, err := s.LoadPage(pg.Rel)
		if err != nil {
			return nil, "", err
		}
		if np == nil {
			return nil, pg.Src + " became a draft", nil
		}
		if (np.Report == nil) != (pg.Report == nil) {
			return nil, pg.Src + " became or stopped being a report", nil
		}
		if gone := roundGone(pg, np); gone != "" {
			// Writing in place leaves files; a full build's Out has none
			// of the round's (roundfiles.go).
			return nil, "round " + gone + " of " + pg.Src + " is gone", nil
		}
		ns.Pages[i] = np
	}
	if affected[""] {
		if _, err := os.Stat(filepath.FromSlash(s.Home.Src)); err != nil {
			return nil, s.Home.Src + " removed", nil
		}
		np, _, err := s.LoadPage(s.Home.Rel)
		if err != nil {
			return nil, "", err
		}
		if np == nil {
			return nil, s.Home.Src + " became a draft", nil
		}
		ns.Home = np
	}
	ns.Reports = nil
	for _, pg := range ns.Pages {
		if pg.Report != nil {
			ns.Reports = append(ns.Reports, pg.Report)
		}
	}
	site.SortReports(ns.Reports)
	return &ns, "", nil
}

// renderAffected renders the affected pages of ns (in parallel, as
// Render does), then the home page and the search index, which
// summarise every page; it returns their files and the search entries of
// the pages rendered (by URL; "" is the home page).
func (b *Builder) renderAffected(ctx context.Context, ns *Site, affected map[string]bool, navData *navView) ([]File, map[string]searchEntry, error) {
	type rendered struct {
		files []File
		se    searchEntry
		err   error
	}
	var todo []*Page
	for _, pg := range ns.Pages {
		if affected[pg.URL] {
			todo = append(todo, pg)
		}
	}
	res := make([]rendered, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, pg := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := ctx.Err(); err != nil {
				res[i].err = err
				return
			}
			files, se, err := ns.renderPage(pg, b.t, ns.Frame(navData))
			if err == nil {
				var rounds []File
				rounds, err = ns.allRoundFiles(pg) // roundfiles.go
				files = append(files, rounds...)
			}
			res[i] = rendered{files, se, err}
		}()
	}
	wg.Wait()
	var files []File
	search := map[string]searchEntry{}
	for i, r := range res {
		if r.err != nil {
			return nil, nil, r.err
		}
		files = append(files, r.files...)
		search[todo[i].URL] = r.se
	}
	home, hse, err := ns.RenderHome(b.t, ns.Frame(navData))
	if err != nil {
		return nil, nil, err
	}
	files = append(files, home)
	search[""] = hse
	index := []searchEntry{hse}
	for _, pg := range ns.Pages {
		se, ok := search[pg.URL]
		if !ok {
			se = b.search[pg.URL]
		}
		index = append(index, se)
	}
	sf, err := layout.SearchFiles(index)
	if err != nil {
		return nil, nil, err
	}
	return append(files, sf...), search, nil
}

// pages are the site's pages with the home page.
func (b *Builder) pages() []*Page {
	ps := b.site.Pages
	if b.site.Home != nil {
		ps = append(append([]*Page(nil), ps...), b.site.Home)
	}
	return ps
}

// dependsOn reports whether the page's output may change when p changes:
// p is one of its inputs (Load's, or its blocks' when last rendered) or
// a directory above one, or sits in or above
// its report's results directory (a new or removed result; a directory
// moved away or back gives one event, for itself, not one per file), or
// is the campaign.yaml that would turn its bundle into a report.
func dependsOn(pg *Page, p string, b *Builder) bool {
	deps := pg.Deps
	if pg.Rendered != nil { // what its blocks read
		deps = append(deps[:len(deps):len(deps)], pg.Rendered.Paths()...)
	}
	for _, d := range deps {
		if a, err := filepath.Abs(filepath.FromSlash(d)); err == nil && within(p, a) {
			return true
		}
	}
	if r := pg.Report; r != nil {
		if a, err := filepath.Abs(filepath.FromSlash(r.ResultsDir)); err == nil && (within(a, p) || within(p, a)) {
			return true
		}
	}
	src, err := filepath.Abs(filepath.FromSlash(pg.Src))
	return err == nil && filepath.Base(src) == "index.md" && p == filepath.Join(filepath.Dir(src), "campaign.yaml")
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ignoredByLoad mirrors Load's walk: the names skippedName reports are
// skipped, with everything below them.
func ignoredByLoad(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part != "." && site.SkippedName(part) {
			return true
		}
	}
	return false
}
