package layout

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/bytediff"
	"github.com/perflab/perflab/render/blocks"
)

// TestGeneratedLayout: for views with hostile text, every optional part
// present or absent, relative and absolute bases, the generated layout
// writer gives what html/template gives for the "layout" template, and
// Site.layout gives the template's bytes for views the writer hands back
// (URL values html/template would filter, normalise or escape; a
// live-reload script).
func TestGeneratedLayout(t *testing.T) {
	tm, _, err := ParseTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{"", "plain", `a<b>&"c'+d`, "nul\x00x", "ünïcødé — µs", "bad\xffutf8", "javascript:alert(1)", "0;url=javascript:alert(1)", "</title><script>x</script>", "{{.Title}}"}
	base := layoutView{SiteTitle: SiteTitle, Base: "../../", HomeHref: "index.html", URL: "a/b/",
		Body: template.HTML("<p>body</p>\n"), NavHTML: template.HTML(`<nav class="nav" id="nav"><a href="x">x</a></nav>`)}
	rep := blocks.ReportMeta{Model: "m", Hardware: "h", Engine: "e", Objective: "o", DataJSON: "a/b/data.json", DataCSV: "a/b/data.csv", Campaign: "a/b/campaign.yaml"}
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
		func(v *layoutView) { v.Report = &blocks.ReportMeta{DataJSON: "x?y=1&z", DataCSV: "d.csv"} },
		func(v *layoutView) {
			v.Report = &blocks.ReportMeta{DataJSON: "d.json", DataCSV: "d.csv", Campaign: "é/campaign.yaml"}
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
			w.Base, w.HomeHref, w.SiteTitle, w.LiveReload = s.root(v.URL), s.PageHref(""), SiteTitle, opt.LiveReload
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

// writeGenerated runs render's generated writer of name for data
// (render/blocks' WriteGenerated); errFallback is the error it hands a
// template back with.
func writeGenerated(w *bytes.Buffer, name string, data any) (bool, error) {
	return blocks.WriteGenerated(w, name, data, execGenerated)
}

var errFallback = blocks.TemplateFallback()

// compareGenerated requires the generated writer of template name to
// write for v what html/template writes (not to hand it back).
func compareGenerated(t *testing.T, tm *template.Template, name string, v any, what string) {
	t.Helper()
	if tm.Lookup(builtinMarker) == nil {
		t.Fatal("the embedded templates lack the marker: the generated writers would not be used (run go generate ./render)")
	}
	var want, got bytes.Buffer
	if err := tm.ExecuteTemplate(&want, name, v); err != nil {
		t.Fatalf("%s %s: html/template: %v", name, what, err)
	}
	ok, err := writeGenerated(&got, name, v)
	if !ok {
		t.Fatalf("%s %s: no generated writer for %T", name, what, v)
	}
	if errors.Is(err, errFallback) {
		t.Fatalf("%s %s: the generated writer handed the template back to html/template", name, what)
	}
	if err != nil {
		t.Fatalf("%s %s: generated writer: %v", name, what, err)
	}
	if d := bytediff.At(got.String(), want.String(), 60); d != "" {
		t.Errorf("%s %s differs from html/template's %s", name, what, d)
	}
}
