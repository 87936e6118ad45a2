package render

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/render/analysis"
)

// chromium finds a headless Chromium (.ci/install-30-chromium.sh installs
// Debian's chromium-headless-shell).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	status, _ := os.ReadFile(filepath.Join(repoRoot(t), ".cache", "deps-status"))
	t.Skipf("SKIP: no headless Chromium on PATH (install with .ci/install-30-chromium.sh or `make deps`); deps status: %q", strings.TrimSpace(string(status)))
	return ""
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// probeHead records script errors and console.error calls before any page
// script runs; probeTail runs after site.js: it clicks the first closed
// <details>' summary and writes what it saw into attributes of <html>,
// which --dump-dom then shows.
const probeHead = `<script>window.__errs=[];window.addEventListener("error",function(e){__errs.push("error: "+(e.message||e.target&&e.target.src||"resource"))},true);` +
	`(function(){var o=console.error;console.error=function(){__errs.push("console.error: "+Array.prototype.join.call(arguments," "));o.apply(console,arguments)}})();</script>`

const probeTail = `<script>(function(){var h=document.documentElement;` +
	// Search: type a word into the box; the results are read 1 s later.
	`var q=document.getElementById("search");if(q){q.value=h.getAttribute("data-probe-query")||"qwen";q.dispatchEvent(new Event("input"))}` +
	// Sort: click the first numeric header of a table with 2+ rows, twice
	// (descending, then ascending) and check the order of data-sort.
	`var sorted="none";var th=Array.prototype.find.call(document.querySelectorAll("table.sortable th[data-sort-type=number]"),function(t){return t.closest("table").tBodies[0].rows.length>1});` +
	`if(th){var col=Array.prototype.indexOf.call(th.parentNode.cells,th);th.click();var tb=th.closest("table").tBodies[0];` +
	`var vals=function(){return Array.prototype.map.call(tb.rows,function(r){var v=parseFloat(r.cells[col].getAttribute("data-sort"));return isNaN(v)?-Infinity:v})};` +
	`var d=vals();th.click();var a=vals();var ok=true;for(var i=1;i<d.length;i++){if(d[i]>d[i-1]||a[i]<a[i-1])ok=false}sorted=String(ok)}` +
	`setTimeout(function(){` +
	`var charts=document.querySelectorAll(".chart");var drawn=0;charts.forEach(function(c){if(c.getAttribute("_echarts_instance_")&&c.querySelector("canvas"))drawn++});` +
	`var res=document.getElementById("search-results");` +
	`h.setAttribute("data-probe-search",res&&!res.hidden?String(res.querySelectorAll("a").length):"0");` +
	// Last, since a click outside the search box closes its results.
	`var d=document.querySelector("details:not([open])");var opened="none";if(d){d.querySelector("summary").click();opened=String(d.open)}` +
	`h.setAttribute("data-probe-details",opened);h.setAttribute("data-probe-charts",charts.length+"/"+drawn);` +
	`h.setAttribute("data-probe-instances",window.perflabCharts?String(perflabCharts().length):"none");` +
	`h.setAttribute("data-probe-sorted",sorted);` +
	`h.setAttribute("data-probe-errors",JSON.stringify(window.__errs));h.setAttribute("data-probe-done","1")},1000)})();</script>`

// probeServer serves dir on 127.0.0.1, injecting the probes into HTML
// pages when asked (?probe=1), and records every 404.
type probeServer struct {
	*httptest.Server
	mu       sync.Mutex
	notFound []string
}

func newProbeServer(dir string) *probeServer {
	ps := &probeServer{}
	files := http.FileServer(http.Dir(dir))
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(dir, filepath.FromSlash(r.URL.Path))
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, "index.html")
		}
		if _, err := os.Stat(p); err != nil {
			ps.mu.Lock()
			ps.notFound = append(ps.notFound, r.URL.Path)
			ps.mu.Unlock()
		}
		if r.URL.Query().Get("probe") == "1" && strings.HasSuffix(p, ".html") {
			b, err := os.ReadFile(p)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			s := strings.Replace(string(b), "<head>", "<head>"+probeHead, 1)
			s = strings.Replace(s, "</body>", probeTail+"</body>", 1)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, s)
			return
		}
		files.ServeHTTP(w, r)
	}))
	return ps
}

// chromeFlags are the machine notes' flags for a quiet, offline headless run.
func chromeFlags(userData string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + userData}
}

func runChrome(t *testing.T, bin string, args ...string) ([]byte, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// /usr/bin/chromium* are wrapper scripts: run them in their own process
	// group and end the whole group on timeout, so no Chromium is orphaned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return stdout.Bytes(), stderr.Bytes()
}

var attrRE = regexp.MustCompile(`data-probe-([a-z]+)="([^"]*)"`)

// TestBrowser loads built pages in headless Chromium over a 127.0.0.1
// server: no script errors, every chart drawn by ECharts (an instance with
// a canvas), a <details> opens on click, no missing resource. Screenshots
// of each report page (desktop, and one phone-sized) are kept in
// .cache/artifacts/screenshots/ as test artifacts.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	root := repoRoot(t)
	art := filepath.Join(root, ".cache", "artifacts", "screenshots")
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	type site struct{ name, content, results string }
	sites := []site{{"fixture", fixtureSite + "/content", fixtureSite + "/results"}}
	// The bundled content (the seed reports) when the repository has it.
	if _, err := os.Stat(filepath.Join(root, "content")); err == nil {
		sites = append(sites, site{"bundled", filepath.Join(root, "content"), filepath.Join(root, "results")})
	}
	for _, s := range sites {
		t.Run(s.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			loaded, err := Load(context.Background(), Options{Content: s.content, Results: s.results})
			if err != nil {
				t.Fatal(err)
			}
			if err := Build(context.Background(), Options{Content: s.content, Results: s.results, Out: out}); err != nil {
				t.Fatal(err)
			}
			srv := newProbeServer(out)
			defer srv.Close()
			urls := []string{""}
			for _, r := range loaded.Reports {
				urls = append(urls, r.Page.URL)
			}
			userData := t.TempDir()
			for i, u := range urls {
				name := s.name + "-" + strings.Trim(strings.ReplaceAll(u, "/", "_"), "_")
				if u == "" {
					name = s.name + "-home"
				}
				dom, _ := runChrome(t, bin, append(chromeFlags(userData), "--virtual-time-budget=5000", "--dump-dom", srv.URL+"/"+u+"?probe=1")...)
				got := map[string]string{}
				for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
					got[m[1]] = strings.ReplaceAll(m[2], "&quot;", `"`)
				}
				if got["done"] != "1" {
					t.Fatalf("%s: the probe did not run; DOM starts %.300s", name, dom)
				}
				if got["errors"] != "[]" {
					t.Errorf("%s: script errors: %s", name, got["errors"])
				}
				if got["search"] == "0" {
					t.Errorf("%s: searching for \"qwen\" listed no page", name)
				}
				if got["sorted"] == "false" {
					t.Errorf("%s: clicking a numeric column header did not sort the rows", name)
				}
				if u != "" {
					if got["details"] != "true" {
						t.Errorf("%s: clicking a closed <details> summary left it %s", name, got["details"])
					}
					n, drawn, _ := strings.Cut(got["charts"], "/")
					if n == "0" || n != drawn || got["instances"] != n {
						t.Errorf("%s: charts %s drawn (with canvas), %s ECharts instances", name, got["charts"], got["instances"])
					}
				}
				shot := filepath.Join(art, name+".png")
				runChrome(t, bin, append(chromeFlags(userData), "--window-size=1280,4200", "--virtual-time-budget=5000", "--screenshot="+shot, srv.URL+"/"+u)...)
				if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
					t.Errorf("%s: screenshot missing or blank: %v", name, err)
				}
				if i == 1 {
					// The same page opened from the disk (file://), as README's
					// "open site/index.html" does: relative links, charts and
					// search must work without a server.
					b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(u), "index.html"))
					if err != nil {
						t.Fatal(err)
					}
					probe := strings.Replace(string(b), "<head>", "<head>"+probeHead, 1)
					probe = strings.Replace(probe, "</body>", probeTail+"</body>", 1)
					pf := filepath.Join(out, filepath.FromSlash(u), "probe-file.html")
					if err := os.WriteFile(pf, []byte(probe), 0o644); err != nil {
						t.Fatal(err)
					}
					fdom, _ := runChrome(t, bin, append(chromeFlags(userData), "--virtual-time-budget=5000", "--dump-dom", "file://"+pf)...)
					fgot := map[string]string{}
					for _, m := range attrRE.FindAllStringSubmatch(string(fdom), -1) {
						fgot[m[1]] = strings.ReplaceAll(m[2], "&quot;", `"`)
					}
					n, drawn, _ := strings.Cut(fgot["charts"], "/")
					if fgot["done"] != "1" || fgot["errors"] != "[]" || n == "0" || n != drawn || fgot["search"] == "0" {
						t.Errorf("%s from file://: probe %v (want no errors, every chart drawn, search results)", name, fgot)
					}
					os.Remove(pf)
					phone := filepath.Join(art, name+"-phone.png")
					runChrome(t, bin, append(chromeFlags(userData), "--window-size=390,1600", "--virtual-time-budget=5000", "--screenshot="+phone, srv.URL+"/"+u)...)
					// prefers-color-scheme: dark picks the dark theme.
					dark := filepath.Join(art, name+"-dark.png")
					runChrome(t, bin, append(chromeFlags(t.TempDir()), "--blink-settings=preferredColorScheme=0", "--window-size=1280,1400", "--virtual-time-budget=5000", "--screenshot="+dark, srv.URL+"/"+u)...)
				}
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for _, p := range srv.notFound {
				if !strings.HasSuffix(p, "/favicon.ico") {
					t.Errorf("the pages requested %s, which the build did not write", p)
				}
			}
			t.Logf("screenshots in %s", art)
		})
	}
}

// TestBrowserPhoneChartLabels: on a phone-wide screen every benchmark
// case under a chart keeps its name, wrapped to its group's width (with
// ECharts' hideOverlap, the 235B page's chart at 390 px named only three
// of its five bar groups).
func TestBrowserPhoneChartLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	out := filepath.Join(t.TempDir(), "site")
	opt := Options{Content: fixtureSite + "/content", Results: fixtureSite + "/results", Out: out}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, "demo/h100/index.html")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// The probe records the first chart's width and its x axis labels'
	// settings as ECharts holds them after the page script ran.
	probe := `<script>setTimeout(function(){var h=document.documentElement,c=window.perflabCharts&&perflabCharts()[0];` +
		`if(c){var l=c.getOption().xAxis[0].axisLabel;h.setAttribute("data-probe-width",String(c.getWidth()));` +
		`h.setAttribute("data-probe-hide",String(l.hideOverlap));h.setAttribute("data-probe-overflow",String(l.overflow));` +
		`h.setAttribute("data-probe-labelwidth",String(l.width))}h.setAttribute("data-probe-done","1")},500)</script>`
	if err := os.WriteFile(page, []byte(strings.Replace(string(b), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newProbeServer(out)
	defer srv.Close()
	dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size=390,1600", "--virtual-time-budget=5000", "--dump-dom", srv.URL+"/demo/h100/")...)
	got := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
		got[m[1]] = m[2]
	}
	if got["done"] != "1" || got["width"] == "" {
		t.Fatalf("probe did not run or found no chart: %v", got)
	}
	if got["hide"] != "false" || got["overflow"] != "break" {
		t.Errorf("phone-wide chart: axis labels hideOverlap=%s overflow=%s, want every label kept and wrapped", got["hide"], got["overflow"])
	}
	// Two categories (ShareGPT, Long Prompt) share the chart's width.
	w, lw := 0, 0
	fmt.Sscan(got["width"], &w)
	fmt.Sscan(got["labelwidth"], &lw)
	if lw <= 0 || lw > w/2 {
		t.Errorf("label width %d for a %d px chart of 2 groups, want at most half", lw, w)
	}
}

// TestBrowserPhoneHome: on a phone-wide screen the home page's reports
// table shows each report's gain and best throughput without scrolling
// sideways (they were the sixth and seventh of seven columns, off screen).
func TestBrowserPhoneHome(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	root := repoRoot(t)
	// The fixture's home and the bundled site's (its headers and longest
	// words are what a phone must fit: "Recommended:" once did not).
	for _, site := range []struct{ name, content, results string }{
		{"fixture", fixtureSite + "/content", fixtureSite + "/results"},
		{"bundled", filepath.Join(root, "content"), filepath.Join(root, "results")},
	} {
		t.Run(site.name, func(t *testing.T) { phoneHome(t, bin, site.content, site.results) })
	}
}

func phoneHome(t *testing.T, bin, content, results string) {
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(out, "index.html")
	b, err := os.ReadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	probe := `<script>setTimeout(function(){var h=document.documentElement,th=document.querySelectorAll("table.reports thead th");` +
		`var last=th[th.length-1].getBoundingClientRect();h.setAttribute("data-probe-right",String(Math.round(last.right)));` +
		`h.setAttribute("data-probe-vw",String(window.innerWidth));var wr=th[0].closest(".table-wrap").getBoundingClientRect();` +
		`h.setAttribute("data-probe-wrap",String(Math.round(wr.right)));h.setAttribute("data-probe-done","1")},300)</script>`
	if err := os.WriteFile(home, []byte(strings.Replace(string(b), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newProbeServer(out)
	defer srv.Close()
	dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size=390,1200", "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/")...)
	got := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
		got[m[1]] = m[2]
	}
	var right, vw, wrap int
	fmt.Sscan(got["right"], &right)
	fmt.Sscan(got["vw"], &vw)
	fmt.Sscan(got["wrap"], &wrap)
	if got["done"] != "1" || vw == 0 || wrap == 0 {
		t.Fatalf("probe did not run: %v", got)
	}
	// Past its scrolling wrapper's right edge (the page's padding) the
	// column is cut, not only past the screen's.
	if right > wrap || right > vw {
		t.Errorf("the reports table's last column ends at %d px, its wrapper at %d px, on a %d px screen", right, wrap, vw)
	}
}

// curveProbe runs after site.js on the sweep demo page: it reads the
// ECharts instance of the curve chart and reports whether its Pareto
// frontier series is drawn (in the option, with points, selected in the
// legend) and how many experiment lines have points.
const curveProbe = `<script>setTimeout(function(){var h=document.documentElement;var out="none";` +
	`var el=document.querySelector(".chart[id^=chart-curve]");var inst=el&&echarts.getInstanceByDom(el);` +
	`if(inst){var o=inst.getOption();var f=o.series.filter(function(s){return s.name==="Pareto frontier"})[0];` +
	`var lines=o.series.filter(function(s){return s.name!=="Pareto frontier"&&s.data.length>0}).length;` +
	`var sel=o.legend[0].selected||{};out=JSON.stringify({frontier:f?f.data.length:0,shown:f?sel["Pareto frontier"]!==false:false,lines:lines,canvas:!!el.querySelector("canvas")})}` +
	`h.setAttribute("data-probe-curve",out)},1200)</script>`

// TestBrowserCurve: the bundled sweep demo's curve page in headless
// Chromium: the curve chart is drawn, its frontier series has points and
// is shown, one line per configuration, no script errors.
func TestBrowserCurve(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "site")
	opt := Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: out}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, "demo", "mock-sweep", "index.html")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := strings.Replace(string(b), "<head>", "<head>"+probeHead, 1)
	probe = strings.Replace(probe, "</body>", probeTail+curveProbe+"</body>", 1)
	if err := os.WriteFile(page, []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newProbeServer(out)
	defer srv.Close()
	dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--virtual-time-budget=5000", "--dump-dom", srv.URL+"/demo/mock-sweep/")...)
	got := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
		got[m[1]] = strings.ReplaceAll(m[2], "&quot;", `"`)
	}
	if got["done"] != "1" {
		t.Fatalf("the probe did not run; DOM starts %.300s", dom)
	}
	if got["errors"] != "[]" {
		t.Errorf("script errors: %s", got["errors"])
	}
	n, drawn, _ := strings.Cut(got["charts"], "/")
	if n == "0" || n != drawn {
		t.Errorf("charts %s drawn", got["charts"])
	}
	// The frontier the page should draw, computed from the same results.
	site, err := Load(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var curves []analysis.Curve
	for _, r := range site.Reports {
		if r.Campaign.ID == "demo-mock-sweep" {
			for _, e := range r.Campaign.Steps[0].Experiments {
				curves = append(curves, analysis.CurveOf(r.AllRuns(), e.ID, "chat"))
			}
		}
	}
	fr := analysis.Frontier(curves, false)
	holders := map[int]bool{}
	for _, p := range fr {
		holders[p.Curve] = true
	}
	if len(holders) != 2 {
		t.Fatalf("frontier %+v: the demo's curves should cross (each configuration holds part of it)", fr)
	}
	front := len(fr)
	if want := fmt.Sprintf(`{"frontier":%d,"shown":true,"lines":2,"canvas":true}`, front); got["curve"] != want {
		t.Errorf("curve chart: %s, want %s", got["curve"], want)
	}
}
