package render

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/perflab/perflab/render/nav"
)

// The navigation is render/nav's; render hands it the reports and the
// plain pages, and writes a page's navigation into a lent buffer.

// navView and navItem are render/nav's types under the names the layout
// uses.
type (
	navView = nav.Tree
	navItem = nav.Item
)

// links makes the site's links (render/nav).
func (s *Site) links() nav.Links { return nav.Links{BaseURL: s.opt.BaseURL} }

// relative reports whether links are relative to their page (the default
// base URL) rather than absolute under a base URL.
func (s *Site) relative() bool { return s.links().Relative() }

// root is the prefix that leads from the page at url to the site's root.
func (s *Site) root(url string) string { return s.links().Root(url) }

// pageHref is how a page's URL is linked, relative to the root.
func (s *Site) pageHref(url string) string { return s.links().Href(url) }

// nav is the site's navigation: the reports in navigation order, then
// the plain pages.
func (s *Site) nav() navView {
	reports := make([]nav.Report, 0, len(s.Reports))
	for _, r := range s.Reports {
		label := r.GPULabel()
		if r.Campaign.Hardware.Count > 1 {
			label = fmt.Sprintf("%s ×%d", label, r.Campaign.Hardware.Count)
		}
		reports = append(reports, nav.Report{Objective: r.Objective(), Model: r.ModelName(), Label: label, URL: r.Page.URL})
	}
	var pages []nav.Page
	for _, p := range s.Pages {
		if p.Report == nil {
			pages = append(pages, nav.Page{Title: p.navTitle(), URL: p.URL, Weight: p.FrontMatter.Weight})
		}
	}
	return nav.Build(s.links(), reports, pages, func(seg string) string { return titleFromPath(seg + ".md") })
}

// navTitle is the page's title for navigation without rendering it: front
// matter's title, else the first "# " heading, else the file name. It
// scans the body in place (splitting it into strings was a fifth of an
// unchanged 924-page rebuild).
func (p *Page) navTitle() string {
	if p.FrontMatter.Title != "" {
		return p.FrontMatter.Title
	}
	if h, ok := p.headingLine(); ok {
		return h
	}
	return titleFromPath(p.Rel)
}

// headingLine is the text of the body's first "# " line.
func (p *Page) headingLine() (string, bool) { return p.heading, p.hasHeading }

func headingLineOf(body []byte) (string, bool) {
	for b := body; len(b) > 0; {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t, ok := bytes.CutPrefix(line, []byte("# ")); ok {
			return strings.TrimSpace(string(t)), true
		}
	}
	return "", false
}
