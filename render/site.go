package render

import (
	"context"
	"fmt"
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
	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
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
	// build (statcache.go); nil hashes every one.
	inputStats *inputStats
	// outputs, when set, skips writing the files the last build left
	// unchanged in the output directory (manifest.go).
	outputs *outputs
	bufs    *buffers
	// walked are the directories of content/ that Load listed, and mds
	// every Markdown file it loaded (drafts and absent bundle index.md
	// files included): the site stamp records them (sitestamp.go).
	walked []string
	mds    []string
	// untouched is the outputs of a build that found out as it should
	// be and left it alone (renderInto): only such a build stamps the
	// site.
	untouched *outputs
	// secrets are the campaigns' secret values, hidden in the static
	// files (secrets.go).
	secrets *siteSecrets
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
	// the input stat cache without reading the file (statcache.go).
	lazy *lazyBody

	// Report is set for a page bundle with a campaign.
	Report *Report

	// inputs hashes the names and bytes of every input Load read for the
	// page (the build cache's key, with the build's salt).
	inputs [32]byte
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
	// resultsFound and resultsFlat are what Load found at ResultsDir:
	// the directory, and one with no subdirectory (resultFiles).
	resultsFound, resultsFlat bool
	runs                      map[runKey]*Run
	// all holds every result, sweep points and repeats included, in file
	// order (see Analysis).
	all []*Run
	// rounds are every round of the results, oldest first, when they
	// have rounds (the history block; history.go); the blocks show the
	// latest, all.
	rounds []roundResults
	// hist is the history of the rounds, computed once (history.go).
	histOnce sync.Once
	hist     *reportHistory
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
	s := &Site{opt: opt, conv: markdown.New(markdown.Options{Unsafe: true}), chroma: chromahtml.New(chromahtml.WithClasses(true)), bufs: &buffers{}, secrets: &siteSecrets{}}
	if _, err := os.Stat(opt.Content); err != nil {
		if os.IsNotExist(err) {
			return s, nil // no content yet: the build still produces an index
		}
		return nil, fmt.Errorf("load: %w", err)
	}
	if stats {
		s.inputStats = openInputStats(opt.cacheDir())
	}
	ok := false
	defer func() {
		if !ok {
			s.inputStats.abandon()
		}
	}()
	var mds []string
	err := filepath.WalkDir(opt.Content, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != opt.Content && skippedName(name) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			s.walked = append(s.walked, p)
			return nil
		}
		rel, err := filepath.Rel(opt.Content, p)
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
	s.mds = mds
	// Pages (and their results) load in parallel; the first error in
	// path order is reported, whatever the timing.
	type loaded struct {
		p   *Page
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
				pages[i].p, pages[i].err = s.loadPage(mds[i])
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

func (s *Site) loadPage(rel string) (*Page, error) {
	src := filepath.Join(s.opt.Content, filepath.FromSlash(rel))
	p := &Page{Src: filepath.ToSlash(src), Rel: rel, URL: pageURL(rel)}
	ih := newInputHash(p)
	fm, has, lines, err := s.readPage(p, src, ih) // statcache.go
	if err != nil {
		return nil, err
	}
	if fm.Draft {
		return nil, nil
	}
	p.FrontMatter, p.HasFrontMatter, p.bodyLine = fm, has, lines
	p.Deps = []string{p.Src} // listed even when absent: creating it changes the page

	// A bundle (…/index.md) with a campaign is a report.
	camp := fm.Campaign
	if camp == "" && path.Base(rel) == "index.md" && rel != "index.md" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(src), "campaign.yaml")); err == nil {
			camp = "campaign.yaml"
		}
	}
	if camp != "" {
		cf := filepath.ToSlash(filepath.Join(filepath.Dir(src), filepath.FromSlash(camp)))
		r, err := s.loadReport(p, cf, ih)
		if err != nil {
			return nil, err
		}
		p.Report = r
	}
	sort.Strings(p.Deps)
	ih.sum(p)
	return p, nil
}

func (s *Site) loadReport(p *Page, file string, ih inputHash) (*Report, error) {
	data, sum, err := s.readInput(file)
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
	dir := c.Results // a path to read, taken before redaction
	if dir == "" {
		dir = c.ID
	}
	// The campaign and its results are redacted as they come in
	// (secrets.go): nothing made from them can show a secret.
	secrets := campaignSecrets(c)
	s.secrets.add(secrets)
	red := redact.New(secrets...)
	red.Walk(c)
	r := &Report{Page: p, Campaign: c, CampaignFile: file, runs: map[runKey]*Run{}}
	p.Deps = append(p.Deps, file)
	ih.addSum(file, sum)
	r.ResultsDir = filepath.ToSlash(filepath.Join(s.opt.Results, filepath.FromSlash(dir)))
	ih.add("results dir", []byte(r.ResultsDir))
	files, found, flat, err := reportResultFiles(r.ResultsDir) // the latest round (rounds.go)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	r.resultsFound, r.resultsFlat = found, flat
	if !found {
		return r, nil // not collected yet: the page says so
	}
	seen := map[pointKey]*Run{}
	// The bytes of a result are dropped once hashed and decoded
	// (Unmarshal copies what it keeps): one buffer, reused (readfile.go).
	buf := readBufs.Get().(*[]byte)
	defer putReadBuf(buf)
	for _, f := range files {
		data, err := readInto(f, (*buf)[:0])
		*buf = data
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		ih.add(f, data)
		res, err := schema.Unmarshal(f, data)
		if err != nil {
			return nil, err
		}
		red.Walk(res)
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
		p.Deps = append(p.Deps, f)
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
	if err := s.loadRounds(r, ih, red); err != nil { // history.go; older rounds come in through the same redaction
		return nil, err
	}
	return r, nil
}

// resultFiles lists the *.json files of a results directory (recursively),
// sorted; temporaries (".name") are skipped. found is false when dir does
// not exist (os.Stat's answer: a link to nothing does not either).
func resultFiles(dir string) (files []string, found, flat bool, err error) {
	// The common case, a directory of results with no subdirectory, is one
	// lstat and one read of the directory; anything else (a link, a
	// subdirectory, an error) is walked as before, which words the error.
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return nil, false, false, nil // no name on the way (os.Stat fails the same)
	}
	if err == nil && fi.IsDir() {
		if files, ok := flatResultFiles(dir); ok {
			return files, true, true, nil
		}
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil, false, false, nil
	}
	files, err = walkResultFiles(dir)
	return files, true, false, err
}

// flatResultFiles is walkResultFiles for a directory read without error
// and holding no subdirectory but hidden ones; ok is false otherwise.
func flatResultFiles(dir string) (files []string, ok bool) {
	entries, err := os.ReadDir(dir) // as filepath.WalkDir reads it
	if err != nil {
		return nil, false
	}
	// filepath.Join(dir, name) for a name of one element is the cleaned
	// dir, a separator and name: cleaned once, not 14 times a report.
	prefix := filepath.Join(dir, "x")
	prefix = prefix[:len(prefix)-1]
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			return nil, false
		}
		if strings.HasSuffix(name, ".json") {
			files = append(files, filepath.ToSlash(prefix+name))
		}
	}
	sort.Strings(files)
	return files, true
}

// walkResultFiles lists the *.json files below dir, sorted; names starting
// with "." (temporaries), and everything below them, are skipped.
func walkResultFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
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
