package layout

import (
	"fmt"

	"github.com/perflab/perflab/render/nav"
	"github.com/perflab/perflab/render/site"
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

// PageHref is how a page's URL is linked, relative to the root.
func (s *Site) PageHref(url string) string { return s.links().Href(url) }

// Nav is the site's navigation: the reports in navigation order, then
// the plain pages.
func (s *Site) Nav() navView {
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
			pages = append(pages, nav.Page{Title: p.NavTitle(), URL: p.URL, Weight: p.FrontMatter.Weight})
		}
	}
	return nav.Build(s.links(), reports, pages, func(seg string) string { return site.TitleFromPath(seg + ".md") })
}
