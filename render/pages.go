package render

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/layout"
)

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
	key, rd := s.cache.pageKey(p, s.InputStats)
	ce := s.cache.get(key)
	if ce == nil {
		had := rd != nil
		rd = inputs.NewReader(s.InputStats)
		rp, err := s.RenderBody(p, t, rd)
		if err != nil {
			return nil, searchEntry{}, err
		}
		ce = &layout.Entry{Page: *rp, Search: searchEntry{Title: rp.Title, URL: s.PageHref(p.URL), Text: layout.PlainText(string(rp.Body), 4000)}}
		if r := p.Report; r != nil {
			js, csvData, err := blocks.ReportData(r)
			if err != nil {
				return nil, ce.Search, fmt.Errorf("%s: %w", p.Src, err)
			}
			ce.Files = []File{{Path: p.URL + "data.json", Data: js}, {Path: p.URL + "data.csv", Data: csvData}}
			if cv := blocks.CurvesCSV(r); cv != nil { // sweeps: the curves' points (curves.go)
				ce.Files = append(ce.Files, File{Path: p.URL + "curves.csv", Data: cv})
			}
		}
		key = s.cache.putPage(p, rd, had, ce)
	}
	p.Key = key
	p.Rendered = rd
	return f.LayPage(buf, p, t, ce)
}
