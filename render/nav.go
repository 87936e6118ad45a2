package render

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"github.com/perflab/perflab/render/wire"
	"html/template"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The navigation is a tree: report groups (objective, then model, then
// GPU) and the plain pages by directory. A page does not carry the whole
// tree (at 924 pages that was three quarters of every page's bytes and
// made the site grow with the square of its size): it carries the
// branch it is on, expanded, and every other section collapsed to its
// title, which links to the section's first page. So a reader reaches
// any page without JavaScript, and a page weighs what its branch and
// the top level weigh, whatever the number of pages.

// navView is the site's navigation, built once per build.
type navView struct {
	HomeHref string
	Groups   []*navNode // top level: report objectives, then "Pages"
	// Pages are the plain pages in navigation order (the home page
	// lists them).
	Pages []navItem
	// Small is set when the whole tree has at most navSmall entries:
	// every page then shows all of it, as the hand-written navigation of
	// a small lab does.
	Small bool
}

// navSmall is the most entries a navigation may have to be shown whole on
// every page.
const navSmall = 30

// navNode is a section or a page of the navigation.
type navNode struct {
	Title string
	// URL is the page's URL when the node is a page (a section with an
	// index page is one too); "" for a section alone.
	URL string
	// Group marks a top-level group (styled as a heading).
	Group bool
	// Model marks a report's model section.
	Model    bool
	Children []*navNode
	key      string `wire:"-"` // path segment, for building the page tree
	// idx, lo and hi answer holds without walking the subtree (index):
	// the subtree's nodes with a URL are those idx numbers in [lo, hi).
	idx    *navIndex `wire:"-"`
	lo, hi int       `wire:"-"`
}

// navIndex numbers a navigation tree's nodes with a URL in tree order.
type navIndex struct {
	at  map[string]int
	dup bool // a URL on two nodes: holds walks the tree
}

// index numbers v's nodes for holds: every page's navigation asked each
// group whether it holds the page, walking all of its nodes (a
// 1,000-report site's million string comparisons a build).
func (v *navView) index() {
	ix := &navIndex{at: map[string]int{}}
	var walk func(n *navNode)
	walk = func(n *navNode) {
		n.idx, n.lo = ix, len(ix.at)
		if n.URL != "" {
			if _, ok := ix.at[n.URL]; ok {
				ix.dup = true
			}
			ix.at[n.URL] = len(ix.at)
		}
		for _, c := range n.Children {
			walk(c)
		}
		n.hi = len(ix.at)
	}
	for _, g := range v.Groups {
		walk(g)
	}
}

type navItem struct {
	Title, URL string
	Href       string // URL as linked (relative to the root)
}

// navOpenGroup is how many entries a top-level group may have to be
// listed (its sections collapsed) on pages outside it; a larger group
// shows its title alone there.
const navOpenGroup = 12

// first is the URL of the node's first page (itself when it is one), in
// navigation order.
func (n *navNode) first() string {
	if n.URL != "" {
		return n.URL
	}
	for _, c := range n.Children {
		if u := c.first(); u != "" {
			return u
		}
	}
	return ""
}

// holds reports whether the page at url is n or below it.
func (n *navNode) holds(url string) bool {
	if ix := n.idx; ix != nil && !ix.dup {
		i, ok := ix.at[url]
		return ok && n.lo <= i && i < n.hi
	}
	if n.URL != "" && n.URL == url {
		return true
	}
	for _, c := range n.Children {
		if c.holds(url) {
			return true
		}
	}
	return false
}

// nav groups reports by objective, then model, then GPU (the leaf label),
// as GPUStack's hand-written nav does, but generated; plain pages follow
// in a tree of their directories.
func (s *Site) nav() navView {
	v := navView{HomeHref: s.pageHref("")}
	for _, r := range s.Reports {
		g := "Optimizing " + strings.ToUpper(r.Objective()[:1]) + r.Objective()[1:]
		if len(v.Groups) == 0 || v.Groups[len(v.Groups)-1].Title != g {
			v.Groups = append(v.Groups, &navNode{Title: g, Group: true})
		}
		grp := v.Groups[len(v.Groups)-1]
		if len(grp.Children) == 0 || grp.Children[len(grp.Children)-1].Title != r.ModelName() {
			grp.Children = append(grp.Children, &navNode{Title: r.ModelName(), Model: true})
		}
		m := grp.Children[len(grp.Children)-1]
		label := r.GPULabel()
		if r.Campaign.Hardware.Count > 1 {
			label = fmt.Sprintf("%s ×%d", label, r.Campaign.Hardware.Count)
		}
		m.Children = append(m.Children, &navNode{Title: label, URL: r.Page.URL})
	}
	// Two reports of one model on one GPU (a throughput and a tuned
	// variant, say) get their page name added to tell them apart.
	for _, g := range v.Groups {
		for _, m := range g.Children {
			count := map[string]int{}
			for _, it := range m.Children {
				count[it.Title]++
			}
			for _, it := range m.Children {
				if count[it.Title] > 1 {
					it.Title += " · " + path.Base(strings.TrimSuffix(it.URL, "/"))
				}
			}
		}
	}
	var plain []*Page
	for _, p := range s.Pages {
		if p.Report == nil {
			plain = append(plain, p)
		}
	}
	sort.SliceStable(plain, func(i, j int) bool {
		if plain[i].FrontMatter.Weight != plain[j].FrontMatter.Weight {
			return plain[i].FrontMatter.Weight < plain[j].FrontMatter.Weight
		}
		return plain[i].URL < plain[j].URL
	})
	if len(plain) == 0 {
		v.Small = v.count() <= navSmall
		v.index()
		return v
	}
	pages := &navNode{Title: "Pages", Group: true}
	for _, p := range plain {
		v.Pages = append(v.Pages, navItem{Title: p.navTitle(), URL: p.URL, Href: s.pageHref(p.URL)})
		segs := strings.Split(strings.TrimSuffix(p.URL, "/"), "/")
		n := pages
		for i, seg := range segs {
			var c *navNode
			for _, o := range n.Children {
				if o.key == seg {
					c = o
					break
				}
			}
			if c == nil {
				c = &navNode{key: seg, Title: titleFromPath(seg + ".md")}
				n.Children = append(n.Children, c)
			}
			if i == len(segs)-1 {
				c.Title, c.URL = p.navTitle(), p.URL
			}
			n = c
		}
	}
	v.Groups = append(v.Groups, pages)
	v.Small = v.count() <= navSmall
	v.index()
	return v
}

// count is the number of entries below the top-level groups.
func (v *navView) count() int {
	var walk func([]*navNode) int
	walk = func(ns []*navNode) int {
		n := len(ns)
		for _, c := range ns {
			n += walk(c.Children)
		}
		return n
	}
	n := 0
	for _, g := range v.Groups {
		n += walk(g.Children)
	}
	return n
}

// navHTML writes the navigation as the page at url shows it: the
// branch holding the page expanded, the page marked current, every other
// section its title alone (a link to its first page). Links start at
// the page's root.
func (s *Site) navHTML(v *navView, url string) template.HTML {
	root := s.root(url)
	b := s.bufs.get()
	defer s.bufs.put(b)
	b.WriteString(`<nav id="nav" class="nav" aria-label="Site">` + "\n<ul><li>")
	s.navLink(b, root, "Overview", "", url, "")
	b.WriteString("</li></ul>\n")
	for _, g := range v.Groups {
		open := v.Small || g.holds(url)
		if !open && len(g.Children) > navOpenGroup {
			// A large group the page is not in: its title alone.
			b.WriteString(`<p class="nav-group"><a href="`)
			htmlEscape(b, root)
			htmlEscape(b, s.pageHref(g.first()))
			b.WriteString(`">`)
			htmlEscape(b, g.Title)
			b.WriteString("</a></p>\n")
			continue
		}
		b.WriteString(`<p class="nav-group">`)
		htmlEscape(b, g.Title)
		b.WriteString("</p>\n<ul>\n")
		s.navChildren(b, g.Children, root, url, v.Small)
		b.WriteString("</ul>\n")
	}
	b.WriteString("</nav>\n")
	return template.HTML(b.String())
}

// navNodeHTML writes one entry: a page or section on the current branch
// with its children, any other section collapsed to a link to its first
// page.
func (s *Site) navNodeHTML(b *bytes.Buffer, n *navNode, root, url string, all bool) {
	class := ""
	if n.Model {
		class = "nav-model"
	}
	if len(n.Children) == 0 {
		b.WriteString("<li>")
		s.navLink(b, root, n.Title, n.URL, url, class)
		b.WriteString("</li>\n")
		return
	}
	if !all && !n.holds(url) {
		// Collapsed: the section's title leads to its first page.
		b.WriteString(`<li class="nav-closed">`)
		s.navLink(b, root, n.Title, n.first(), url, class)
		b.WriteString("</li>\n")
		return
	}
	b.WriteString(`<li class="nav-open">`)
	if n.URL != "" {
		s.navLink(b, root, n.Title, n.URL, url, class)
	} else {
		if class == "" {
			class = "nav-section"
		}
		b.WriteString(`<span class="`)
		b.WriteString(class)
		b.WriteString(`">`)
		htmlEscape(b, n.Title)
		b.WriteString("</span>")
	}
	b.WriteString("\n<ul>\n")
	s.navChildren(b, n.Children, root, url, all)
	b.WriteString("</ul></li>\n")
}

// navWindow is how many entries of one list a page shows: a longer list
// (a thousand models under one objective) shows the window around the
// page's own entry and says how many it leaves to the overview, which
// lists every report and page.
const navWindow = 25

// navChildren writes the entries of one list, at most navWindow of them.
func (s *Site) navChildren(b *bytes.Buffer, cs []*navNode, root, url string, all bool) {
	lo, hi := 0, len(cs)
	if len(cs) > navWindow {
		at := 0
		for i, c := range cs {
			if c.holds(url) {
				at = i
				break
			}
		}
		lo = max(0, min(at-navWindow/2, len(cs)-navWindow))
		hi = lo + navWindow
	}
	more := func(n int) {
		if n > 0 {
			b.WriteString(`<li class="nav-more"><a href="`)
			htmlEscape(b, root)
			htmlEscape(b, s.pageHref(""))
			b.WriteString(`">… `)
			b.WriteString(strconv.Itoa(n))
			b.WriteString(" more on the overview</a></li>\n")
		}
	}
	more(lo)
	for _, c := range cs[lo:hi] {
		s.navNodeHTML(b, c, root, url, all)
	}
	more(len(cs) - hi)
}

// navLink writes a link to the page at target, marked current when it is
// the page at url.
func (s *Site) navLink(b *bytes.Buffer, root, title, target, url, class string) {
	b.WriteString(`<a href="`)
	htmlEscape(b, root)
	htmlEscape(b, s.pageHref(target))
	b.WriteString(`"`)
	if class != "" {
		b.WriteString(` class="`)
		b.WriteString(class)
		b.WriteString(`"`)
	}
	if target == url {
		b.WriteString(` aria-current="page"`)
	}
	b.WriteString(">")
	htmlEscape(b, title)
	b.WriteString("</a>")
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

// digest identifies everything navHTML reads besides the page's URL: the
// navigation's data and the base URL. A page's navigation is a function
// of its URL and this digest, so an unchanged rebuild keys each page's
// layout by the digest instead of writing every page's navigation (a
// quarter of an unchanged 924-page rebuild). It hashes the wire encoding
// of navView, the layout's one view of other pages: whatever is added to
// it is in every page's layout key (layoutKey) by construction.
func (v *navView) digest(baseURL string) string {
	sum := sha256.Sum256(wire.Append([]byte(baseURL+"\x00"), *v))
	return string(sum[:])
}
