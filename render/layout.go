package render

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"html/template"
	"strings"

	"github.com/perflab/perflab/render/nav"
	"github.com/perflab/perflab/render/wire"

	"github.com/perflab/perflab/render/inputs"
)

// The layout: every page in the site's frame (header, navigation,
// contents, search), the home page and what it lists of each report.

// frame is all a page's layout may know besides the page itself: the
// site's links and the options that show in the frame, and the
// navigation, the layout's one view of other pages. The layout is
// written by frame's methods, which are not handed the Site, so what a
// page's layout takes from other pages can only come through a field of
// frame; and every field is in frame's digest (wire's encoding), which
// is part of every page's layout key (layoutKey). A field wire cannot
// encode fails the build's first use of the digest.
type frame struct {
	Links      nav.Links
	Content    string // the content directory (a report's campaign link)
	LiveReload bool
	Nav        *navView
	bufs       *buffers `wire:"-"` // lent buffers: no content
}

// frame is the site's frame around its pages, with navigation v.
func (s *Site) frame(v *navView) *frame {
	return &frame{Links: s.links(), Content: s.opt.Content, LiveReload: s.opt.LiveReload, Nav: v, bufs: s.bufs}
}

// digest identifies the frame: with a page's cache key and URL it
// determines the page's files (layoutKey).
func (f *frame) digest() string {
	sum := sha256.Sum256(wire.Append(nil, *f))
	return string(sum[:])
}

// navHTML is the navigation as the page at url shows it (template nav).
func (f *frame) navHTML(t *template.Template, url string) (template.HTML, error) {
	b := f.bufs.get()
	defer f.bufs.put(b)
	if err := f.Nav.Write(f.Links, url, func(v *nav.View) error { return execTemplate(t, b, "nav", v) }); err != nil {
		return "", fmt.Errorf("render: template nav: %w", err)
	}
	return template.HTML(b.String()), nil
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

// layout is the page of view v laid out.
func (s *Site) layout(t *template.Template, v layoutView) ([]byte, error) {
	return s.frame(nil).layout(t, v)
}

// layout is the page of view v laid out.
func (f *frame) layout(t *template.Template, v layoutView) ([]byte, error) {
	buf := f.bufs.get()
	defer f.bufs.put(buf)
	if err := f.layoutInto(buf, t, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// layoutInto writes the page laid out into buf (empty).
func (f *frame) layoutInto(buf *bytes.Buffer, t *template.Template, v layoutView) error {
	v.Base = f.Links.Root(v.URL)
	v.HomeHref = f.Links.Href("")
	v.SiteTitle = SiteTitle
	v.LiveReload = f.LiveReload
	v.ReloadURL = v.Base + ReloadPath
	if err := execTemplate(t, buf, "layout", v); err != nil {
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
func (s *Site) renderPage(p *Page, t *template.Template, f *frame) ([]File, searchEntry, error) {
	return s.renderPageInto(nil, p, t, f)
}

// renderPageInto is renderPage; with buf (empty), index.html is laid out
// in buf and its File's Data is buf's bytes, valid until buf is written
// to or given back: Render writes the file from there. A copy of each
// page's 80 kB (a 1,000-report site) was a tenth of a cold build's
// allocation.
func (s *Site) renderPageInto(buf *bytes.Buffer, p *Page, t *template.Template, f *frame) ([]File, searchEntry, error) {
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
	return f.layPage(buf, p, t, ce)
}

// layPage lays page p out from its cache entry ce (in buf, when not
// nil) and returns its files and search entry.
func (f *frame) layPage(buf *bytes.Buffer, p *Page, t *template.Template, ce *cacheEntry) ([]File, searchEntry, error) {
	rp := &ce.Page
	navHTML, err := f.navHTML(t, p.URL)
	if err != nil {
		return nil, searchEntry{}, err
	}
	v := layoutView{Title: rp.Title, Description: rp.Description, URL: p.URL, Body: rp.Body, TOC: tableOfContents(string(rp.Body)), NavHTML: navHTML, Charts: rp.Charts}
	se := ce.Search
	if r := p.Report; r != nil {
		meta := f.reportMeta(r, rp.Title)
		v.Report = &meta
		se.Tags = strings.Join([]string{r.ModelName(), r.GPULabel(), r.Objective(), meta.Engine}, " ")
	}
	var html []byte
	if buf != nil {
		err = f.layoutInto(buf, t, v)
		html = buf.Bytes()
	} else {
		html, err = f.layout(t, v)
	}
	if err != nil {
		return nil, se, fmt.Errorf("%s: %w", p.Src, err)
	}
	files := append([]File{{Path: p.Out(), Data: html}}, ce.Files...)
	return files, se, nil
}

func (f *frame) reportMeta(r *Report, title string) reportMeta {
	m := reportMeta{Title: title, URL: r.Page.URL, Href: f.Links.Href(r.Page.URL), Model: r.ModelName(), Hardware: r.HardwareLabel(), Objective: r.Objective(),
		DataJSON: r.Page.URL + "data.json", DataCSV: r.Page.URL + "data.csv"}
	if oe := r.Optimized(); oe != nil {
		m.Engine = EngineName(oe.Engine)
	}
	if rel, ok := strings.CutPrefix(r.CampaignFile, f.Content+"/"); ok {
		m.Campaign = rel
	}
	// The recommended configuration's throughput and its gain over the
	// baseline, as the report's own blocks compute them (headline.go).
	r.headline(&m)
	return m
}

type homeView struct {
	Base    string
	Reports []reportMeta
	Pages   []navItem
	Intro   template.HTML
	// Changes are the latest rounds' change points (history.go).
	Changes []homeChangeView
}

func (s *Site) renderHome(t *template.Template, f *frame) (File, searchEntry, error) {
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
	changes, err := s.homeChanges() // history.go
	if err != nil {
		return File{}, searchEntry{}, err
	}
	hv := homeView{Base: s.root(""), Intro: intro, Pages: f.Nav.Pages, Changes: changes}
	for _, r := range s.Reports {
		hv.Reports = append(hv.Reports, f.reportMeta(r, r.Page.navTitleReport()))
	}
	var body bytes.Buffer
	if err := execTemplate(t, &body, "home", hv); err != nil {
		return File{}, searchEntry{}, fmt.Errorf("render: template home: %w", err)
	}
	b := template.HTML(body.String())
	navHTML, err := f.navHTML(t, "")
	if err != nil {
		return File{}, searchEntry{}, err
	}
	html, err := f.layout(t, layoutView{Title: title, Description: desc, URL: "", Body: b, TOC: tableOfContents(string(b)), NavHTML: navHTML, Home: true})
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
