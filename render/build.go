package render

import (
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/output"

	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/templates"
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
	// TemplatesDir, when set, reads templates from disk (serve mode)
	// instead of the embedded copies.
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
	// with a new kind of input).
	blocks map[string]blockFunc
}

// ReloadPath is where, below the base URL, a preview server serves its
// reload events when Options.LiveReload is set.
const ReloadPath = "_perflab/reload"

// SiteTitle is the site's name in the header.
const SiteTitle = "Inference Performance Lab"

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
	if !strings.HasPrefix(b, "/") && !hasScheme(b) {
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
	if st, ok := unchangedSite(opt); ok { // sitestamp.go
		return st, nil
	}
	t, assets, err := loadTemplates(opt.TemplatesDir)
	if err != nil {
		return Stats{}, err
	}
	site, err := loadForBuild(ctx, opt)
	if err != nil {
		return Stats{}, err
	}
	defer site.inputStats.Abandon() // after a failure; a no-op after save
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
	st, err := site.renderInto(ctx, out, t, assets, site.readManifest(out))
	unlock()
	if err != nil {
		return st, err
	}
	for _, r := range site.Reports {
		if len(r.Stale) > 0 {
			st.Warnings = append(st.Warnings, fmt.Sprintf("%s: %d result(s) in %s that the campaign no longer defines are left out of /%s (first: %s: %s)",
				r.CampaignFile, len(r.Stale), r.ResultsDir, r.Page.URL, r.Stale[0].Run.File, r.Stale[0].Why))
		}
	}
	site.cache.finish(true)
	site.inputStats.Save()
	st.Cached = site.cache.hitCount()
	site.stamp(out, st) // sitestamp.go
	return st, nil
}

// renderInto renders the site into a temporary directory beside out and
// swaps it in; with prev (the manifest of out's last build) files that
// are already in out are not written again, and out is not touched at
// all when nothing in it would change.
func (s *Site) renderInto(ctx context.Context, out string, t *template.Template, assets fs.FS, prev *output.Manifest) (Stats, error) {
	tmp, err := output.MakeBuildDir(out)
	if err != nil {
		return Stats{}, fmt.Errorf("render: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	s.outputs = output.NewTracker(prev)
	s.prevSearch = prevSearchOf(s.cache, s.outputs)
	defer func() { s.outputs = nil }()
	st, err := s.Render(ctx, tmp, t, assets)
	if err != nil {
		return st, err
	}
	o := s.outputs
	if o.Unchanged(out, tmp) {
		s.untouched = o
		if o.Stale() {
			s.writeManifest(out, o)
		}
		return st, nil // the deferred RemoveAll drops tmp's empty directories
	}
	if o.Skipped() > 0 {
		if err := o.Fill(tmp); err != nil {
			// out changed under us: render everything afresh.
			os.RemoveAll(tmp)
			ok = true
			return s.renderInto(ctx, out, t, assets, nil)
		}
	}
	old, err := output.SwapAside(tmp, out)
	if err != nil {
		return st, err
	}
	ok = true
	if o.Skipped() > 0 {
		// Fill linked files of the old site into the new: removing the
		// old links sets their change times, which the manifest records.
		if err := output.RemoveOld(old); err != nil {
			return st, err
		}
		s.writeManifest(out, o)
		return st, nil
	}
	// The old site shares no file with the new one: it is removed while
	// the manifest is written (both were serial at the end of a build).
	removed := make(chan error, 1)
	go func() { removed <- output.RemoveOld(old) }()
	s.writeManifest(out, o)
	return st, <-removed
}

// loadTemplates parses the HTML templates and returns the assets FS, from
// dir or the embedded copies.
func loadTemplates(dir string) (*template.Template, fs.FS, error) {
	var fsys fs.FS = templates.FS
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	t, err := template.New("").Funcs(template.FuncMap{
		"join": strings.Join,
		"add":  func(a, b int) int { return a + b },
		"gpus": gpuCount,
	}).ParseFS(fsys, "*.html")
	if err != nil {
		return nil, nil, fmt.Errorf("render: templates: %w", err)
	}
	if dir == "" {
		if _, err := t.New(builtinMarker).Parse(""); err != nil {
			return nil, nil, fmt.Errorf("render: templates: %w", err)
		}
	}
	return t, fsys, nil
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
	t, assets, err := loadTemplates(dir)
	if err != nil {
		return nil, err
	}
	return &Templates{t: t, assets: assets}, nil
}

// PageFiles renders one page on its own (a preview server's incremental
// step when only inputs in p.Deps changed): its index.html and, for a
// report, data.json and data.csv. Navigation, the home page and the search
// index depend on every page; rebuild the site when pages are added,
// removed or retitled.
func (s *Site) PageFiles(p *Page, tm *Templates) ([]File, error) {
	nav := s.nav()
	files, _, err := s.renderPage(p, tm.t, &nav)
	return files, err
}

// siteAssets are the code-highlighting stylesheet and the files under
// the templates' assets/.
func siteAssets(assets fs.FS) ([]File, error) {
	css, err := chromaCSS()
	if err != nil {
		return nil, err
	}
	files := []File{{Path: "assets/chroma.css", Data: css}}
	err = fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(assets, p)
		if err != nil {
			return err
		}
		files = append(files, File{Path: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("render: assets: %w", err)
	}
	return files, nil
}

// searchFiles are the search index's files (the home page's entry first,
// then every page's in order). Builder writes them too.
func searchFiles(index []searchEntry) ([]File, error) {
	return searchFilesEncoded(index, nil)
}

// searchFilesEncoded is searchFiles where encoded[i], when there and not
// nil, is index[i] as json.Marshal encodes it: the index is then those
// bytes between brackets and commas, as json.Marshal writes a slice.
func searchFilesEncoded(index []searchEntry, encoded [][]byte) ([]File, error) {
	n := 3 + len(index) // brackets, commas and search.json's newline
	for _, e := range encoded {
		n += len(e)
	}
	idx := make([]byte, 0, n)
	idx = append(idx, '[')
	for i, e := range index {
		if i > 0 {
			idx = append(idx, ',')
		}
		if i < len(encoded) && encoded[i] != nil {
			idx = append(idx, encoded[i]...)
			continue
		}
		js, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("render: search index: %w", err)
		}
		idx = append(idx, js...)
	}
	idx = append(idx, ']')
	// search.js carries the same index for pages opened from the disk,
	// where fetching search.json is not allowed.
	js := append(append([]byte("window.perflabSearch="), idx...), ";\n"...)
	return []File{{Path: "search.json", Data: append(idx, '\n')}, {Path: "search.js", Data: js}}, nil
}

// chromaCSS is the code-highlighting stylesheet: github for the light
// theme, github-dark under [data-theme="dark"].
func chromaCSS() ([]byte, error) {
	var buf bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(&buf, styles.Get("github")); err != nil {
		return nil, fmt.Errorf("render: chroma css: %w", err)
	}
	var dark bytes.Buffer
	if err := f.WriteCSS(&dark, styles.Get("github-dark")); err != nil {
		return nil, fmt.Errorf("render: chroma css: %w", err)
	}
	d := regexp.MustCompile(`(?m)^(/\*[^*]*\*/ )?\.`).ReplaceAll(dark.Bytes(), []byte(`$1[data-theme="dark"] .`))
	buf.Write(d)
	// The page, not chroma, owns the code background.
	out := regexp.MustCompile(`(\.(bg|chroma) \{[^}]*?)background-color: #[0-9a-fA-F]+;?`).ReplaceAll(buf.Bytes(), []byte(`$1`))
	return out, nil
}

// ---- layout ----

// relative reports whether links are relative to their page (the default
// base URL) rather than absolute under a base URL.
func (s *Site) relative() bool { return s.opt.BaseURL == "/" }

// root is the prefix that leads from the page at url to the site's root:
// "../../" for qwen3-32b/h100/ in relative mode, the base URL otherwise.
func (s *Site) root(url string) string {
	if !s.relative() {
		return s.opt.BaseURL
	}
	return strings.Repeat("../", strings.Count(url, "/"))
}

// pageHref is how a page's URL is linked, relative to the root: a pretty
// directory URL under a base URL, an explicit index.html in relative mode
// (file:// does not serve a directory's index).
func (s *Site) pageHref(url string) string {
	if s.relative() && (url == "" || strings.HasSuffix(url, "/")) {
		return url + "index.html"
	}
	return url
}

type layoutView struct {
	Base        string // the page's root: relative ("../../") or the base URL
	HomeHref    string
	SiteTitle   string
	Title       string
	Description string
	URL         string
	Body        template.HTML
	TOC         []tocEntry
	NavHTML     template.HTML
	Charts      bool
	LiveReload  bool
	ReloadURL   string
	Report      *reportMeta
	Home        bool
}

func (s *Site) layout(t *template.Template, v layoutView) ([]byte, error) {
	buf := s.bufs.get()
	defer s.bufs.put(buf)
	if err := s.layoutInto(buf, t, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// layoutInto writes the page laid out into buf (empty).
func (s *Site) layoutInto(buf *bytes.Buffer, t *template.Template, v layoutView) error {
	v.Base = s.root(v.URL)
	v.HomeHref = s.pageHref("")
	v.SiteTitle = SiteTitle
	v.LiveReload = s.opt.LiveReload
	v.ReloadURL = v.Base + ReloadPath
	if t.Lookup(builtinMarker) != nil && fastLayoutOK(&v) { // fastlayout.go
		writeLayout(buf, &v)
		return nil
	}
	if err := t.ExecuteTemplate(buf, "layout", v); err != nil {
		return fmt.Errorf("render: template layout: %w", err)
	}
	return nil
}

type searchEntry struct {
	Title string `json:"title"`
	URL   string `json:"url"` // relative to the site's root
	Tags  string `json:"tags,omitempty"`
	Text  string `json:"text"`
}

// reportMeta is what the home page lists about a report.
type reportMeta struct {
	Title, URL, Href, Model, Hardware, Engine, Objective string
	Best, BestSort, BestNote                             string
	Gain                                                 template.HTML
	GainClass, GainSort, GainNote                        string
	DataJSON, DataCSV, Campaign                          string
}

// renderPage renders one page into its files (index.html and, for a
// report, data.json and data.csv) and its search entry.
func (s *Site) renderPage(p *Page, t *template.Template, nav *navView) ([]File, searchEntry, error) {
	return s.renderPageInto(nil, p, t, nav)
}

// renderPageInto is renderPage; with buf (empty), index.html is laid out
// in buf and its File's Data is buf's bytes, valid until buf is written
// to or given back: Render writes the file from there. A copy of each
// page's 80 kB (a 1,000-report site) was a tenth of a cold build's
// allocation.
func (s *Site) renderPageInto(buf *bytes.Buffer, p *Page, t *template.Template, nav *navView) ([]File, searchEntry, error) {
	key, rd := s.cache.pageKey(p, s.inputStats)
	ce := s.cache.get(key)
	if ce == nil {
		had := rd != nil
		rd = inputs.NewReader(s.inputStats)
		rp, err := s.renderBody(p, t, rd)
		if err != nil {
			return nil, searchEntry{}, err
		}
		ce = &cacheEntry{Page: *rp, Search: searchEntry{Title: rp.Title, URL: s.pageHref(p.URL), Text: plainText(string(rp.Body), 4000)}}
		if r := p.Report; r != nil {
			js, csvData, err := reportData(r)
			if err != nil {
				return nil, ce.Search, fmt.Errorf("%s: %w", p.Src, err)
			}
			ce.Files = []File{{Path: p.URL + "data.json", Data: js}, {Path: p.URL + "data.csv", Data: csvData}}
			if cv := curvesCSV(r); cv != nil { // sweeps: the curves' points (curves.go)
				ce.Files = append(ce.Files, File{Path: p.URL + "curves.csv", Data: cv})
			}
		}
		key = s.cache.putPage(p, rd, had, ce)
	}
	p.key = key
	p.rendered = rd
	rp := &ce.Page
	v := layoutView{Title: rp.Title, Description: rp.Description, URL: p.URL, Body: rp.Body, TOC: tableOfContents(string(rp.Body)), NavHTML: s.navHTML(nav, p.URL), Charts: rp.Charts}
	se := ce.Search
	if r := p.Report; r != nil {
		meta := s.reportMeta(r, rp.Title)
		v.Report = &meta
		se.Tags = strings.Join([]string{r.ModelName(), r.GPULabel(), r.Objective(), meta.Engine}, " ")
	}
	var html []byte
	var err error
	if buf != nil {
		err = s.layoutInto(buf, t, v)
		html = buf.Bytes()
	} else {
		html, err = s.layout(t, v)
	}
	if err != nil {
		return nil, se, fmt.Errorf("%s: %w", p.Src, err)
	}
	files := append([]File{{Path: p.Out(), Data: html}}, ce.Files...)
	return files, se, nil
}

func (s *Site) reportMeta(r *Report, title string) reportMeta {
	m := reportMeta{Title: title, URL: r.Page.URL, Href: s.pageHref(r.Page.URL), Model: r.ModelName(), Hardware: r.HardwareLabel(), Objective: r.Objective(),
		DataJSON: r.Page.URL + "data.json", DataCSV: r.Page.URL + "data.csv"}
	if oe := r.Optimized(); oe != nil {
		m.Engine = EngineName(oe.Engine)
	}
	if rel, ok := strings.CutPrefix(r.CampaignFile, s.opt.Content+"/"); ok {
		m.Campaign = rel
	}
	// The best total throughput of the recommended configuration: the
	// best of every run was the 235B baseline's (8 GPUs), since the
	// optimized runs that beat it per GPU were left out, which listed the
	// configuration the page argues against as the report's best.
	tps := mustMetric("total_token_throughput")
	best, bestRun := 0.0, (*Run)(nil)
	oe := r.Optimized()
	for _, run := range r.Runs() {
		if oe == nil || run.Result.Experiment != oe.ID || !successful(run.Result) {
			continue
		}
		if v, ok := tps.Value(run.Result.Summary); ok && v > best {
			best, bestRun = v, run
		}
	}
	if bestRun != nil {
		m.Best = fmtNum(best) + " tok/s"
		m.BestSort = strconv.FormatFloat(best, 'f', 4, 64)
		e, _ := r.Campaign.Experiment(bestRun.Result.Experiment)
		p, _ := r.Campaign.Profile(bestRun.Result.Profile)
		m.BestNote = fmt.Sprintf("%s on %s, %s", e.Name, p.Name, gpuCount(r.GPUs(e)))
	} else {
		m.Best = "—"
	}
	// The headline gain: optimized vs baseline on the first profile both
	// ran, per GPU when their GPU counts differ.
	prim, _ := r.primaryMetrics()
	be := r.Baseline()
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil || opt == nil || !successfulEnough(base.Result) || !successfulEnough(opt.Result) {
			continue
		}
		bv, _, ok1 := r.pointValue(base, prim)
		ov, _, ok2 := r.pointValue(opt, prim)
		if !ok1 || !ok2 {
			continue
		}
		norm := r.GPUs(be) != r.GPUs(oe)
		d := Compare(Normalized(prim, bv, r.GPUs(be), norm), Normalized(prim, ov, r.GPUs(oe), norm), prim.HigherBetter)
		m.Gain, m.GainClass, m.GainSort = d.HTML(), d.Class(), strconv.FormatFloat(d.Pct, 'f', 4, 64)
		m.GainNote = prim.Label + " on " + p.Name
		if norm && prim.PerGPU {
			m.GainNote += ", per GPU"
		}
		break
	}
	return m
}

type homeView struct {
	Base    string
	Reports []reportMeta
	Pages   []navItem
	Intro   template.HTML
}

func (s *Site) renderHome(t *template.Template, nav *navView) (File, searchEntry, error) {
	title := SiteTitle
	intro := template.HTML(`<p>Benchmark campaigns of LLM serving engines, step by step from a baseline to a recommended configuration. Every number, delta and chart on these pages is computed from the recorded results, which each report offers for download; caveats found in the data are shown next to the numbers they concern.</p>`)
	desc := ""
	if s.Home != nil {
		rd := inputs.NewReader(s.inputStats)
		rp, err := s.renderBody(s.Home, t, rd)
		s.Home.rendered = rd
		if err != nil {
			return File{}, searchEntry{}, err
		}
		title, intro, desc = rp.Title, rp.Body, rp.Description
	}
	hv := homeView{Base: s.root(""), Intro: intro, Pages: nav.Pages}
	for _, r := range s.Reports {
		hv.Reports = append(hv.Reports, s.reportMeta(r, r.Page.navTitleReport()))
	}
	var body bytes.Buffer
	if err := t.ExecuteTemplate(&body, "home", hv); err != nil {
		return File{}, searchEntry{}, fmt.Errorf("render: template home: %w", err)
	}
	b := template.HTML(body.String())
	html, err := s.layout(t, layoutView{Title: title, Description: desc, URL: "", Body: b, TOC: tableOfContents(string(b)), NavHTML: s.navHTML(nav, ""), Home: true})
	if err != nil {
		return File{}, searchEntry{}, err
	}
	return File{Path: "index.html", Data: html}, searchEntry{Title: title, URL: s.pageHref(""), Text: plainText(string(intro), 2000)}, nil
}

// navTitleReport is a report's title without rendering its page.
func (p *Page) navTitleReport() string {
	if p.FrontMatter.Title != "" || p.Report == nil {
		return p.navTitle()
	}
	if p.Report.Campaign.Title != "" {
		return p.Report.Campaign.Title
	}
	if h, ok := p.headingLine(); ok {
		return h
	}
	return p.Report.Title()
}

// ---- downloads ----

// runData is one run in a report's data.json.
type runData struct {
	Experiment string          `json:"experiment"`
	Profile    string          `json:"profile"`
	Engine     string          `json:"engine"`
	GPUs       int             `json:"gpus"`
	Status     schema.Status   `json:"status"`
	Error      string          `json:"error,omitempty"`
	Load       schema.Load     `json:"load"`
	Summary    *schema.Summary `json:"summary,omitempty"`
	Caveats    []string        `json:"caveats,omitempty"`
	Result     string          `json:"result_id"`
}

type reportDataFile struct {
	Campaign  string    `json:"campaign"`
	Model     string    `json:"model"`
	Hardware  string    `json:"hardware"`
	Baseline  string    `json:"baseline"`
	Optimized string    `json:"optimized"`
	Runs      []runData `json:"runs"`
}

// reportData returns a report's runs' summaries as JSON and CSV.
func reportData(r *Report) ([]byte, []byte, error) {
	d, rows := reportTables(r)
	// data.json is written by the json v2 encoder with encoding/json's
	// options (HTML-safe escaping, sorted map keys, its omitempty),
	// indenting as it goes; encoding/json's Encoder indented the compact
	// text in a second pass, and with the encoding itself that was ~7 %
	// of a cold 1,000-report build. TestReportDataJSON holds the bytes to
	// encoding/json's.
	js, err := marshalDataJSON(d)
	if err != nil {
		return nil, nil, fmt.Errorf("data.json: %w", err)
	}
	cs := dataBufs.get()
	defer dataBufs.put(cs)
	w := csv.NewWriter(cs)
	if err := w.WriteAll(rows); err != nil {
		return nil, nil, fmt.Errorf("data.csv: %w", err)
	}
	return js, bytes.Clone(cs.Bytes()), nil
}

// dataBufs lends the buffers data.json and data.csv are written into
// (then copied out at their size): grown by doubling for each report,
// they were a tenth of a cold build's allocations.
var dataBufs buffers

// marshalDataJSON encodes v as encoding/json's Encoder with
// SetIndent("", "  ") does. json v2 writes invalid UTF-8 in a string as
// a literal U+FFFD where encoding/json writes the escape \ufffd, and no
// option changes that: v2 is told to reject invalid UTF-8, and a value
// holding any (or any other value v2 declines) is encoded by encoding/json
// itself, which then also words the error.
func marshalDataJSON(v any) ([]byte, error) {
	js := dataBufs.get()
	defer dataBufs.put(js)
	if err := jsonv2.MarshalWrite(js, v, jsonv1.DefaultOptionsV1(), jsonv2.Deterministic(true), jsontext.WithIndent("  "), jsontext.AllowInvalidUTF8(false)); err != nil {
		js.Reset()
		enc := json.NewEncoder(js)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.Clone(js.Bytes()), nil
	}
	js.WriteByte('\n')
	return bytes.Clone(js.Bytes()), nil
}

// reportTables returns a report's data.json value and data.csv rows.
func reportTables(r *Report) (reportDataFile, [][]string) {
	runs := r.Runs()
	d := reportDataFile{Campaign: r.Campaign.ID, Model: r.Campaign.Model.ID, Hardware: r.HardwareLabel(), Baseline: r.Campaign.Baseline, Optimized: r.Campaign.Optimized, Runs: make([]runData, 0, len(runs))}
	rows := make([][]string, 0, len(runs)+1)
	header := []string{"experiment", "profile", "engine", "gpus", "status", "completed", "failed", "duration_s",
		"request_throughput_req_per_s", "output_throughput_tok_per_s", "total_token_throughput_tok_per_s",
		"mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
		"mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms", "p99_e2el_ms", "caveats"}
	rows = append(rows, header)
	for _, run := range runs {
		res := run.Result
		e, _ := r.Campaign.Experiment(res.Experiment)
		rd := runData{Experiment: res.Experiment, Profile: res.Profile, Engine: e.Engine, GPUs: r.GPUs(e), Status: res.Status, Error: res.Error,
			Load: res.Load, Summary: res.Summary, Caveats: Caveats(res), Result: res.ID}
		d.Runs = append(d.Runs, rd)
		row := append(make([]string, 0, len(header)), rd.Experiment, rd.Profile, rd.Engine, strconv.Itoa(rd.GPUs), string(rd.Status))
		f := func(v float64, ok bool) string {
			if !ok {
				return ""
			}
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		stat := func(row []string, st *schema.Stats) []string {
			mean, ok1 := statMean(st)
			med, ok2 := statMedian(st)
			p99, ok3 := st.Get(99)
			return append(row, f(mean, ok1), f(med, ok2), f(p99, ok3))
		}
		if s := res.Summary; s != nil {
			row = append(row, strconv.Itoa(s.Completed), strconv.Itoa(s.Failed), f(s.DurationS, true),
				f(s.RequestThroughput, true), f(s.OutputThroughput, true), f(s.TotalTokenThroughput, true))
			for _, st := range [...]*schema.Stats{s.TTFT, s.TPOT, s.ITL, s.E2EL} {
				row = stat(row, st)
			}
		} else {
			row = append(row, make([]string, 18)...)
		}
		row = append(row, strings.Join(rd.Caveats, "; "))
		rows = append(rows, row)
	}
	return d, rows
}

// gpuCount spells a GPU count: "1 GPU", "8 GPUs".
func gpuCount(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%d GPUs", n)
}
