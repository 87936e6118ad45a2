package render

import (
	"context"
	"fmt"
	"html/template"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/nav"
)

// navSite writes labs copies of a small lab (two models, two GPUs each,
// an about page) and loads it.
func navSite(t *testing.T, labs int, base string) *Site {
	t.Helper()
	dir := t.TempDir()
	for l := 0; l < labs; l++ {
		for _, m := range []string{"alpha", "beta"} {
			for _, g := range []string{"h100", "h200"} {
				writeFile(t, filepath.Join(dir, "content", fmt.Sprintf("lab-%02d", l), m, g+".md"), fmt.Sprintf("# %s on %s in lab %d\n\ntext\n", m, g, l))
			}
		}
	}
	writeFile(t, filepath.Join(dir, "content", "about.md"), "# About\n")
	s, err := Load(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var navLinkRE = regexp.MustCompile(`<a href="([^"]*)"[^>]*>([^<]*)</a>`)

func TestNavCurrentBranch(t *testing.T) {
	// labs are the links of collapsed labs from..to-1: their first page.
	labs := func(root string, from, to int) []string {
		var out []string
		for l := from; l < to; l++ {
			href := fmt.Sprintf("%slab-%02d/alpha/h100/", root, l)
			if !strings.HasPrefix(root, "/") {
				href += "index.html"
			}
			out = append(out, fmt.Sprintf("%s Lab %02d", href, l))
		}
		return out
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name, base, url string
		labs            int
		want            []string // links (href title) the page's navigation shows, in order
		current         string   // the link marked aria-current
	}{
		{"relative, inside a section", "/", "lab-01/beta/h200/", 8, cat([]string{
			"../../../index.html Overview",
			"../../../about/index.html About",
		}, labs("../../../", 0, 1), []string{
			"../../../lab-01/alpha/h100/index.html Alpha",
			"../../../lab-01/beta/h100/index.html beta on h100 in lab 1",
			"../../../lab-01/beta/h200/index.html beta on h200 in lab 1",
		}, labs("../../../", 2, 8)), "../../../lab-01/beta/h200/index.html"},
		{"base URL, the home page", "/perflab/", "", 8, cat([]string{
			"/perflab/ Overview",
			"/perflab/about/ About",
		}, labs("/perflab/", 0, 8)), "/perflab/"},
		{"a small site shows everything", "/", "about/", 1, []string{
			"../index.html Overview",
			"../about/index.html About",
			"../lab-00/alpha/h100/index.html alpha on h100 in lab 0",
			"../lab-00/alpha/h200/index.html alpha on h200 in lab 0",
			"../lab-00/beta/h100/index.html beta on h100 in lab 0",
			"../lab-00/beta/h200/index.html beta on h200 in lab 0",
		}, "../about/index.html"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := navSite(t, tc.labs, tc.base)
			v := s.Nav()
			h := string(s.navHTML(&v, tc.url))
			var got []string
			for _, m := range navLinkRE.FindAllStringSubmatch(h, -1) {
				got = append(got, m[1]+" "+m[2])
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("navigation links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if n := strings.Count(h, `aria-current="page"`); n != 1 || !strings.Contains(h, `<a href="`+tc.current+`" aria-current="page">`) {
				t.Errorf("%d links marked current, want %s alone:\n%s", n, tc.current, h)
			}
		})
	}
}

// TestNavSizeBounded: a page's navigation grows with the top level and
// its own branch, up to nav.Window entries a list, not with the number of
// pages: a 100-lab site's pages carry as many entries as a 30-lab one's.
func TestNavSizeBounded(t *testing.T) {
	entries := func(labs int) int {
		s := navSite(t, labs, "/")
		v := s.Nav()
		return strings.Count(string(s.navHTML(&v, "lab-01/beta/h200/")), "<li")
	}
	a, b, c := entries(8), entries(30), entries(100)
	if b-a > nav.Window || c != b {
		t.Errorf("navigation entries: %d with 8 labs, %d with 30, %d with 100; want at most %d more with 30 and none more with 100", a, b, c, nav.Window)
	}
}

// TestNavWindow: a list longer than nav.Window shows the window around the
// page's entry and counts the rest, which the overview lists.
func TestNavWindow(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 100; i++ {
		writeFile(t, filepath.Join(dir, "content", "many", fmt.Sprintf("p%03d.md", i)), fmt.Sprintf("# Page %d\n", i))
	}
	s, err := Load(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results")})
	if err != nil {
		t.Fatal(err)
	}
	v := s.Nav()
	for _, tc := range []struct {
		url         string
		first, last string
		more        []string
	}{
		{"many/p000/", "Page 0", "Page 24", []string{"… 75 more on the overview"}},
		{"many/p050/", "Page 38", "Page 62", []string{"… 38 more on the overview", "… 37 more on the overview"}},
		{"many/p099/", "Page 75", "Page 99", []string{"… 75 more on the overview"}},
	} {
		h := string(s.navHTML(&v, tc.url))
		var pages, more []string
		for _, m := range navLinkRE.FindAllStringSubmatch(h, -1) {
			switch {
			case strings.HasPrefix(m[2], "Page "):
				pages = append(pages, m[2])
			case strings.HasPrefix(m[2], "…"):
				more = append(more, m[2])
			}
		}
		if len(pages) != nav.Window || pages[0] != tc.first || pages[len(pages)-1] != tc.last || strings.Join(more, "|") != strings.Join(tc.more, "|") {
			t.Errorf("%s: %d pages %v … %v, more %q; want %d from %s to %s, more %q", tc.url, len(pages), pages[:1], pages[len(pages)-1:], more, nav.Window, tc.first, tc.last, tc.more)
		}
	}
}

// TestNavHoldsIndex: Holds answered from the tree's numbering is Holds
// answered by walking each subtree, for every node and every URL of a
// site with reports and nested pages (render/nav's own test covers a
// URL on two nodes and that Build numbers the tree).
func TestNavHoldsIndex(t *testing.T) {
	dir := t.TempDir()
	writeSyntheticSite(t, dir, 3)
	writeFile(t, filepath.Join(dir, "content", "about.md"), "# About\n")
	writeFile(t, filepath.Join(dir, "content", "guide", "index.md"), "# Guide\n")
	writeFile(t, filepath.Join(dir, "content", "guide", "deep", "page.md"), "# Deep\n")
	s, err := Load(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results")})
	if err != nil {
		t.Fatal(err)
	}
	v := s.Nav()
	walked := func(n *nav.Node, url string) bool {
		var walk func(n *nav.Node) bool
		walk = func(n *nav.Node) bool {
			if n.URL != "" && n.URL == url {
				return true
			}
			for _, c := range n.Children {
				if walk(c) {
					return true
				}
			}
			return false
		}
		return walk(n)
	}
	var nodes []*nav.Node
	var collect func(ns []*nav.Node)
	collect = func(ns []*nav.Node) {
		for _, n := range ns {
			nodes = append(nodes, n)
			collect(n.Children)
		}
	}
	collect(v.Groups)
	urls := []string{"", "nowhere/"}
	for _, p := range s.Pages {
		urls = append(urls, p.URL)
	}
	held := 0
	for _, n := range nodes {
		for _, u := range urls {
			if got, want := n.Holds(u), walked(n, u); got != want {
				t.Errorf("node %q holds %q = %v, walking it says %v", n.Title, u, got, want)
			} else if got {
				held++
			}
		}
	}
	if held < len(s.Pages) {
		t.Errorf("%d (node, page) pairs held for %d pages: the tree is not what the test means", held, len(s.Pages))
	}
}

// navHTML is the navigation as the page at url shows it, written by the
// embedded templates.
func (s *Site) navHTML(v *navView, url string) template.HTML {
	t, _, err := layout.ParseTemplates("")
	if err != nil {
		panic(err)
	}
	h, err := s.Frame(v).NavHTML(t, url)
	if err != nil {
		panic(err)
	}
	return h
}
