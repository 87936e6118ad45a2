package nav

import (
	"path"
	"sort"
	"strings"
	"sync"
)

// The navigation is a tree: report groups (objective, then model, then
// GPU) and the plain pages by directory. A page does not carry the whole
// tree (at 924 pages that was three quarters of every page's bytes and
// made the site grow with the square of its size): it carries the
// branch it is on, expanded, and every other section collapsed to its
// title, which links to the section's first page. So a reader reaches
// any page without JavaScript, and a page weighs what its branch and
// the top level weigh, whatever the number of pages.

// Tree is the site's navigation, built once per build.
type Tree struct {
	HomeHref string
	Groups   []*Node // top level: report objectives, then "Pages"
	// Pages are the plain pages in navigation order (the home page
	// lists them).
	Pages []Item
	// Small is set when the whole tree has at most smallTree entries:
	// every page then shows all of it, as the hand-written navigation of
	// a small lab does.
	Small bool
}

// smallTree is the most entries a navigation may have to be shown whole on
// every page.
const smallTree = 30

// Node is a section or a page of the navigation.
type Node struct {
	Title string
	// URL is the page's URL when the node is a page (a section with an
	// index page is one too); "" for a section alone.
	URL string
	// Group marks a top-level group (styled as a heading).
	Group bool
	// Model marks a report's model section.
	Model    bool
	Children []*Node
	key      string `wire:"-"` // path segment, for building the page tree
	// idx, lo and hi answer holds without walking the subtree (index):
	// the subtree's nodes with a URL are those idx numbers in [lo, hi).
	idx    *index `wire:"-"`
	lo, hi int    `wire:"-"`
}

// index numbers a navigation tree's nodes with a URL in tree order.
type index struct {
	at  map[string]int
	dup bool // a URL on two nodes: holds walks the tree
}

// numberNodes numbers v's nodes for Holds: every page's navigation asked each
// group whether it holds the page, walking all of its nodes (a
// 1,000-report site's million string comparisons a build).
func (v *Tree) numberNodes() {
	ix := &index{at: map[string]int{}}
	var walk func(n *Node)
	walk = func(n *Node) {
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

type Item struct {
	Title, URL string
	Href       string // URL as linked (relative to the root)
}

// openGroup is how many entries a top-level group may have to be
// listed (its sections collapsed) on pages outside it; a larger group
// shows its title alone there.
const openGroup = 12

// First is the URL of the node's first page (itself when it is one), in
// navigation order.
func (n *Node) First() string {
	if n.URL != "" {
		return n.URL
	}
	for _, c := range n.Children {
		if u := c.First(); u != "" {
			return u
		}
	}
	return ""
}

// Holds reports whether the page at url is n or below it.
func (n *Node) Holds(url string) bool {
	if ix := n.idx; ix != nil && !ix.dup {
		i, ok := ix.at[url]
		return ok && n.lo <= i && i < n.hi
	}
	if n.URL != "" && n.URL == url {
		return true
	}
	for _, c := range n.Children {
		if c.Holds(url) {
			return true
		}
	}
	return false
}

// count is the number of entries below the top-level groups.
func (v *Tree) count() int {
	var walk func([]*Node) int
	walk = func(ns []*Node) int {
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

// View is the navigation as one page shows it, for the "nav" template
// (templates/nav.html, which writes it).
type View struct {
	Overview Link
	Groups   []Group
}

// Group is a top-level group: with Collapsed its title alone (a link,
// Href, to its first page), else its entries.
type Group struct {
	// Root is the page's root: every Href is relative to it.
	Root, Title, Href string
	Collapsed         bool
	List              List
}

// List is the entries of one list a page shows (at most Window of
// them): Before and After count the entries left out on each side, to
// the overview (More).
type List struct {
	Before, After int
	Root, More    string
	Entries       []Entry
}

// Entry is one entry: a page (Leaf), a section collapsed to a link to its
// first page, or (Open) a section on the page's branch with its
// children, headed by a link or, without a page of its own (Span), its
// title.
type Entry struct {
	Leaf, Open, Span bool
	Link             Link
	Children         List
}

// Link is a link to a page, marked current on that page.
type Link struct {
	Root, Href, Class, Title string
	Current                  bool
}

// Write builds the navigation as the page at url shows it (the branch
// holding the page expanded, the page marked current, every other
// section its title alone, a link to its first page; links start at the
// page's root) and hands it to write. The view's slices are lent for the
// call: they are reused for the next page (a page's navigation is written
// into it once, and a build writes hundreds of them).
func (v *Tree) Write(l Links, url string, write func(*View) error) error {
	a := arenas.Get().(*arena)
	defer arenas.Put(a)
	defer a.reset()
	root := l.Root(url)
	out := &a.view
	l.link(&out.Overview, root, "Overview", "", url, "")
	for _, g := range v.Groups {
		open := v.Small || g.Holds(url)
		if !open && len(g.Children) > openGroup {
			// A large group the page is not in: its title alone.
			out.Groups = append(out.Groups, Group{Root: root, Title: g.Title, Href: l.Href(g.First()), Collapsed: true})
			continue
		}
		out.Groups = append(out.Groups, Group{Title: g.Title})
		l.children(a, &out.Groups[len(out.Groups)-1].List, g.Children, root, url, v.Small)
	}
	return write(out)
}

// arena holds the slices of one page's View.
type arena struct {
	view    View
	entries []Entry
}

var arenas = sync.Pool{New: func() any { return new(arena) }}

// take returns n zero entries from the arena.
func (a *arena) take(n int) []Entry {
	k := len(a.entries)
	if k+n > cap(a.entries) {
		a.entries, k = make([]Entry, 0, max(2*cap(a.entries), n, 64)), 0
	}
	a.entries = a.entries[:k+n]
	return a.entries[k : k+n : k+n]
}

func (a *arena) reset() {
	clear(a.entries)
	a.entries = a.entries[:0]
	clear(a.view.Groups)
	a.view = View{Groups: a.view.Groups[:0]}
}

// node fills e, one entry: a page or section on the current branch
// with its children, any other section collapsed to a link to its first
// page. (Filled in place: a page's navigation has a few hundred entries,
// and copying them was most of its cost.)
func (l Links) node(a *arena, e *Entry, n *Node, root, url string, all bool) {
	class := ""
	if n.Model {
		class = "nav-model"
	}
	switch {
	case len(n.Children) == 0:
		e.Leaf = true
		l.link(&e.Link, root, n.Title, n.URL, url, class)
	case !all && !n.Holds(url):
		// Collapsed: the section's title leads to its first page.
		l.link(&e.Link, root, n.Title, n.First(), url, class)
	default:
		e.Open = true
		if n.URL != "" {
			l.link(&e.Link, root, n.Title, n.URL, url, class)
		} else {
			if class == "" {
				class = "nav-section"
			}
			e.Span, e.Link.Class, e.Link.Title = true, class, n.Title
		}
		l.children(a, &e.Children, n.Children, root, url, all)
	}
}

// Window is how many entries of one list a page shows: a longer list
// (a thousand models under one objective) shows the window around the
// page's own entry and says how many it leaves to the overview, which
// lists every report and page.
const Window = 25

// children fills out with the entries of one list, at most Window of
// them.
func (l Links) children(a *arena, out *List, cs []*Node, root, url string, all bool) {
	lo, hi := 0, len(cs)
	if len(cs) > Window {
		at := 0
		for i, c := range cs {
			if c.Holds(url) {
				at = i
				break
			}
		}
		lo = max(0, min(at-Window/2, len(cs)-Window))
		hi = lo + Window
	}
	out.Before, out.After, out.Entries = lo, len(cs)-hi, a.take(hi-lo)
	if lo > 0 || hi < len(cs) {
		out.Root, out.More = root, l.Href("")
	}
	for i, c := range cs[lo:hi] {
		l.node(a, &out.Entries[i], c, root, url, all)
	}
}

// link fills k, a link to the page at target, marked current when it is
// the page at url.
func (l Links) link(k *Link, root, title, target, url, class string) {
	k.Root, k.Href, k.Class, k.Title, k.Current = root, l.Href(target), class, title, target == url
}

// Links makes a site's links: with the default base URL "/" every link
// is relative to its page and names index.html, so the site works at
// any path and from the disk; under another base URL links are absolute
// with pretty URLs.
type Links struct{ BaseURL string }

// Relative reports whether links are relative to their page (the default
// base URL) rather than absolute under a base URL.
func (l Links) Relative() bool { return l.BaseURL == "/" }

// Root is the prefix that leads from the page at url to the site's root:
// "../../" for qwen3-32b/h100/ in relative mode, the base URL otherwise.
func (l Links) Root(url string) string {
	if !l.Relative() {
		return l.BaseURL
	}
	return strings.Repeat("../", strings.Count(url, "/"))
}

// Href is how a page's URL is linked, relative to the root: a pretty
// directory URL under a base URL, an explicit index.html in relative mode
// (file:// does not serve a directory's index).
func (l Links) Href(url string) string {
	if l.Relative() && (url == "" || strings.HasSuffix(url, "/")) {
		return url + "index.html"
	}
	return url
}

// Report is a report as the navigation lists it.
type Report struct {
	Objective string // "throughput", "latency", ...
	Model     string
	Label     string // the leaf: GPU, with the count when more than one
	URL       string
}

// Page is a plain page (no report) as the navigation lists it.
type Page struct {
	Title  string
	URL    string
	Weight int
}

// Build makes the navigation: reports (in navigation order) grouped by
// objective, then model, then their label, as GPUStack's hand-written
// nav does, but generated; plain pages follow in a tree of their
// directories (in weight, then URL order), a directory without a page
// titled by dirTitle.
func Build(l Links, reports []Report, pages []Page, dirTitle func(seg string) string) Tree {
	v := Tree{HomeHref: l.Href("")}
	for _, r := range reports {
		g := "Optimizing " + strings.ToUpper(r.Objective[:1]) + r.Objective[1:]
		if len(v.Groups) == 0 || v.Groups[len(v.Groups)-1].Title != g {
			v.Groups = append(v.Groups, &Node{Title: g, Group: true})
		}
		grp := v.Groups[len(v.Groups)-1]
		if len(grp.Children) == 0 || grp.Children[len(grp.Children)-1].Title != r.Model {
			grp.Children = append(grp.Children, &Node{Title: r.Model, Model: true})
		}
		m := grp.Children[len(grp.Children)-1]
		m.Children = append(m.Children, &Node{Title: r.Label, URL: r.URL})
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
	plain := append([]Page(nil), pages...)
	sort.SliceStable(plain, func(i, j int) bool {
		if plain[i].Weight != plain[j].Weight {
			return plain[i].Weight < plain[j].Weight
		}
		return plain[i].URL < plain[j].URL
	})
	if len(plain) == 0 {
		v.Small = v.count() <= smallTree
		v.numberNodes()
		return v
	}
	top := &Node{Title: "Pages", Group: true}
	for _, p := range plain {
		v.Pages = append(v.Pages, Item{Title: p.Title, URL: p.URL, Href: l.Href(p.URL)})
		segs := strings.Split(strings.TrimSuffix(p.URL, "/"), "/")
		n := top
		for i, seg := range segs {
			var c *Node
			for _, o := range n.Children {
				if o.key == seg {
					c = o
					break
				}
			}
			if c == nil {
				c = &Node{key: seg, Title: dirTitle(seg)}
				n.Children = append(n.Children, c)
			}
			if i == len(segs)-1 {
				c.Title, c.URL = p.Title, p.URL
			}
			n = c
		}
	}
	v.Groups = append(v.Groups, top)
	v.Small = v.count() <= smallTree
	v.numberNodes()
	return v
}
