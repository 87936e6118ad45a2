package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layoutProbe measures, after layout: Copy buttons over code text
// (overlap), tables of values cut by their scrolling wrapper (cut), and
// result file names broken inside a part (broken).
const layoutProbe = `<script>setTimeout(function(){var h=document.documentElement,overlap=0,cut=[],broken=0;` +
	`document.querySelectorAll(".highlight").forEach(function(hl){var b=hl.querySelector(".copy"),c=hl.querySelector("pre code");if(!b||!c||!b.offsetParent)return;` +
	`var br=b.getBoundingClientRect(),r=document.createRange();r.selectNodeContents(c);Array.prototype.forEach.call(r.getClientRects(),function(q){` +
	`if(q.width>0&&q.left<br.right&&q.right>br.left&&q.top<br.bottom&&q.bottom>br.top)overlap++})});` +
	`document.querySelectorAll("table.comparison, table.step, table.slo").forEach(function(t){var w=t.closest(".table-wrap");if(w&&w.scrollWidth>w.clientWidth+1)cut.push(t.className+":"+w.scrollWidth+">"+w.clientWidth)});` +
	`document.querySelectorAll("table.runs code .nw").forEach(function(s){if(s.getClientRects().length>1)broken++});` +
	`h.setAttribute("data-probe-overlap",String(overlap));h.setAttribute("data-probe-cut",cut.join(" "));h.setAttribute("data-probe-broken",String(broken));` +
	`h.setAttribute("data-probe-done","1")},300)</script>`

// TestBrowserLayoutNewcomer: at 1,400 px the Copy button covered the
// end of "How this page was made"'s command, a comparison cell with a
// "too few runs to test (≥4 each)" note was cut by the table's scrolling
// wrapper, and the All Runs table broke file names inside a part
// ("small-" / "batch"); at 390 px the names still break only between
// parts.
func TestBrowserLayoutNewcomer(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	root := repoRoot(t)
	bundled := filepath.Join(t.TempDir(), "bundled")
	if err := Build(context.Background(), Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: bundled}); err != nil {
		t.Fatal(err)
	}
	content, results := sweepSite(t, 3, 0.02, "")
	few := filepath.Join(t.TempDir(), "few")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: few}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out, page string
		width     string
	}{
		{bundled, "demo/mock-sweep/index.html", "1400"},
		{few, "sw/index.html", "1400"},
		{few, "sw/index.html", "390"},
	} {
		p := filepath.Join(tc.out, tc.page)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), "</body>", layoutProbe+"</body>", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := newProbeServer(tc.out)
		dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size="+tc.width+",1400", "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/"+tc.page)...)
		srv.Close()
		got := map[string]string{}
		for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
			got[m[1]] = m[2]
		}
		if got["done"] != "1" {
			t.Fatalf("%s at %s px: probe did not run", tc.page, tc.width)
		}
		if got["overlap"] != "0" {
			t.Errorf("%s at %s px: the Copy button covers %s line(s) of code", tc.page, tc.width, got["overlap"])
		}
		if tc.width == "1400" && got["cut"] != "" {
			t.Errorf("%s at %s px: tables wider than the page: %s", tc.page, tc.width, got["cut"])
		}
		// On a phone the three-column comparison fits too: a mean's
		// "± CV" goes under it rather than widen the table (the step and
		// SLO tables, of more columns, may scroll).
		for _, c := range strings.Fields(got["cut"]) {
			if tc.width == "390" && strings.Contains(c, "comparison:") {
				t.Errorf("%s at %s px: the comparison table is wider than the page: %s", tc.page, tc.width, c)
			}
		}
		if got["broken"] != "0" {
			t.Errorf("%s at %s px: %s file name part(s) broken across lines", tc.page, tc.width, got["broken"])
		}
	}
}
