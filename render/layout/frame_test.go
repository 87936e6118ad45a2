package layout

import (
	"testing"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/nav"
)

// TestFrameDigest: every field of the Frame, the layout's one view of
// the site beyond its page, moves the digest that every page's layout
// key holds, the navigation's titles and URLs included.
func TestFrameDigest(t *testing.T) {
	tree := func(title string) *navView {
		v := nav.Build(nav.Links{BaseURL: "/"}, []nav.Report{{Objective: "throughput", Model: "m", Label: "H100", URL: "m/h100/"}},
			[]nav.Page{{Title: title, URL: "about/"}}, func(seg string) string { return seg })
		return &v
	}
	base := Frame{Links: nav.Links{BaseURL: "/"}, Content: "content", Nav: tree("About"), bufs: &blocks.Buffers{}}
	variants := map[string]Frame{}
	v := base
	v.Links.BaseURL = "/perflab/"
	variants["base URL"] = v
	v = base
	v.Content = "other"
	variants["content"] = v
	v = base
	v.LiveReload = true
	variants["live reload"] = v
	v = base
	v.Nav = tree("About us")
	variants["a page's title in the navigation"] = v
	d := base.Digest()
	again := Frame{Links: base.Links, Content: base.Content, Nav: tree("About")}
	if again.Digest() != d {
		t.Fatal("the same Frame gives another digest")
	}
	for what, f := range variants {
		if f := f; f.Digest() == d {
			t.Errorf("%s changed and the Frame's digest did not", what)
		}
	}
}
