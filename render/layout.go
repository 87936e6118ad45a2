package render

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/perflab/perflab/render/inputs"
)

// The layout: every page in the site's frame (header, navigation,
// contents, search), the home page and what it lists of each report.

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
