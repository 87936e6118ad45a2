package render

import (
	"context"
	"fmt"
	"github.com/perflab/perflab/render/output"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/markdown"
)

// Site is everything a build reads, loaded and checked once.
type Site struct {
	opt    Options
	conv   *markdown.Converter // narrative Markdown (raw HTML allowed); safe for concurrent use
	chroma *chromahtml.Formatter
	// Pages are every page to render, sorted by URL. The home page
	// (content/index.md, or a generated one) is not among them.
	Pages []*Page
	// Home is content/index.md, or nil.
	Home *Page
	// Reports are the report pages, in navigation order.
	Reports []*Report
	// Static are the non-Markdown files under content/ copied as they are
	// (paths relative to content/, slash-separated, sorted).
	Static []string
	// cache keeps rendered pages between builds; nil renders every page.
	cache *buildCache
	// inputStats spares hashing the inputs unchanged since the last
	// build (render/inputs); nil hashes every one.
	inputStats *inputs.Stats
	// outputs, when set, skips writing the files the last build left
	// unchanged in the output directory (manifest.go).
	outputs *output.Tracker
	bufs    *buffers
	// in recorded Load's walk of content/ (its directories and static
	// files), and readers every page's reads (drafts included): the site
	// stamp is made of their records (sitestamp.go).
	in      *inputs.Reader
	readers []*inputs.Reader
	// untouched is the outputs of a build that found out as it should
	// be and left it alone (renderInto): only such a build stamps the
	// site.
	untouched *output.Tracker
	// prevSearch reads the last build's search entries once (set with
	// outputs; outputs.go).
	prevSearch func() map[string]searchEntry
}

// Page is one Markdown page.
type Page struct {
	// Src is the Markdown file as given (content/qwen3-32b/h100/index.md).
	Src string
	// Rel is Src relative to the content directory, slash-separated.
	Rel string
	// URL is the page's path below the base URL: "qwen3-32b/h100/" ("" for
	// the home page).
	URL string
	// Deps are every input file the page's output depends on (its
	// Markdown, its campaign, its results), sorted. Templates are a
	// dependency of every page and are not listed.
	Deps []string

	FrontMatter FrontMatter
	// HasFrontMatter is false for plain MkDocs-style pages.
	HasFrontMatter bool
	body           []byte // nil until read when lazy is set (markdownBody)
	bodyLine       int    // lines before the body (front matter)
	// lazy is set when Load took the page's front matter and heading from
	// the input stat cache without reading the file (pagefile.go).
	lazy *lazyBody

	// Report is set for a page bundle with a campaign.
	Report *Report

	// in recorded every input Load read for the page; inputs is the key
	// of those records (the build cache's key, with the build's salt and
	// what the page's blocks read when rendered: pageKey).
	in     *inputs.Reader
	inputs [32]byte
	// rendered recorded what the page's blocks read when it was last
	// rendered or checked (renderPageInto); nil before. key is the cache
	// key it was last rendered or taken under.
	rendered *inputs.Reader
	key      string
}

// Out returns the page's output file relative to the output directory.
func (p *Page) Out() string { return path.Join(p.URL, "index.html") }

// Report is a page bundle's campaign and its results.
type Report struct {
	Page         *Page
	Campaign     *schema.Campaign
	CampaignFile string
	// ResultsDir is where its results live (results/<campaign.results or id>).
	ResultsDir string
	// resultsFound is what Load found at ResultsDir:
	// the directory, and one with no subdirectory (resultFiles).
	resultsFound bool
	runs         map[runKey]*Run
	// all holds every result, sweep points and repeats included, in file
	// order (see Analysis).
	all []*Run
	// Stale are the results the campaign no longer defines (a sweep point
	// taken out of the profile, a repeat beyond its repeats), in file
	// order: left out of every block, listed in a warning on the page and
	// in the build's output.
	Stale []StaleRun
}

// StaleRun is a result left out because the campaign no longer defines
// its point or repeat, and why.
type StaleRun struct {
	Run *Run
	Why string
}

// outsideCampaign says why result res, of profile prof, is one the
// campaign no longer defines: its sweep point is not among the profile's
// points, or its repeat index is beyond the profile's repeats; "" when it
// is defined. Only results perflab collect wrote are judged (tool "perflab
// bench", as collect.Imported tells them apart; render does not import
// collect): an imported sweep keeps the points and repeats its tool ran.
func outsideCampaign(prof *schema.Profile, res *schema.Result) string {
	if res.Tool.Name != "" && res.Tool.Name != "perflab bench" {
		return ""
	}
	pt := schema.PointOf(res.Load)
	if sw := prof.Sweep(); sw != "" && pt.Sweep == sw && !slices.Contains(prof.Points(), pt) {
		return fmt.Sprintf("%s is not among profile %s's points (%s)", pt, prof.ID, strings.Join(prof.PointValues(), ", "))
	}
	if n := prof.RepeatCount(); res.Repeat >= n {
		return fmt.Sprintf("it is run %d, but profile %s has repeats: %d", res.Repeat+1, prof.ID, n)
	}
	return ""
}

type runKey struct{ exp, prof string }

// pointKey identifies one result among a profile's sweep points and
// repeats.
type pointKey struct {
	exp, prof string
	pt        schema.Point
	repeat    int
}

// Run is one result with the file it came from.
type Run struct {
	Result *schema.Result
	File   string
}

// Run returns the run of experiment exp on profile prof, or nil: for a
// profile at one load its first repeat; for a sweep profile the first
// repeat of the profile's highest load point that any experiment ran (the
// saturation end of the curve, the point pointLabel names, so that every
// experiment is shown at the same load; nil for an experiment without a
// run there, such as one whose sweep stopped early). The curve blocks use
// every point: AllRuns.
func (r *Report) Run(exp, prof string) *Run {
	if run := r.runs[runKey{exp, prof}]; run != nil {
		return run
	}
	pt, found := r.topPoint(prof)
	if !found {
		return nil
	}
	var best *Run
	for _, run := range r.all {
		res := run.Result
		if res.Experiment != exp || res.Profile != prof || res.Status == schema.StatusSkipped || schema.PointOf(res.Load) != pt {
			continue
		}
		// The first repeat with numbers; a crashed one only when none has.
		if best == nil || repeatOK(res) && !repeatOK(best.Result) || repeatOK(res) == repeatOK(best.Result) && res.Repeat < best.Result.Repeat {
			best = run
		}
	}
	return best
}

// pointRuns returns the results of run's point (same experiment, profile
// and load), every repeat but skipped ones, in repeat order.
func (r *Report) pointRuns(run *Run) []*Run {
	return r.runsAt(run.Result.Experiment, run.Result.Profile, schema.PointOf(run.Result.Load))
}

// runsAt returns the results of experiment exp on profile prof at point
// pt, every repeat but skipped ones, in repeat order.
func (r *Report) runsAt(exp, prof string, pt schema.Point) []*Run {
	var out []*Run
	for _, o := range r.all {
		or := o.Result
		if or.Experiment == exp && or.Profile == prof && or.Status != schema.StatusSkipped && schema.PointOf(or.Load) == pt {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Result.Repeat < out[j].Result.Repeat })
	return out
}

// repeatOK says a run counts among its point's repeats: status ok with
// completed requests (as the comparison and the curves count them).
func repeatOK(res *schema.Result) bool {
	return res.Status == schema.StatusOK && res.Summary != nil && res.Summary.Completed > 0
}

// pointValue is metric m of run, averaged over the repeats of run's point
// (same experiment, profile and load) that count (repeatOK), and how many
// they are: the number the comparison table and the curves show for that
// point. A run that does not count itself (crashed, failed) gives its own
// value and n = 1.
func (r *Report) pointValue(run *Run, m Metric) (v float64, n int, ok bool) {
	if run == nil {
		return 0, 0, false
	}
	res := run.Result
	own, found := m.Value(res.Summary)
	if !repeatOK(res) {
		return own, 1, found
	}
	pt, sum := schema.PointOf(res.Load), 0.0
	for _, o := range r.all {
		or := o.Result
		if or.Experiment != res.Experiment || or.Profile != res.Profile || !repeatOK(or) || schema.PointOf(or.Load) != pt {
			continue
		}
		if x, found := m.Value(or.Summary); found {
			sum += x
			n++
		}
	}
	if n == 0 {
		return own, 1, found
	}
	return sum / float64(n), n, true
}

// topPoint is the highest load point of sweep profile prof that any
// experiment ran (skipped points left out); false when it has none.
func (r *Report) topPoint(prof string) (schema.Point, bool) {
	best, found := schema.Point{}, false
	for _, run := range r.all {
		res := run.Result
		pt := schema.PointOf(res.Load)
		if res.Profile != prof || pt.Sweep == "" || res.Status == schema.StatusSkipped {
			continue
		}
		if !found || pointLoad(pt) > pointLoad(best) {
			best, found = pt, true
		}
	}
	return best, found
}

func pointLoad(pt schema.Point) float64 {
	if pt.Sweep == schema.SweepRate && pt.Value == 0 {
		return math.Inf(1)
	}
	return pt.Value
}

// Runs returns every run in campaign order (steps, experiments, profiles,
// then load points and repeats).
func (r *Report) Runs() []*Run {
	byKey := map[runKey][]*Run{}
	for _, run := range r.all {
		k := runKey{run.Result.Experiment, run.Result.Profile}
		byKey[k] = append(byKey[k], run)
	}
	var out []*Run
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			for _, p := range r.Campaign.Profiles {
				group := byKey[runKey{e.ID, p.ID}]
				sort.SliceStable(group, func(i, j int) bool {
					a, b := group[i].Result, group[j].Result
					if la, lb := pointLoad(schema.PointOf(a.Load)), pointLoad(schema.PointOf(b.Load)); la != lb {
						return la < lb
					}
					return a.Repeat < b.Repeat
				})
				out = append(out, group...)
			}
		}
	}
	return out
}

// skippedName reports whether Load passes a name under content/ by (with
// everything below it): hidden and "_" names, and editors' backups and
// auto-saves ("index.md~", Emacs's "#index.md#"), which would otherwise
// be copied into the site, and published, as static files.
func skippedName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		strings.HasSuffix(name, "~") ||
		len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// Load reads and checks content and results.
func Load(ctx context.Context, opt Options) (*Site, error) { return load(ctx, opt, false) }

// loadForBuild is Load for a build that saves the input stat cache
// (statcache.go) when it succeeds (inputStats.save; abandon otherwise):
// unchanged inputs are neither hashed nor, for pages, read.
func loadForBuild(ctx context.Context, opt Options) (*Site, error) {
	return load(ctx, opt, !opt.NoCache)
}

func load(ctx context.Context, opt Options, stats bool) (*Site, error) {
	opt = opt.withDefaults()
	s := &Site{opt: opt, conv: markdown.New(markdown.Options{Unsafe: true}), chroma: chromahtml.New(chromahtml.WithClasses(true)), bufs: &buffers{}}
	if _, err := os.Stat(opt.Content); err != nil {
		if os.IsNotExist(err) {
			return s, nil // no content yet: the build still produces an index
		}
		return nil, fmt.Errorf("load: %w", err)
	}
	if stats {
		s.inputStats = inputs.OpenStats(opt.cacheDir(), selfVersion()+" "+pageMetaVersion)
	}
	s.in = inputs.NewReader(s.inputStats)
	ok := false
	defer func() {
		if !ok {
			s.inputStats.Abandon()
		}
	}()
	mds, err := s.walkContent()
	if err != nil {
		return nil, err
	}
	// Pages (and their results) load in parallel; the first error in
	// path order is reported, whatever the timing.
	type loaded struct {
		p   *Page
		in  *inputs.Reader
		err error
	}
	pages := make([]loaded, len(mds))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := ctx.Err(); err != nil {
					pages[i].err = err
					continue
				}
				pages[i].p, pages[i].in, pages[i].err = s.loadPage(mds[i])
			}
		}()
	}
	for i := range mds {
		work <- i
	}
	close(work)
	wg.Wait()
	byURL := map[string]string{}
	for _, l := range pages {
		p, err := l.p, l.err
		if err != nil {
			return nil, err
		}
		s.readers = append(s.readers, l.in)
		if p == nil {
			continue // draft
		}
		if other, dup := byURL[p.URL]; dup {
			return nil, fmt.Errorf("%s:1: renders to the same URL /%s as %s", p.Src, p.URL, other)
		}
		byURL[p.URL] = p.Src
		if p.URL == "" {
			s.Home = p
			continue
		}
		s.Pages = append(s.Pages, p)
		if p.Report != nil {
			s.Reports = append(s.Reports, p.Report)
		}
	}
	sort.Slice(s.Pages, func(i, j int) bool { return s.Pages[i].URL < s.Pages[j].URL })
	sortReports(s.Reports)
	ok = true
	return s, nil
}

func (s *Site) markdown() *markdown.Converter { return s.conv }

// pageURL maps a content path to its pretty URL: a/b/index.md → a/b/,
// a/b.md → a/b/, index.md → "".
func pageURL(rel string) string {
	rel = strings.TrimSuffix(rel, ".md")
	if rel == "index" {
		return ""
	}
	rel = strings.TrimSuffix(rel, "/index")
	return rel + "/"
}

// loadPage loads the page at rel, recording what it reads in the
// returned Reader (also for a draft, which is nil).
func (s *Site) loadPage(rel string) (*Page, *inputs.Reader, error) {
	src := filepath.Join(s.opt.Content, filepath.FromSlash(rel))
	p := &Page{Src: filepath.ToSlash(src), Rel: rel, URL: pageURL(rel)}
	rd := inputs.NewReader(s.inputStats)
	rd.Value("page", p.Src+"\x00"+p.Rel+"\x00"+p.URL)
	fm, has, lines, err := s.readPage(p, src, rd) // pagefile.go
	if err != nil {
		return nil, rd, err
	}
	if fm.Draft {
		return nil, rd, nil
	}
	p.FrontMatter, p.HasFrontMatter, p.bodyLine = fm, has, lines

	// A bundle (…/index.md) with a campaign is a report.
	camp := fm.Campaign
	if camp == "" && path.Base(rel) == "index.md" && rel != "index.md" {
		if rd.Exists(filepath.Join(filepath.Dir(src), "campaign.yaml")) {
			camp = "campaign.yaml"
		}
	}
	if camp != "" {
		cf := filepath.ToSlash(filepath.Join(filepath.Dir(src), filepath.FromSlash(camp)))
		r, err := s.loadReport(p, cf, rd)
		if err != nil {
			return nil, rd, err
		}
		p.Report = r
	}
	// The page's own file is listed even when absent: creating it
	// changes the page.
	p.Deps = rd.Paths()
	p.in, p.inputs = rd, rd.Key(0)
	return p, rd, nil
}

func (s *Site) loadReport(p *Page, file string, rd *inputs.Reader) (*Report, error) {
	data, _, err := rd.ReadFile(file)
	if err != nil {
		line := 1
		if p.FrontMatter.Campaign != "" {
			src, _ := os.ReadFile(p.Src)
			line = firstLineOf(src, "\ncampaign:") + 1
		}
		return nil, fmt.Errorf("%s:%d: field campaign: %v", p.Src, line, err)
	}
	c, err := parseCampaign(file, data)
	if err != nil {
		return nil, err
	}
	r := &Report{Page: p, Campaign: c, CampaignFile: file, runs: map[runKey]*Run{}}
	dir := c.Results
	if dir == "" {
		dir = c.ID
	}
	r.ResultsDir = filepath.ToSlash(filepath.Join(s.opt.Results, filepath.FromSlash(dir)))
	files, found, err := rd.Files(r.ResultsDir, ".json")
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	r.resultsFound = found
	if !found {
		return r, nil // not collected yet: the page says so
	}
	seen := map[pointKey]*Run{}
	// The bytes of a result are dropped once hashed and decoded
	// (Unmarshal copies what it keeps): one buffer, reused (readfile.go).
	buf := inputs.GetBuf()
	defer inputs.PutBuf(buf)
	for _, f := range files {
		data, err := rd.ReadInto(f, (*buf)[:0])
		*buf = data
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		res, err := schema.Unmarshal(f, data)
		if err != nil {
			return nil, err
		}
		if res.Campaign != "" && res.Campaign != c.ID {
			return nil, fmt.Errorf("%s:1: field campaign: %q is not %s's id %q", f, res.Campaign, file, c.ID)
		}
		if _, ok := c.Experiment(res.Experiment); !ok {
			return nil, fmt.Errorf("%s:1: field experiment: %q is not an experiment of %s", f, res.Experiment, file)
		}
		prof, ok := c.Profile(res.Profile)
		if !ok {
			return nil, fmt.Errorf("%s:1: field profile: %q is not a profile of %s", f, res.Profile, file)
		}
		pk := pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}
		if prev, dup := seen[pk]; dup {
			what := ""
			if pk.pt.Sweep != "" {
				what += " at " + pk.pt.String()
			}
			if pk.repeat > 0 {
				what += fmt.Sprintf(", repeat %d", pk.repeat)
			}
			return nil, fmt.Errorf("%s:1: a second result for experiment %q on profile %q%s (the first is %s)", f, res.Experiment, res.Profile, what, prev.File)
		}
		run := &Run{Result: res, File: f}
		seen[pk] = run
		if why := outsideCampaign(prof, res); why != "" {
			// Left out, not mixed in: n=5+5 against "× 2 runs" after
			// repeats went from 5 to 2 (README, perflab build).
			r.Stale = append(r.Stale, StaleRun{Run: run, Why: why})
			continue
		}
		r.all = append(r.all, run)
		if pk.pt.Sweep == "" && pk.repeat == 0 {
			r.runs[runKey{res.Experiment, res.Profile}] = run
		}
	}
	return r, nil
}

// sortReports orders reports for navigation: objective, model, GPU, then
// weight and URL.
func sortReports(rs []*Report) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if x, y := objectiveOrder(a.Objective()), objectiveOrder(b.Objective()); x != y {
			return x < y
		}
		if x, y := strings.ToLower(a.ModelName()), strings.ToLower(b.ModelName()); x != y {
			return x < y
		}
		if x, y := a.Page.FrontMatter.Weight, b.Page.FrontMatter.Weight; x != y {
			return x < y
		}
		if x, y := a.GPULabel(), b.GPULabel(); x != y {
			return x < y
		}
		return a.Page.URL < b.Page.URL
	})
}

func objectiveOrder(o string) string {
	switch o {
	case "throughput":
		return "0"
	case "latency":
		return "1"
	}
	return "2" + o
}

// readManifest returns the manifest of out, or nil.
func (s *Site) readManifest(out string) *output.Manifest {
	if s.cache == nil {
		return nil
	}
	return output.ReadManifest(s.cache.Dir(), out)
}

// writeManifest records out as o tracked it (output.WriteManifest), in
// the cache; without a cache, nothing.
func (s *Site) writeManifest(out string, o *output.Tracker) {
	if s.cache != nil {
		output.WriteManifest(s.cache.Dir(), out, o)
	}
}

// walkContent lists content/ (through s.in, which records it): the
// Markdown pages (with the index.md of a bundle that has a campaign but
// no narrative), sorted, and the static files (s.Static).
func (s *Site) walkContent() ([]string, error) {
	var mds []string
	err := s.in.WalkDir(s.opt.Content, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != s.opt.Content && skippedName(name) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return inputs.Skip
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(s.opt.Content, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(name, ".md") {
			mds = append(mds, rel)
		} else {
			s.Static = append(s.Static, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	// A bundle with a campaign but no index.md is a report with no
	// narrative: the skeleton alone.
	have := map[string]bool{}
	for _, rel := range mds {
		have[rel] = true
	}
	for _, rel := range s.Static {
		if path.Base(rel) == "campaign.yaml" && path.Dir(rel) != "." {
			if idx := path.Join(path.Dir(rel), "index.md"); !have[idx] {
				mds = append(mds, idx)
				have[idx] = true
			}
		}
	}
	sort.Strings(mds)
	sort.Strings(s.Static)
	return mds, nil
}
