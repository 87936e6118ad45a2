package render

import (
	"context"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/layout"
)

var (
	homeRowRE  = regexp.MustCompile(`<tr><td><a href="(?:\./)?([^"]*?)/(?:index\.html)?">.*?</tr>`)
	homeCellRE = regexp.MustCompile(`<td class="num" data-sort="[^"]*">(.*?)</td>`)
	homeGainRE = regexp.MustCompile(`^<span class="([^"]+)">([^<]*)</span><br><small>([^<]*)</small>$`)
	homeBestRE = regexp.MustCompile(`^([^<]*)(?:<br><small>([^<]*)</small>)?$`)
	// A comparison row: its case and the optimized cell's first line.
	cmpRowRE = regexp.MustCompile(`<tr><td><strong>([^<]*)</strong>.*?</td><td class="num[^"]*"[^>]*>.*?</td><td class="num( bad)?"[^>]*><span class="ln"><span class="k">[^<]*</span> <span class="v">([^<]*)</span>(?: <span class="v">([^<]*)</span>)?(?: <span class="([^"]+)">\(([^<]*)\)</span>)?`)
	sloRowRE = regexp.MustCompile(`<tr[^>]*><td>([^<]*)(?: <span class="badge">[^<]*</span>)?</td><td[^>]*>[^<]*<small>\(([^)]*)\)</small>.*?</td><td class="num"[^>]*>([^<]*)</td>`)
)

type homeRow struct{ gainClass, gain, gainNote, best, bestNote string }

func homeRows(t *testing.T, page string) map[string]homeRow {
	t.Helper()
	rows := map[string]homeRow{}
	for _, m := range homeRowRE.FindAllStringSubmatch(page, -1) {
		cells := homeCellRE.FindAllStringSubmatch(m[0], -1)
		if len(cells) != 2 {
			t.Fatalf("home row %s: %d numeric cells", m[1], len(cells))
		}
		var r homeRow
		if g := homeGainRE.FindStringSubmatch(cells[0][1]); g != nil {
			r.gainClass, r.gain, r.gainNote = g[1], html.UnescapeString(g[2]), html.UnescapeString(g[3])
		}
		b := homeBestRE.FindStringSubmatch(cells[1][1])
		if b == nil {
			t.Fatalf("home row %s: best cell %q", m[1], cells[1][1])
		}
		r.best, r.bestNote = html.UnescapeString(b[1]), html.UnescapeString(b[2])
		rows[m[1]] = r
	}
	return rows
}

// TestHomeTellsTheReportsNumbers: for every bundled report, the home
// page's two numbers are the report's own. With an SLO: the optimized
// configuration's row of the SLO table and the answer's margin over the
// baseline. Otherwise: the comparison table's optimized cell (the mean ±
// CV where there are repeats) that is highest, and the delta, with its
// colour and test verdict, of the case the home page names. The home
// page listed the best single repeat (14,465.78 tok/s for the sweep demo,
// whose curves have no such mean) and the concurrency-64 point's -31.3%
// for a report whose answer is +419% at the SLO.
func TestHomeTellsTheReportsNumbers(t *testing.T) {
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "site")
	st, err := BuildStats(context.Background(), Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	rows := homeRows(t, readFile(t, filepath.Join(out, "index.html")))
	if len(rows) != st.Reports || len(rows) < 5 {
		t.Fatalf("%d home rows for %d reports", len(rows), st.Reports)
	}
	slos := 0
	for href, row := range rows {
		page := readFile(t, filepath.Join(out, href, "index.html"))
		if strings.Contains(page, "SLO answer") {
			slos++
			// The optimized row of the SLO table.
			name, _, _ := strings.Cut(row.bestNote, " at the SLO")
			found := false
			for _, m := range sloRowRE.FindAllStringSubmatch(page, -1) {
				if html.UnescapeString(m[1]) != name {
					continue
				}
				found = true
				if want := html.UnescapeString(m[3]) + " tok/s/GPU"; row.best != want {
					t.Errorf("%s: home best %q, SLO table %q", href, row.best, want)
				}
				if !strings.HasSuffix(row.bestNote, ", "+m[2]) {
					t.Errorf("%s: home note %q, SLO table's load has %s", href, row.bestNote, m[2])
				}
			}
			if !found {
				t.Errorf("%s: no SLO table row for %q", href, name)
			}
			// The answer's margin, with its test.
			i := strings.Index(page, "<strong>SLO answer:</strong>")
			answer := html.UnescapeString(layout.StripTags(page[i : i+strings.Index(page[i:], "</p>")]))
			_, verdict, _ := strings.Cut(row.gainNote, "; ")
			if !strings.Contains(answer, row.gain+" over ") || !strings.Contains(answer, verdict) {
				t.Errorf("%s: home gain %q (%s) is not the SLO answer's: %s", href, row.gain, verdict, answer)
			}
			if row.gainClass != "delta better" || !strings.Contains(row.gainNote, "at the SLO") {
				t.Errorf("%s: home gain class %q note %q", href, row.gainClass, row.gainNote)
			}
			continue
		}
		i := strings.Index(page, `<table class="sortable comparison">`)
		if i < 0 {
			t.Fatalf("%s: no comparison table", href)
		}
		table := page[i : i+strings.Index(page[i:], "</table>")]
		cases := cmpRowRE.FindAllStringSubmatch(table, -1)
		if len(cases) == 0 {
			t.Fatalf("%s: no comparison rows", href)
		}
		// Best: the highest optimized value of the table among the runs
		// whose every request succeeded (a cell marked bad is left out).
		best, bestCase := -1.0, ""
		for _, c := range cases {
			if v := leadingNumber(c[3]); v > best && c[2] == "" {
				best, bestCase = v, c[1]
			}
		}
		var bestVal string
		for _, c := range cases {
			if c[1] == bestCase {
				bestVal = html.UnescapeString(c[3])
				if c[4] != "" { // the mean's spread, in a span of its own
					bestVal += " " + html.UnescapeString(c[4])
				}
			}
		}
		if row.best != bestVal+" tok/s" {
			t.Errorf("%s: home best %q, comparison's highest optimized cell %q (%s)", href, row.best, bestVal, bestCase)
		}
		if !strings.Contains(row.bestNote, " on "+html.UnescapeString(bestCase)+",") {
			t.Errorf("%s: home best note %q does not name %q", href, row.bestNote, bestCase)
		}
		// Gain: the named case's delta, colour and verdict.
		found := false
		for _, c := range cases {
			name := html.UnescapeString(c[1])
			if !strings.Contains(row.gainNote, " on "+name+";") && !strings.HasSuffix(row.gainNote, " on "+name) && !strings.Contains(row.gainNote, " on "+name+",") {
				continue
			}
			found = true
			delta, verdict, _ := strings.Cut(html.UnescapeString(c[6]), ", ")
			if row.gain != delta || row.gainClass != c[5] {
				t.Errorf("%s: home gain %q (%s), comparison on %s: %q (%s)", href, row.gain, row.gainClass, name, delta, c[5])
			}
			if verdict != "" && !strings.Contains(row.gainNote, verdict) {
				t.Errorf("%s: home gain note %q lacks the test's verdict %q", href, row.gainNote, verdict)
			}
		}
		if !found {
			t.Errorf("%s: home gain note %q names no comparison case", href, row.gainNote)
		}
	}
	if slos == 0 {
		t.Error("no bundled report with an SLO answer")
	}
}

// leadingNumber reads "14,449.40 ± 0.2%" as 14449.40.
func leadingNumber(s string) float64 {
	s, _, _ = strings.Cut(s, " ")
	v := 0.0
	frac := 0.0
	for _, c := range s {
		switch {
		case c == ',':
		case c == '.':
			frac = 1
		case c >= '0' && c <= '9':
			if frac > 0 {
				frac /= 10
				v += float64(c-'0') * frac
			} else {
				v = v*10 + float64(c-'0')
			}
		}
	}
	return v
}

// TestNoWinWithinNoise: 3+3 repeats can never show a difference; no
// badge, result line, SLO answer or home page presents a winner.
func TestNoWinWithinNoise(t *testing.T) {
	content, results := sweepSite(t, 3, 0.02, "")
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(out, "sw", "index.html"))
	if strings.Contains(page, "most throughput at the SLO</span>") {
		t.Error("the SLO table crowns a winner that 3+3 runs cannot show")
	}
	if !strings.Contains(page, "no configuration is shown to give more throughput per GPU than the others") ||
		!strings.Contains(page, "not tested: n=3+3: too few runs to test (≥4 each); run more repeats to test it") {
		t.Error("the SLO answer does not say that its lead is not shown")
	}
	if strings.Contains(page, "gives the most throughput per GPU") {
		t.Error("the SLO answer names a winner")
	}
	if text := html.UnescapeString(page); !strings.Contains(text, "Wide (20,000.00 tok/s) ≈ Fast") || !strings.Contains(text, "(≈: not shown to differ, n=3+3: too few runs to test") {
		i := strings.Index(page, `<strong>Result:</strong>`)
		t.Errorf("the step's result line orders a difference not shown: %s", page[i:i+300])
	}
	// The step table's cells and the summary's deltas: means of 3 runs
	// each are not coloured as gains or losses, and the legends say why.
	if n := strings.Count(page, `<span class="delta untested">Grey</span>: a difference between means of repeats that the Mann-Whitney U test does not show`); n != 2 {
		t.Errorf("%d step/summary legends explain the grey deltas, want 2", n)
	}
	if m := regexp.MustCompile(`class="delta (better|worse)">[(+-][^<]*`).FindAllString(page, -1); len(m) > 0 {
		t.Errorf("deltas of 3+3 runs coloured as a gain or a loss: %q", m)
	}
	rows := homeRows(t, readFile(t, filepath.Join(out, "index.html")))
	row, ok := rows["sw"]
	if !ok {
		t.Fatalf("no home row: %v", rows)
	}
	if row.gainClass == "delta better" || row.gainClass == "delta worse" || !strings.Contains(row.gainNote, "too few runs to test") {
		t.Errorf("home gain %q (%s, %s) for a difference 3+3 runs cannot show", row.gain, row.gainClass, row.gainNote)
	}
	// The best is a mean the report shows, not one repeat.
	if !strings.Contains(row.best, " ± ") || !strings.Contains(page, strings.TrimSuffix(row.best, " tok/s/GPU")) {
		t.Errorf("home best %q is not a mean shown by the report", row.best)
	}
}

// TestChosenDefaultsToOptimized: a campaign without chosen: greyed its
// own optimized configuration out as "not carried forward" in the
// Summary of Optimization Options. The step holding the optimized
// experiment carries it forward.
func TestChosenDefaultsToOptimized(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "```perflab\nblock: summary\n```\n\n```perflab\nblock: step\nstep: s\n```\n")
	page := buildPage(t, content, results)
	if strings.Contains(page, "not carried forward") {
		t.Error("the optimized experiment is \"not carried forward\" in the summary")
	}
	if !strings.Contains(page, `<td>Fast <span class="badge">chosen</span>`) && !strings.Contains(page, `Fast <span class="badge">chosen</span>`) {
		i := strings.Index(page, "<table")
		t.Errorf("the step does not mark the optimized experiment chosen:\n%s", page[i:min(len(page), i+1500)])
	}
}

// TestCPUHardwareWords: a CPU-only campaign read "1 × CPU 2-core VM CPU",
// "Total token throughput per GPU", "1 GPU", and every run carried "no
// GPU telemetry: libnvidia-ml.so.1 not found", repeated in the caveat
// boxes. Its pages count in CPUs and say the missing telemetry once.
func TestCPUHardwareWords(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	camp := filepath.Join(content, "sw", "campaign.yaml")
	writeFile(t, camp, strings.Replace(readFile(t, camp), "hardware: {gpu: H100, count: 2}", "hardware: {gpu: 2-core VM, accelerator: cpu, count: 1}", 1))
	files, _ := filepath.Glob(filepath.Join(results, "sw", "*.json"))
	for _, f := range files {
		res, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res.Warnings = append(res.Warnings, "no GPU telemetry: libnvidia-ml.so.1 not found")
		if err := schema.WriteFile(f, res); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(out, "sw", "index.html"))
	for _, want := range []string{"1 × 2-core VM CPU", "Total token throughput per CPU", "tok/s/CPU", `<th data-sort-type="number">CPUs</th>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "libnvidia-ml.so.1 not found"); n != 1 {
		t.Errorf("the missing telemetry is said %d times, want once", n)
	}
	text := layout.StripTags(page)
	text = strings.Replace(text, "no GPU telemetry", "", 1)
	if i := strings.Index(text, "GPU"); i >= 0 {
		t.Errorf("a CPU page says GPU: …%s…", text[max(0, i-80):min(len(text), i+40)])
	}
	home := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(home, "1 × 2-core VM CPU") || strings.Contains(home, "GPU") {
		t.Errorf("home page hardware words wrong")
	}
}
