package render

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	tests := []struct {
		name, base, url string
		want            []string // links (href title) the page's navigation shows, in order
		current         string   // the link marked aria-current
	}{
		{"relative, inside a section", "/", "lab-01/beta/h200/", []string{
			"../../../index.html Overview",
			"../../../about/index.html About",
			"../../../lab-00/alpha/h100/index.html Lab 00",
			"../../../lab-01/alpha/h100/index.html Alpha",
			"../../../lab-01/beta/h100/index.html beta on h100 in lab 1",
			"../../../lab-01/beta/h200/index.html beta on h200 in lab 1",
			"../../../lab-02/alpha/h100/index.html Lab 02",
		}, "../../../lab-01/beta/h200/index.html"},
		{"base URL, the home page", "/perflab/", "", []string{
			"/perflab/ Overview",
			"/perflab/about/ About",
			"/perflab/lab-00/alpha/h100/ Lab 00",
			"/perflab/lab-01/alpha/h100/ Lab 01",
			"/perflab/lab-02/alpha/h100/ Lab 02",
		}, "/perflab/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := navSite(t, 3, tc.base)
			v := s.nav()
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
// its own branch, not with the number of pages: 30 labs add 27
// collapsed entries to a 3-lab site's, not 30 × 4 pages.
func TestNavSizeBounded(t *testing.T) {
	small, large := navSite(t, 3, "/"), navSite(t, 30, "/")
	vs, vl := small.nav(), large.nav()
	a := strings.Count(string(small.navHTML(&vs, "lab-01/beta/h200/")), "<li")
	b := strings.Count(string(large.navHTML(&vl, "lab-01/beta/h200/")), "<li")
	if b-a != 27 {
		t.Errorf("navigation entries: %d in a 3-lab site, %d in a 30-lab one; want 27 more (one per added lab)", a, b)
	}
}
