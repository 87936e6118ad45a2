package layout

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"html/template"
	"strings"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/nav"
	"github.com/perflab/perflab/render/site"
	"github.com/perflab/perflab/render/wire"

	"github.com/perflab/perflab/render/inputs"
)

// The layout: every page in the site's frame (header, navigation,
// contents, search), the home page and what it lists of each report.

// Frame is all a page's layout may know besides the page itself: the
// site's links and the options that show in the frame, and the
// navigation, the layout's one view of other pages. The layout is
// written by Frame's methods, which are not handed the Site, so what a
// page's layout takes from other pages can only come through a field of
// Frame; and every field is in its digest (wire's encoding), which
// is part of every page's layout key (layoutKey). A field wire cannot
// encode fails the build's first use of the digest.
type Frame struct {
	Links      nav.Links
	Content    string // the content directory (a report's campaign link)
	LiveReload bool
	Nav        *navView
	bufs       *blocks.Buffers `wire:"-"` // lent buffers: no content
}

// Frame is the site's frame around its pages, with navigation v.
func (s *Site) Frame(v *navView) *Frame {
	return &Frame{Links: s.links(), Content: s.opt.Content, LiveReload: s.opt.LiveReload, Nav: v, bufs: s.Bufs}
}

// Digest identifies the frame: with a page's cache key and URL it
// determines the page's files (layoutKey).
func (f *Frame) Digest() string {
	sum := sha256.Sum256(wire.Append(nil, *f))
	return string(sum[:])
}

// NavHTML is the navigation as the page at url shows it (template nav).
func (f *Frame) NavHTML(t *template.Template, url string) (template.HTML, error) {
	b := f.bufs.Get()
	defer f.bufs.Put(b)
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
	Report      *blocks.ReportMeta
	Home        bool
}

// layout is the page of view v laid out.
func (s *Site) layout(t *template.Template, v layoutView) ([]byte, error) {
	return s.Frame(nil).layout(t, v)
}

// layout is the page of view v laid out.
func (f *Frame) layout(t *template.Template, v layoutView) ([]byte, error) {
	buf := f.bufs.Get()
	defer f.bufs.Put(buf)
	if err := f.layoutInto(buf, t, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// layoutInto writes the page laid out into buf (empty).
func (f *Frame) layoutInto(buf *bytes.Buffer, t *template.Template, v layoutView) error {
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

// SearchEntry is a page's entry in the search index.
type SearchEntry struct {
	Title string `json:"title"`
	URL   string `json:"url"` // relative to the site's root
	Tags  string `json:"tags,omitempty"`
	Text  string `json:"text"`
}

// LayPage lays page p out from its cache entry ce (in buf, when not
// nil) and returns its files and search entry.
func (f *Frame) LayPage(buf *bytes.Buffer, p *Page, t *template.Template, ce *Entry) ([]File, SearchEntry, error) {
	rp := &ce.Page
	navHTML, err := f.NavHTML(t, p.URL)
	if err != nil {
		return nil, SearchEntry{}, err
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

func (f *Frame) reportMeta(r *Report, title string) blocks.ReportMeta {
	m := blocks.ReportMeta{Title: title, URL: r.Page.URL, Href: f.Links.Href(r.Page.URL), Model: r.ModelName(), Hardware: r.HardwareLabel(), Objective: r.Objective(),
		DataJSON: r.Page.URL + "data.json", DataCSV: r.Page.URL + "data.csv"}
	if oe := r.Optimized(); oe != nil {
		m.Engine = site.EngineName(oe.Engine)
	}
	if rel, ok := strings.CutPrefix(r.CampaignFile, f.Content+"/"); ok {
		m.Campaign = rel
	}
	// The recommended configuration's throughput and its gain over the
	// baseline, as the report's own blocks compute them (headline.go).
	blocks.Headline(r, &m)
	return m
}

type homeView struct {
	Base    string
	Reports []blocks.ReportMeta
	Pages   []navItem
	Intro   template.HTML
	// Changes are the latest rounds' change points (history.go).
	Changes []blocks.HomeChangeView
}

func (s *Site) RenderHome(t *template.Template, f *Frame) (File, SearchEntry, error) {
	title := SiteTitle
	intro := template.HTML(`<p>Benchmark campaigns of LLM serving engines, step by step from a baseline to a recommended configuration. Every number, delta and chart on these pages is computed from the recorded results, which each report offers for download; caveats found in the data are shown next to the numbers they concern.</p>`)
	desc := ""
	if s.Home != nil {
		rd := inputs.NewReader(s.InputStats)
		rp, err := s.RenderBody(s.Home, t, rd)
		s.Home.Rendered = rd
		if err != nil {
			return File{}, SearchEntry{}, err
		}
		title, intro, desc = rp.Title, rp.Body, rp.Description
	}
	changes, err := blocks.HomeChanges(s.Site, s.links()) // render/blocks' history.go
	if err != nil {
		return File{}, SearchEntry{}, err
	}
	hv := homeView{Base: s.root(""), Intro: intro, Pages: f.Nav.Pages, Changes: changes}
	for _, r := range s.Reports {
		hv.Reports = append(hv.Reports, f.reportMeta(r, r.Page.NavTitleReport()))
	}
	var body bytes.Buffer
	if err := execTemplate(t, &body, "home", hv); err != nil {
		return File{}, SearchEntry{}, fmt.Errorf("render: template home: %w", err)
	}
	b := template.HTML(body.String())
	navHTML, err := f.NavHTML(t, "")
	if err != nil {
		return File{}, SearchEntry{}, err
	}
	html, err := f.layout(t, layoutView{Title: title, Description: desc, URL: "", Body: b, TOC: tableOfContents(string(b)), NavHTML: navHTML, Home: true})
	if err != nil {
		return File{}, SearchEntry{}, err
	}
	return File{Path: "index.html", Data: html}, SearchEntry{Title: title, URL: s.PageHref(""), Text: PlainText(string(intro), 2000)}, nil
}
