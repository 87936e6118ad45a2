package render

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/charts"
)

// chartsProbe runs after site.js and writes, for every chart on the page,
// what ECharts holds after setOption (getOption: the option as ECharts
// merged it): each series' name, type, axes, points and limit lines (and,
// where it has them, its encode and pins), each axis' type, name, scale
// and categories, the panel titles, the dataset's rows where there is
// one (the history chart); and, apart,
// the reader's tools (toolbox features, dataZoom) each chart has.
const chartsProbe = `<script>setTimeout(function(){var h=document.documentElement;var out=[],tools=[];` +
	`document.querySelectorAll(".chart").forEach(function(el){var inst=echarts.getInstanceByDom(el);if(!inst){out.push({id:el.id,missing:true});return}` +
	`var o=inst.getOption();var val=function(d){return d!==null&&typeof d==="object"&&"value" in d?d.value:d};` +
	`var ax=function(a){return {type:a.type,name:a.name||"",gridIndex:a.gridIndex||0,data:a.data||null,logBase:a.type==="log"?a.logBase:null,scale:!!a.scale}};` +
	`out.push({id:el.id,titles:(o.title||[]).map(function(t){return t.text||""}).filter(function(t){return t}),grids:(o.grid||[]).length,` +
	`xAxis:(o.xAxis||[]).map(ax),yAxis:(o.yAxis||[]).map(ax),` +
	`series:(o.series||[]).map(function(s){return {name:s.name,type:s.type,x:s.xAxisIndex||0,y:s.yAxisIndex||0,step:s.step||false,` +
	`data:(s.data||[]).map(function(d){var v=val(d);if(d===null||typeof d!=="object")return v;var a=[v];if(d.name)a.push(d.name);if(d.label&&d.label.formatter)a.push("label: "+d.label.formatter);return a.length>1?a:v}),` +
	`limits:s.markLine&&s.markLine.data?s.markLine.data.map(function(m){return [m.name,m.yAxis]}):[],` +
	`encode:s.encode,pins:s.markPoint&&s.markPoint.data&&s.markPoint.data.length?s.markPoint.data.map(function(m){return [m.coord,m.value]}):undefined}}),` +
	`dataset:(o.dataset||[]).length?o.dataset[0].source:undefined});` +
	`var tb=(o.toolbox||[])[0]||{};tools.push({id:el.id,toolbox:Object.keys(tb.feature||{}).filter(function(k){return tb.feature[k]&&tb.feature[k].show!==false}).sort(),` +
	`dataZoom:(o.dataZoom||[]).map(function(z){return z.type+":"+(z.xAxisIndex||[]).join(",")}).sort()})});` +
	`h.setAttribute("data-probe-chartopts",JSON.stringify(out));h.setAttribute("data-probe-charttools",JSON.stringify(tools));h.setAttribute("data-probe-chartsdone","1")},1500)</script>`

// TestBrowserChartOptions: every chart of the fixture and bundled sites,
// as ECharts holds it in headless Chromium, has the series, points, limit
// lines and axes recorded in testdata/browser-charts.json (-update
// rewrites it), with no script errors; and each offers the reader's
// tools: save as image and data view, and a dataZoom over x where a
// sweep has many points.
func TestBrowserChartOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	root := repoRoot(t)
	type site struct{ name, content, results string }
	sites := []site{{"fixture", fixtureSite + "/content", fixtureSite + "/results"}, {"bundled", filepath.Join(root, "content"), filepath.Join(root, "results")}}
	got := map[string]json.RawMessage{}
	tools := map[string][]chartTools{}
	for _, s := range sites {
		out := filepath.Join(t.TempDir(), "site")
		loaded, err := Load(context.Background(), Options{Content: s.content, Results: s.results})
		if err != nil {
			t.Fatal(err)
		}
		if err := Build(context.Background(), Options{Content: s.content, Results: s.results, Out: out, NoCache: true}); err != nil {
			t.Fatal(err)
		}
		srv := newProbeServer(out)
		urls := []string{}
		for _, r := range loaded.Reports {
			urls = append(urls, r.Page.URL)
		}
		if s.name == "bundled" {
			urls = append(urls, zoomPage(t, out))
		}
		for _, u := range urls {
			page := filepath.Join(out, filepath.FromSlash(u), "index.html")
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`class="chart"`)) {
				continue
			}
			p := strings.Replace(string(b), "<head>", "<head>"+probeHead, 1)
			p = strings.Replace(p, "</body>", chartsProbe+"</body>", 1)
			if err := os.WriteFile(page, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size=1280,1400", "--virtual-time-budget=5000", "--dump-dom", srv.URL+"/"+u)...)
			attrs := map[string]string{}
			for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
				attrs[m[1]] = strings.ReplaceAll(strings.ReplaceAll(m[2], "&quot;", `"`), "&amp;", "&")
			}
			key := s.name + ":" + u
			if attrs["chartsdone"] != "1" {
				t.Fatalf("%s: the probe did not run; DOM starts %.300s", key, dom)
			}
			if attrs["errors"] != "" && attrs["errors"] != "[]" {
				t.Errorf("%s: script errors: %s", key, attrs["errors"])
			}
			got[key] = json.RawMessage(attrs["chartopts"])
			var ts []chartTools
			if err := json.Unmarshal([]byte(attrs["charttools"]), &ts); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			tools[key] = ts
		}
		srv.Close()
	}
	checkChartTools(t, got, tools)
	// The long sweep zoomed (checkChartTools) and drew without errors; it
	// is not one of the sites' pages.
	if zt := tools["bundled:demo/zoom/"]; len(zt) != 3 || zt[2].ID != "chart-zoom-1" || strings.Join(zt[2].DataZoom, " ") != "inside:0,1 slider:0,1" {
		t.Errorf("the long sweep's chart: %+v, want an inside and a slider dataZoom", tools["bundled:demo/zoom/"])
	}
	delete(got, "bundled:demo/zoom/")
	enc, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	enc = append(enc, '\n')
	golden := filepath.Join("testdata", "browser-charts.json")
	if *update {
		if err := os.WriteFile(golden, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, want) {
		// Compare page by page for a readable failure.
		var w map[string]json.RawMessage
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		for k, g := range got {
			var a, b bytes.Buffer
			json.Indent(&a, g, "", " ")
			json.Indent(&b, w[k], "", " ")
			if a.String() != b.String() {
				t.Errorf("%s: charts differ from %s:\n got %s\nwant %s", k, golden, a.String(), b.String())
			}
		}
		if len(got) != len(w) {
			t.Errorf("%d pages with charts, %s has %d", len(got), golden, len(w))
		}
	}
}

type chartTools struct {
	ID       string   `json:"id"`
	Toolbox  []string `json:"toolbox"`
	DataZoom []string `json:"dataZoom"`
}

// checkChartTools: every chart offers save as image and data view; a
// chart zooms over x exactly when one of its lines (not the frontier)
// has zoomPoints points or more.
func checkChartTools(t *testing.T, options map[string]json.RawMessage, tools map[string][]chartTools) {
	t.Helper()
	for page, ts := range tools {
		var cs []struct {
			ID     string `json:"id"`
			Series []struct {
				Name string `json:"name"`
				Type string `json:"type"`
				Data []any  `json:"data"`
			} `json:"series"`
		}
		if err := json.Unmarshal(options[page], &cs); err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if len(cs) != len(ts) {
			t.Fatalf("%s: %d charts, %d toolboxes", page, len(cs), len(ts))
		}
		for i, c := range cs {
			tl := ts[i]
			if strings.Join(tl.Toolbox, ",") != "dataView,saveAsImage" {
				t.Errorf("%s %s: toolbox %v, want dataView and saveAsImage", page, c.ID, tl.Toolbox)
			}
			many := false
			for _, s := range c.Series {
				many = many || s.Type == "line" && s.Name != "Pareto frontier" && len(s.Data) >= 8
			}
			if zoom := len(tl.DataZoom) > 0; zoom != many {
				t.Errorf("%s %s: dataZoom %v with a line of 8 or more points: %v", page, c.ID, tl.DataZoom, many)
			}
		}
	}
}

// zoomPage writes, beside the bundled site's sweep page, a copy with a
// chart of two panels whose lines have 12 points each (a long sweep).
func zoomPage(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "demo", "mock-sweep", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var panels []charts.XYPanel
	for _, name := range []string{"TTFT (ms)", "TPOT (ms)"} {
		p := charts.XYPanel{Title: name, XName: "Max concurrency", YName: name, XLog: true, Limits: []charts.Limit{{Label: "SLO", Y: 40}}}
		for _, e := range []string{"a", "b"} {
			s := charts.XYSeries{Name: e}
			for i := 0; i < 12; i++ {
				s.Points = append(s.Points, charts.XYPoint{X: float64(int(1) << i), Y: float64(10 + 3*i), Tip: []string{e}})
			}
			p.Series = append(p.Series, s)
		}
		panels = append(panels, p)
	}
	var fig bytes.Buffer
	c := &blocks.Ctx{}
	if err := c.ChartHTML(&fig, charts.Lines("chart-zoom-1", panels), "A long sweep", "12 points a line"); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(b), "</article>", fig.String()+"</article>", 1)
	dir := filepath.Join(out, "demo", "zoom")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return "demo/zoom/"
}
