package render

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"strings"
	"testing"
)

// TestGeneratedLayout: for views with hostile text, every optional part
// present or absent, relative and absolute bases, the generated layout
// writer gives what html/template gives for the "layout" template, and
// Site.layout gives the template's bytes for views the writer hands back
// (URL values html/template would filter, normalise or escape; a
// live-reload script).
func TestGeneratedLayout(t *testing.T) {
	tm, _, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{"", "plain", `a<b>&"c'+d`, "nul\x00x", "ünïcødé — µs", "bad\xffutf8", "javascript:alert(1)", "0;url=javascript:alert(1)", "</title><script>x</script>", "{{.Title}}"}
	base := layoutView{SiteTitle: SiteTitle, Base: "../../", HomeHref: "index.html", URL: "a/b/",
		Body: template.HTML("<p>body</p>\n"), NavHTML: template.HTML(`<nav class="nav" id="nav"><a href="x">x</a></nav>`)}
	rep := reportMeta{Model: "m", Hardware: "h", Engine: "e", Objective: "o", DataJSON: "a/b/data.json", DataCSV: "a/b/data.csv", Campaign: "a/b/campaign.yaml"}
	var views []layoutView
	for i, s := range hostile {
		v := base
		v.Title, v.Description = s, hostile[(i+1)%len(hostile)]
		v.Home = i%2 == 0
		v.Charts = i%3 == 0
		if i%2 == 1 {
			r := rep
			r.Model, r.Hardware, r.Engine, r.Objective = s, hostile[(i+2)%len(hostile)], "", s
			if i%4 == 1 {
				r.Campaign = ""
			}
			v.Report = &r
		}
		if i%3 != 2 {
			v.TOC = []tocEntry{{2, "run-1.x_y~z", s}, {3, "b", "<em>&"}}
		}
		if i == 4 {
			v.Base, v.HomeHref = "/perflab/", ""
		}
		if i == 6 {
			v.Base, v.HomeHref = "", "index.html"
		}
		views = append(views, v)
	}
	for i, v := range views {
		compareGenerated(t, tm, "layout", v, fmt.Sprintf("view %d (title %q)", i, v.Title))
	}
	// URL values the template would change, and a live-reload page:
	// handed back by the generated writer, and Site.layout gives the
	// template's bytes (it sets Base, HomeHref and LiveReload from the
	// site's options).
	for _, mod := range []func(v *layoutView){
		func(v *layoutView) { v.LiveReload = true },
		func(v *layoutView) { v.Base = "https://example.com/lab/" },
		func(v *layoutView) { v.HomeHref = "javascript:alert(1)" },
		func(v *layoutView) { v.HomeHref = "a b/<x>" },
		func(v *layoutView) { v.Report = &reportMeta{DataJSON: "x?y=1&z", DataCSV: "d.csv"} },
		func(v *layoutView) {
			v.Report = &reportMeta{DataJSON: "d.json", DataCSV: "d.csv", Campaign: "é/campaign.yaml"}
		},
		func(v *layoutView) { v.TOC = []tocEntry{{2, "a/b", "t"}} },
		func(v *layoutView) { v.TOC = []tocEntry{{2, `x"y`, "t"}} },
	} {
		v := base
		v.Title = `a<b>&"c`
		mod(&v)
		if ok, err := writeGenerated(new(bytes.Buffer), "layout", v); !ok || !errors.Is(err, errFallback) {
			t.Errorf("the generated writer wrote %+v (%v, %v)", v, ok, err)
		}
		for _, opt := range []Options{{BaseURL: "/"}, {BaseURL: "/a b/"}, {BaseURL: "/", LiveReload: true}} {
			s := &Site{opt: opt}
			got, err := s.layout(tm, v)
			if err != nil {
				t.Fatal(err)
			}
			w := v
			w.Base, w.HomeHref, w.SiteTitle, w.LiveReload = s.root(v.URL), s.pageHref(""), SiteTitle, opt.LiveReload
			w.ReloadURL = w.Base + ReloadPath
			var want bytes.Buffer
			if err := tm.ExecuteTemplate(&want, "layout", w); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("Site.layout differs from the template for %+v with %+v:\n got %q\nwant %q", v, opt, got, want.Bytes())
			}
		}
	}
	if !strings.Contains(views[2].Title, "<") {
		t.Fatal("the views are not hostile")
	}
}
