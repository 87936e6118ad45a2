package site

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/buildcache"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/roundload"
)

// Config is what Load reads: where the inputs are, and where the input
// stat cache (render/inputs) and the round cache (render/roundload)
// live.
type Config struct {
	Content string // the content directory
	Results string // the results directory
	// StatsDir holds the input stat cache and the round cache; ""
	// hashes every input and reads every older round. A Load that set
	// it saves the caches when told (Stats.Save, Cache.Finish) and
	// abandons them when it fails.
	StatsDir string
}

// Site is everything a build reads, loaded and checked once.
type Site struct {
	opt Config
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
	// InputStats spares hashing the inputs unchanged since the last
	// build (render/inputs); nil hashes every one.
	InputStats *inputs.Stats
	// RoundCache keeps older rounds' results between builds
	// (render/roundload, rounds.go); nil reads them from their files.
	// A Load that set it finishes it when told (Cache.Finish) and on
	// failure.
	RoundCache *roundload.Cache
	// In recorded Load's walk of content/ (its directories and static
	// files), and Readers every page's reads (drafts included): the site
	// stamp is made of their records (render's sitestamp.go).
	In      *inputs.Reader
	Readers []*inputs.Reader
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
	// body is the Markdown after the front matter, read by Load or, when
	// Load took the page's front matter and heading from the input stat
	// cache, when the page is rendered (MarkdownBody, pagefile.go).
	body     *inputs.Deferred
	BodyLine int // lines before the body (front matter)
	// heading is the text of the body's first "# " line, if any.
	heading    string
	hasHeading bool

	// Report is set for a page bundle with a campaign.
	Report *Report

	// In recorded every input Load read for the page; Inputs is the key
	// of those records (the build cache's key, with the build's salt and
	// what the page's blocks read when rendered: pageKey).
	In     *inputs.Reader
	Inputs [32]byte
	// Rendered recorded what the page's blocks read when it was last
	// rendered or checked (render's renderPageInto); nil before. Key is the cache
	// key it was last rendered or taken under.
	Rendered *inputs.Reader
	Key      string
}

// Out returns the page's output file relative to the output directory.
func (p *Page) Out() string { return path.Join(p.URL, "index.html") }

// SkippedName reports whether Load passes a name under content/ by (with
// everything below it): hidden and "_" names, and editors' backups and
// auto-saves ("index.md~", Emacs's "#index.md#"), which would otherwise
// be copied into the site, and published, as static files.
func SkippedName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		strings.HasSuffix(name, "~") ||
		len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// Load reads and checks content and results.
func Load(ctx context.Context, opt Config) (*Site, error) {
	s := &Site{opt: opt, secrets: &siteSecrets{}}
	if _, err := os.Stat(opt.Content); err != nil {
		if os.IsNotExist(err) {
			return s, nil // no content yet: the build still produces an index
		}
		return nil, fmt.Errorf("load: %w", err)
	}
	if opt.StatsDir != "" {
		s.InputStats = inputs.OpenStats(opt.StatsDir, buildcache.SelfVersion()+" "+pageMetaVersion)
		s.RoundCache = roundload.Open(opt.StatsDir)
	}
	s.In = inputs.NewReader(s.InputStats)
	ok := false
	defer func() {
		if !ok {
			s.InputStats.Abandon()
			s.RoundCache.Finish(false)
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
				pages[i].p, pages[i].in, pages[i].err = s.LoadPage(mds[i])
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
		s.Readers = append(s.Readers, l.in)
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
	if err := checkRoundsOut(s.Pages); err != nil { // roundpaths.go
		return nil, err
	}
	SortReports(s.Reports)
	ok = true
	return s, nil
}

// PageURL maps a content path to its pretty URL: a/b/index.md → a/b/,
// a/b.md → a/b/, index.md → "".
func PageURL(rel string) string {
	rel = strings.TrimSuffix(rel, ".md")
	if rel == "index" {
		return ""
	}
	rel = strings.TrimSuffix(rel, "/index")
	return rel + "/"
}

// LoadPage loads the page at rel, recording what it reads in the
// returned Reader (also for a draft, which is nil).
func (s *Site) LoadPage(rel string) (*Page, *inputs.Reader, error) {
	src := filepath.Join(s.opt.Content, filepath.FromSlash(rel))
	p := &Page{Src: filepath.ToSlash(src), Rel: rel, URL: PageURL(rel)}
	rd := inputs.NewReader(s.InputStats)
	rd.Value("page", p.Src+"\x00"+p.Rel+"\x00"+p.URL)
	fm, has, lines, err := s.readPage(p, src, rd) // pagefile.go
	if err != nil {
		return nil, rd, err
	}
	if fm.Draft {
		return nil, rd, nil
	}
	p.FrontMatter, p.HasFrontMatter, p.BodyLine = fm, has, lines

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
	p.In, p.Inputs = rd, rd.Key(0)
	return p, rd, nil
}

func (s *Site) loadReport(p *Page, file string, rd *inputs.Reader) (*Report, error) {
	data, campSum, err := rd.ReadFile(file)
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
	// Each run's key as the campaign defines it now, taken before the
	// campaign is redacted (collect hashes the campaign as written).
	defKeys := definitionKeys(c)
	// The campaign and its results are redacted as they come in
	// (secrets.go): nothing made from them can show a secret.
	secrets := campaignSecrets(c)
	s.secrets.add(secrets)
	red := redact.New(secrets...)
	red.Walk(c)
	r := &Report{Page: p, Campaign: c, CampaignFile: file, runs: map[runKey]*Run{}}
	r.ResultsDir = filepath.ToSlash(filepath.Join(s.opt.Results, filepath.FromSlash(dir)))
	shown, found, err := s.reportResults(rd, r, red) // the round shown (rounds.go), read and redacted
	if err != nil {
		return nil, err
	}
	r.resultsFound = found
	if !found {
		return r, nil // not collected yet: the page says so
	}
	seen := map[pointKey]*Run{}
	for _, run := range shown {
		f, res := run.File, run.Result
		if why := droppedFrom(c, res); why != "" {
			// Left out as a point taken out of a sweep is: a lab that
			// takes an experiment out of its campaign (or renames a
			// profile) still builds before its next round, and the
			// round's files and history keep the result (shownOwn).
			r.shownOwn = append(r.shownOwn, res)
			r.Stale = append(r.Stale, StaleRun{Run: run, Why: why})
			continue
		}
		prof, err := checkResult(c, file, f, res)
		if err != nil {
			return nil, err
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
		seen[pk] = run
		r.shownOwn = append(r.shownOwn, res)
		if why := outsideCampaign(prof, res); why != "" {
			// Left out, not mixed in: n=5+5 against "× 2 runs" after
			// repeats went from 5 to 2 (README, perflab build).
			r.Stale = append(r.Stale, StaleRun{Run: run, Why: why})
			continue
		}
		r.All = append(r.All, run)
		if pk.pt.Sweep == "" && pk.repeat == 0 {
			r.runs[runKey{res.Experiment, res.Profile}] = run
		}
	}
	if err := s.loadRounds(r, rd, red, campSum); err != nil { // rounds.go; older rounds come in through the same redaction
		return nil, err
	}
	if err := r.carryRuns(rd, red); err != nil { // carried.go: runs the shown round has no finished result for
		return nil, err
	}
	r.findRedefined(defKeys)
	return r, nil
}

// checkResult returns the profile of result res (file f) of campaign c
// (read from file), or an error saying which of its fields names
// something c does not have.
func checkResult(c *schema.Campaign, file, f string, res *schema.Result) (*schema.Profile, error) {
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
	return prof, nil
}

// SortReports orders reports for navigation: objective, model, GPU, then
// weight and URL.
func SortReports(rs []*Report) {
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

// walkContent lists content/ (through s.In, which records it): the
// Markdown pages (with the index.md of a bundle that has a campaign but
// no narrative), sorted, and the static files (s.Static).
func (s *Site) walkContent() ([]string, error) {
	var mds []string
	err := s.In.WalkDir(s.opt.Content, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != s.opt.Content && SkippedName(name) {
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
