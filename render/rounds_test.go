package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/blocks"
)

// TestReportShowsLatestRound: a campaign re-run as a new round keeps
// round 1's files beside it (results/<campaign>/ and rounds/<id>/); the
// page and its data show the latest round only, never a mix.
func TestReportShowsLatestRound(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "results", "demo-h100")
	build := func() string {
		t.Helper()
		page, b := buildFixtureReport(t, dir)
		var data struct {
			Runs json.RawMessage `json:"runs"`
		}
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatal(err)
		}
		// Every block but the history (which shows every round), and
		// data.json's runs (its rounds hold every round).
		return withoutHistory(t, page) + string(data.Runs)
	}
	if page := build(); !strings.Contains(page, "2352.82") {
		t.Fatal("round 1's vllm-base throughput is not on the page")
	}

	// Round 2: the same runs, vllm-base/sharegpt measured again.
	results := fixtureResults()
	for _, r := range results {
		if r.Experiment == "vllm-base" && r.Profile == "sharegpt" {
			r.Summary.TotalTokenThroughput = 2871.44
		}
	}
	writeRound(t, camp, &schema.Round{ID: "2026-11-27", Start: "2026-11-27T22:00:00Z", Campaign: "demo-h100"}, results)
	page := build()
	if !strings.Contains(page, "2871.44") || strings.Contains(page, "2352.82") {
		t.Errorf("the page does not show round 2 alone: has 2871.44 %v, has round 1's 2352.82 %v",
			strings.Contains(page, "2871.44"), strings.Contains(page, "2352.82"))
	}

	// A round started but holding no result yet does not hide round 2.
	if _, err := schema.CreateRound(camp, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T22:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if page := build(); !strings.Contains(page, "2871.44") {
		t.Error("an empty new round hid the latest round with results")
	}
}

// TestHistoryBlock: a report with two rounds gets a History section
// (chart, a table with a column per round, no change points from two
// single runs); one with a single round gets none.
func TestHistoryBlock(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "results", "demo-h100")
	build := func() string {
		t.Helper()
		page, _ := buildFixtureReport(t, dir)
		return page
	}
	if page := build(); strings.Contains(page, `id="history"`) {
		t.Fatal("a History section with one round")
	}
	rd, err := schema.CreateRound(camp, &schema.Round{ID: "2026-11-27", Start: "2026-11-27T22:00:00Z", Campaign: "demo-h100",
		GitCommit: "0123456789abcdef0123456789abcdef01234567-dirty"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixtureResults() {
		r.Engine.Version = "0.14.0" // round 1's results say no version
		if err := schema.WriteFile(filepath.Join(rd.Dir, r.Experiment+"--"+r.Profile+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	page := build()
	for _, want := range []string{`<h2 id="history">History`, `<div class="table-wrap"><table class="sortable history">`, "<th>Round 1", "<th>Round 2026-11-27</th>",
		"No change points", `"chart-history-`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Two rounds of single runs: nothing could be tested (a change
	// shows with 3 rounds on each side), and the page says so rather
	// than that no round differs.
	if !strings.Contains(page, "No change points could be tested yet.") || strings.Contains(page, "beyond its runs' noise") ||
		!strings.Contains(page, `<p class="history-coverage">`) {
		t.Error("the history says the rounds were tested for change points; two rounds of single runs cannot be")
	}
	if strings.Contains(page, "Round 2026-11-27<br>") {
		t.Error("the heading of round 2026-11-27 repeats its date")
	}
	// The chart: one dataset row per round, the hover's rounds with
	// their commit, and the engine's version from round 2.
	opt := historyChartOption(t, page)
	if len(opt.Dataset.Source) != 2 || len(opt.History.Rounds) != 2 || opt.History.Rounds[1] != [3]string{"2026-11-27", "2026-11-27", "0123456789ab-dirty"} {
		t.Errorf("history chart: dataset %v, rounds %v", opt.Dataset.Source, opt.History.Rounds)
	}
	if len(opt.Series) == 0 || len(opt.History.Engines) != len(opt.Series) {
		t.Fatalf("history chart: %d series, engines %v", len(opt.Series), opt.History.Engines)
	}
	if e := opt.History.Engines[0]; len(e) != 1 || e[0][0] != 1.0 || !strings.HasSuffix(e[0][1].(string), " 0.14.0") {
		t.Errorf("line 0's engines: %v, want 0.14.0 from round 2 (round 1 says no version)", e)
	}
	if opt.Series[0].MarkLine != nil {
		t.Errorf("a version change marked where round 1 says no version: %v", opt.Series[0].MarkLine)
	}
	// data.json: "runs" is the latest round, "rounds" every round with
	// its headline figures and links to its own files (each holding the
	// round's runs: checkRoundFiles); data.csv the latest round's rows
	// with a round column.
	var data struct {
		Runs   []json.RawMessage `json:"runs"`
		Rounds []struct {
			ID        string            `json:"id"`
			GitCommit string            `json:"git_commit"`
			Headline  []json.RawMessage `json:"headline"`
			Runs      []json.RawMessage `json:"runs"`
		} `json:"rounds"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "site", "demo", "h100", "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &data); err != nil || len(data.Runs) != 6 || len(data.Rounds) != 2 || data.Rounds[0].ID != "1" ||
		len(data.Rounds[1].Runs) != 0 || len(data.Rounds[1].Headline) == 0 || data.Rounds[1].GitCommit == "" {
		t.Fatalf("data.json: %d runs, rounds %+v, %v", len(data.Runs), data.Rounds, err)
	}
	// Each run names its round, the shown round's own runs too (a
	// review found the key absent there, data.csv's column filled).
	for i, raw := range data.Runs {
		var run struct {
			Round string `json:"round"`
		}
		if err := json.Unmarshal(raw, &run); err != nil || run.Round != "2026-11-27" {
			t.Errorf("data.json run %d: round %q, want 2026-11-27 (%v)", i, run.Round, err)
		}
	}
	checkRoundFiles(t, filepath.Join(dir, "site"), "demo/h100/", camp)
	csv, _ := os.ReadFile(filepath.Join(dir, "site", "demo", "h100", "data.csv"))
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 7 || !strings.HasPrefix(lines[0], "round,experiment,") || !strings.HasPrefix(lines[6], "2026-11-27,") {
		t.Errorf("data.csv:\n%s", csv)
	}

	// Round 3 upgrades the engine: a vertical line on the x axis at
	// round 3 names the new version; x is the rounds, labelled by id.
	rd, err = schema.CreateRound(camp, &schema.Round{ID: "2026-12-04", Start: "2026-12-04T22:00:00Z", Campaign: "demo-h100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixtureResults() {
		r.Engine.Version = "0.15.1"
		if err := schema.WriteFile(filepath.Join(rd.Dir, r.Experiment+"--"+r.Profile+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	opt = historyChartOption(t, build())
	if ml := opt.Series[0].MarkLine; ml == nil || len(ml.Data) != 1 || len(opt.Dataset.Source) != 3 || ml.Data[0]["xAxis"] != opt.Dataset.Source[2][0] || !strings.HasSuffix(ml.Data[0]["name"].(string), " 0.15.1") {
		t.Errorf("version change marks: %+v, want one at round 3's x naming 0.15.1", ml)
	}
	if len(opt.XAxis) != 1 || opt.XAxis[0]["type"] != "category" || opt.Dataset.Source[2][0] != "2026-12-04" {
		t.Errorf("x axis %v, x %v: want a category axis of the rounds' ids", opt.XAxis, opt.Dataset.Source)
	}
}

// TestDemoRoundsPage: the bundled living-lab demo's page flags exactly
// the two changes made on purpose: large-batch in round 4 (slower, at both
// concurrencies) and small-batch in round 5 (faster).
func TestDemoRoundsPage(t *testing.T) {
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "demo", "mock-rounds", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	i := strings.Index(page, `<ul class="history-changes">`)
	if i < 0 {
		t.Fatal("no change points listed")
	}
	list := page[i : i+strings.Index(page[i:], "</ul>")]
	items := strings.Split(list, "<li>")[1:]
	want := []string{"Large batch, slow step / Chat at concurrency 4: -", "Large batch, slow step / Chat at concurrency 16: -",
		"Small batch, fast step / Chat at concurrency 4: +", "Small batch, fast step / Chat at concurrency 16: +"}
	rounds := []string{"in round 4 ", "in round 4 ", "in round 5 ", "in round 5 "}
	if len(items) != len(want) {
		t.Fatalf("%d change points, want 4:\n%s", len(items), list)
	}
	for k, it := range items {
		if !strings.HasPrefix(it, want[k]) || !strings.Contains(it, rounds[k]) {
			t.Errorf("change point %d: %q, want %q … %q", k, it, want[k], rounds[k])
		}
	}
	// The same four flagged on the chart: a pin on each line at its
	// round (index 3: round 4, index 4: round 5), x the rounds' dates.
	opt := historyChartOption(t, page)
	pins := map[string]int{}
	for _, sr := range opt.Series {
		if sr.MarkPoint != nil {
			pins[sr.Name] = len(sr.MarkPoint["data"].([]any))
		}
	}
	if len(pins) != 4 || len(opt.History.Changes) != 4 {
		t.Errorf("chart pins %v, changes %v: want the 4 change points", pins, opt.History.Changes)
	}
	for k, ri := range []string{"3", "3", "4", "4"} {
		for li, sr := range opt.Series {
			if strings.HasPrefix(want[k], sr.Name+":") && opt.History.Changes[strconv.Itoa(li)+":"+ri] == "" {
				t.Errorf("chart: no change point on %s at round index %s: %v", sr.Name, ri, opt.History.Changes)
			}
		}
	}
	if opt.XAxis[0]["type"] != "category" {
		t.Errorf("demo history x axis %v, want the rounds", opt.XAxis[0])
	}
	// data.json dates every round as the chart does: round 1, which has
	// no record, by its results' earliest start.
	var data struct {
		Rounds []struct {
			ID    string `json:"id"`
			Start string `json:"start"`
		} `json:"rounds"`
	}
	if b, err = os.ReadFile(filepath.Join(out, "demo", "mock-rounds", "data.json")); err == nil {
		err = json.Unmarshal(b, &data)
	}
	if err != nil || len(data.Rounds) != 6 {
		t.Fatalf("data.json: %v, rounds %+v", err, data.Rounds)
	}
	for ri, rd := range data.Rounds {
		if x := opt.Dataset.Source[ri][0].(string); rd.Start == "" || !strings.HasPrefix(x, rd.ID+"\n"+rd.Start[:10]) {
			t.Errorf("data.json round %s starts %q; the chart dates it %s", rd.ID, rd.Start, x)
		}
	}
	// Every figure of the chart is in data.json: each round's headline
	// values' mean is the chart's point, and the four change points are
	// listed; each round's own files hold its runs.
	var figures struct {
		Rounds []struct {
			Headline []struct {
				Experiment string             `json:"experiment"`
				Point      string             `json:"point"`
				Load       map[string]float64 `json:"load"`
				Values     []float64          `json:"total_token_throughput_per_gpu"`
			} `json:"headline"`
		} `json:"rounds"`
		Changes []struct {
			Experiment string `json:"experiment"`
			Round      string `json:"round"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(b, &figures); err != nil {
		t.Fatal(err)
	}
	for ri, rd := range figures.Rounds {
		row := opt.Dataset.Source[ri]
		if len(rd.Headline) != len(opt.Series) || len(row) != 1+3*len(opt.Series) {
			t.Fatalf("round %d: %d headline figures, %d chart series", ri+1, len(rd.Headline), len(opt.Series))
		}
		for li, h := range rd.Headline {
			// The point as a script reads it: the swept field and its value.
			if v, ok := h.Load["max_concurrency"]; !ok || len(h.Load) != 1 || !strings.HasSuffix(h.Point, " "+strconv.FormatFloat(v, 'f', -1, 64)) {
				t.Errorf("round %d, %s: load %v for point %q", ri+1, h.Experiment, h.Load, h.Point)
			}
			sum := 0.0
			for _, v := range h.Values {
				sum += v
			}
			if mean := math.Round(sum/float64(len(h.Values))*100) / 100; mean != row[1+3*li].(float64) || !strings.HasSuffix(opt.Series[li].Name, h.Point) {
				t.Errorf("round %d, %s at %s: data.json's mean %v, the chart's %v (%s)", ri+1, h.Experiment, h.Point, mean, row[1+3*li], opt.Series[li].Name)
			}
		}
	}
	var changed []string
	for _, c := range figures.Changes {
		changed = append(changed, c.Experiment+"@"+c.Round)
	}
	if fmt.Sprint(changed) != "[large-batch@4 large-batch@4 small-batch@5 small-batch@5]" {
		t.Errorf("data.json changes %v, want the four flagged", changed)
	}
	checkRoundFiles(t, out, "demo/mock-rounds/", filepath.Join(root, "results", "demo-mock-rounds"))
}

// TestHomeChanges: the home page lists the change points of every
// report's latest round (the demo cut after round 4: large-batch's
// regression at both concurrencies, linked to the history), and nothing
// when the latest round changed nothing (the whole demo: round 6).
func TestHomeChanges(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	copyDir(t, filepath.Join(root, "results", "demo-mock-rounds"), filepath.Join(dir, "results", "demo-mock-rounds"))
	home := func() string {
		t.Helper()
		out := filepath.Join(dir, "site")
		if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if h := home(); strings.Contains(h, "Regressions and improvements") {
		t.Error("a Regressions and improvements list when the latest round changed nothing")
	}
	for _, r := range []string{"5", "6"} {
		if err := os.RemoveAll(filepath.Join(dir, "results", "demo-mock-rounds", "rounds", r)); err != nil {
			t.Fatal(err)
		}
	}
	h := home()
	i := strings.Index(h, `<ul class="home-changes">`)
	if i < 0 {
		t.Fatal("no Regressions and improvements list after round 4")
	}
	list := h[i : i+strings.Index(h[i:], "</ul>")]
	if n := strings.Count(list, "<li"); n != 2 || strings.Count(list, "Large batch, slow step / Chat at concurrency") != 2 ||
		!strings.Contains(list, "(Regression)") || !strings.Contains(list, `href="mock-rounds/index.html#history-chart"`) {
		t.Errorf("list:\n%s", list)
	}
	// The home page's table of contents names the section, alone.
	if !strings.Contains(h, `<a href="#regressions-and-improvements">Regressions and improvements</a>`) {
		t.Error("the home page's table of contents lacks a plain Regressions and improvements entry")
	}
	// The link's target: the history chart on the report's page.
	page := readFile(t, filepath.Join(dir, "site", "mock-rounds", "index.html"))
	if j := strings.Index(page, `<div id="history-chart"></div>`); j < 0 || !strings.HasPrefix(page[j+len(`<div id="history-chart"></div>`):], `<figure class="chart-figure">`) {
		t.Error(`the report page has no id="history-chart" right before the history chart`)
	}
}

// TestHistoryPageWeight: a report with 100 rounds weighs at most twice
// the same report with one round (the page-weight target): the
// history chart carries one compact table of rounds, and its hover text
// is drawn by the page's script, not written out per point.
func TestHistoryPageWeight(t *testing.T) {
	size := map[int]int64{}
	for _, rounds := range []int{1, 100} {
		dir := t.TempDir()
		writeSyntheticSite(t, dir, 1)
		writeSyntheticRounds(t, dir, 1, rounds)
		out := filepath.Join(dir, "site")
		if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(out, "model-0000", "h100", "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		size[rounds] = fi.Size()
	}
	t.Logf("page weight: 1 round %d bytes, 100 rounds %d bytes (%.2f×)", size[1], size[100], float64(size[100])/float64(size[1]))
	if size[100] > 2*size[1] {
		t.Errorf("a report with 100 rounds weighs %d bytes, more than twice its one-round page (%d bytes)", size[100], size[1])
	}
}

// historyChartOption is the history chart's option on a report page.
func historyChartOption(t *testing.T, page string) (opt struct {
	Dataset struct {
		Source [][]any `json:"source"`
	} `json:"dataset"`
	XAxis  []map[string]any `json:"xAxis"`
	Series []struct {
		Name      string         `json:"name"`
		MarkPoint map[string]any `json:"markPoint"`
		MarkLine  *struct {
			Data []map[string]any `json:"data"`
		} `json:"markLine"`
	} `json:"series"`
	History struct {
		Rounds  [][3]string       `json:"rounds"`
		Engines [][][2]any        `json:"engines"`
		Changes map[string]string `json:"changes"`
		Failed  map[string]string `json:"failed"`
	} `json:"history"`
}) {
	t.Helper()
	i := strings.Index(page, `-option">`+"{")
	for i >= 0 && !strings.Contains(page[max(0, i-40):i], "chart-history-") {
		j := strings.Index(page[i+1:], `-option">`+"{")
		if j < 0 {
			i = -1
			break
		}
		i += 1 + j
	}
	if i < 0 {
		t.Fatal("no history chart on the page")
	}
	js := page[i+len(`-option">`):]
	js = js[:strings.Index(js, "</script>")]
	if err := json.Unmarshal([]byte(js), &opt); err != nil {
		t.Fatalf("history chart option: %v", err)
	}
	return opt
}

// TestHistorySLO: for a sweep campaign with an SLO, the history gives
// each configuration's SLO answer in each round (the slo block's: the
// highest load meeting it and the throughput per GPU there), marking the
// round where it moved: wide's c64 TPOT p99 goes over the limit in round
// 2, so its answer falls back to c8.
func TestHistorySLO(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	camp := filepath.Join(results, "sw")
	rd, err := schema.CreateRound(camp, &schema.Round{ID: "r2", Start: "2026-11-27T22:00:00Z", Campaign: "sw"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(camp, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		res, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if res.Experiment == "wide" && res.Load.MaxConcurrency == 64 {
			res.Summary.TPOT.Percentiles[0].ValueMs = 25 // over the 20 ms limit
		}
		if err := schema.WriteFile(filepath.Join(rd.Dir, filepath.Base(f)), res); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(out, "sw", "index.html"))
	i := strings.Index(page, `<table class="sortable history history-slo">`)
	if i < 0 {
		t.Fatal("no SLO history table")
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	// wide: c64 at 20000/2 GPUs in round 1, then c8 at 3000/2; fast: c8
	// (4000/2) in both.
	for _, want := range []string{
		"<tr><td>Wide / Chat</td><td>concurrency 64: 10000.0 tok/s/GPU</td><td class=\"change\">concurrency 8: 1500.0 tok/s/GPU</td></tr>",
		"<tr><td>Fast / Chat</td><td>concurrency 8: 2000.0 tok/s/GPU</td><td>concurrency 8: 2000.0 tok/s/GPU</td></tr>",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("SLO history lacks %q:\n%s", want, table)
		}
	}
	// data.json has the same answers, each round's, and the SLO.
	var data struct {
		SLO    map[string]float64 `json:"slo_ms"`
		Rounds []struct {
			ID  string `json:"id"`
			SLO []struct {
				Experiment, Profile, Point string
				Met                        bool
				Load                       map[string]float64
				PerGPU                     float64 `json:"total_token_throughput_per_gpu"`
			} `json:"slo"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "sw", "data.json"))), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Rounds) != 2 || data.SLO["ttft_p99"] != 500 || data.SLO["tpot_p99"] != 20 {
		t.Fatalf("data.json: slo_ms %v, %d rounds", data.SLO, len(data.Rounds))
	}
	want := [][]string{{"fast chat concurrency 8 8 2000", "wide chat concurrency 64 64 10000"}, {"fast chat concurrency 8 8 2000", "wide chat concurrency 8 8 1500"}}
	for ri, rd := range data.Rounds {
		var got []string
		for _, a := range rd.SLO {
			got = append(got, fmt.Sprintf("%s %s %s %v %v", a.Experiment, a.Profile, a.Point, a.Load["max_concurrency"], a.PerGPU))
			if !a.Met {
				t.Errorf("round %s: %s not met", rd.ID, a.Experiment)
			}
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, want[ri]) {
			t.Errorf("round %s: data.json's SLO answers %q, want %q (the history's)", rd.ID, got, want[ri])
		}
	}
	// Round r3: every point's TTFT p99 over the limit. The table says
	// none meets it; data.json says met false, with no point.
	rd, err = schema.CreateRound(camp, &schema.Round{ID: "r3", Start: "2026-11-28T22:00:00Z", Campaign: "sw"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		res, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res.Summary.TTFT.Percentiles[0].ValueMs = 900
		if err := schema.WriteFile(filepath.Join(rd.Dir, filepath.Base(f)), res); err != nil {
			t.Fatal(err)
		}
	}
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	if page := readFile(t, filepath.Join(out, "sw", "index.html")); strings.Count(page, `<td class="change">none meets it</td>`) != 2 {
		t.Error("the SLO history does not say none meets it in round r3, for both")
	}
	var r3 struct {
		Rounds []struct {
			SLO []map[string]any `json:"slo"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "sw", "data.json"))), &r3); err != nil || len(r3.Rounds) != 3 {
		t.Fatalf("data.json: %d rounds, %v", len(r3.Rounds), err)
	}
	for _, a := range r3.Rounds[2].SLO {
		if len(a) != 3 || a["met"] != false {
			t.Errorf("round r3's answer %v: want experiment, profile and met false alone", a)
		}
	}
	if len(r3.Rounds[2].SLO) != 2 {
		t.Errorf("round r3: %d SLO answers, want 2", len(r3.Rounds[2].SLO))
	}
}

// TestHomeChangesSingleRuns: over single runs a change point needs
// rounds on each side, so it lies rounds before the round that finds it;
// the home page lists it when the latest round found it (a 15 % drop of
// one line from round 8, found by round 10), and not in the builds
// before (round 9: not yet found) nor after (round 11: old news).
func TestHomeChangesSingleRuns(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	camp := filepath.Join(dir, "results", "demo-mock-rounds")
	noise := []float64{0.4, -0.7, 0.9, -0.2, 0.1, -0.9, 0.6, -0.4, 0.3, -0.5, 0.8} // % per round
	write := func(k int) {                                                         // round k (1: the campaign's directory)
		t.Helper()
		singleRunRound(t, camp, k, func(j int, r *schema.Result) {
			f := 1 + noise[(k+3*j)%len(noise)]/100
			if j == 3 && k >= 8 {
				f *= 0.85
			}
			r.Summary.TotalTokenThroughput *= f
		})
	}
	home := func() string {
		t.Helper()
		out := filepath.Join(dir, "site")
		if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
			t.Fatal(err)
		}
		return readFile(t, filepath.Join(out, "index.html"))
	}
	for k := 1; k <= 9; k++ {
		write(k)
	}
	if h := home(); strings.Contains(h, "Regressions and improvements") {
		t.Error("round 9: a Regressions and improvements list before the change can be found")
	}
	write(10)
	h := home()
	i := strings.Index(h, `<ul class="home-changes">`)
	if i < 0 {
		t.Fatal("round 10: no Regressions and improvements list (the drop from round 8 is found by round 10)")
	}
	list := h[i : i+strings.Index(h[i:], "</ul>")]
	if strings.Count(list, "<li") != 1 || !strings.Contains(list, "Small batch, fast step / Chat at concurrency 16") ||
		!strings.Contains(list, "in round 8 ") || !strings.Contains(list, "(Regression)") {
		t.Errorf("round 10: list:\n%s", list)
	}
	write(11)
	if h := home(); strings.Contains(h, "Regressions and improvements") {
		t.Error("round 11: the change round 10 found is listed again")
	}
}

// TestShownRoundStaleAsOlder: the demo's campaign cut from 6 repeats to
// 2 leaves 16 of the latest round's 24 results out of the page (Stale);
// the round's own data file and its history figures still hold all 24,
// as they do once a later round makes it an older round: rounds/6.json
// and data.json's round 6 are the same bytes before and after round 7
// comes (they held 8 runs while round 6 was the latest, 24 after).
func TestShownRoundStaleAsOlder(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	res := filepath.Join(dir, "results", "demo-mock-rounds")
	copyDir(t, filepath.Join(root, "results", "demo-mock-rounds"), res)
	camp := filepath.Join(dir, "content", "mock-rounds", "campaign.yaml")
	b := []byte(readFile(t, camp))
	if n := bytes.Count(b, []byte("\n    repeats: 6\n")); n != 1 {
		t.Fatalf("the demo campaign has %d `repeats: 6` lines, want 1", n)
	}
	if err := os.WriteFile(camp, bytes.Replace(b, []byte("\n    repeats: 6\n"), []byte("\n    repeats: 2\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func() (round6 string, entry string) {
		t.Helper()
		out := filepath.Join(dir, "site")
		if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, NoCache: true}); err != nil {
			t.Fatal(err)
		}
		var data struct {
			Rounds []json.RawMessage `json:"rounds"`
		}
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "mock-rounds", "data.json"))), &data); err != nil {
			t.Fatal(err)
		}
		for _, r := range data.Rounds {
			var x struct{ ID string }
			if err := json.Unmarshal(r, &x); err != nil {
				t.Fatal(err)
			}
			if x.ID == "6" {
				entry = string(r)
			}
		}
		return readFile(t, filepath.Join(out, "mock-rounds", "rounds", "6.json")), entry
	}
	file6, entry6 := build()
	var rf blocks.RoundDataFile
	if err := json.Unmarshal([]byte(file6), &rf); err != nil {
		t.Fatal(err)
	}
	if len(rf.Runs) != 24 {
		t.Errorf("rounds/6.json of the latest round holds %d runs; the round has 24 results", len(rf.Runs))
	}
	// Round 7: round 6's results again, a week later.
	r7 := filepath.Join(res, schema.RoundsDir, "7")
	copyDir(t, filepath.Join(res, schema.RoundsDir, "6"), r7)
	rec := strings.Replace(readFile(t, filepath.Join(r7, schema.RoundFile)), `"id": "6"`, `"id": "7"`, 1)
	rec = strings.Replace(rec, `"start": "2026-11-09`, `"start": "2026-11-16`, 1)
	if err := os.WriteFile(filepath.Join(r7, schema.RoundFile), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	file6b, entry6b := build()
	if file6b != file6 {
		t.Errorf("rounds/6.json changed when round 7 came: %d bytes as the latest round, %d as an older one", len(file6), len(file6b))
	}
	if entry6b != entry6 {
		t.Errorf("data.json's round 6 changed when round 7 came:\nlatest: %.300s\nolder:  %.300s", entry6, entry6b)
	}
}

// TestOlderRoundKeepsDroppedExperiment: a lab that takes an experiment
// out of its campaign keeps its older rounds' results of it in their data
// files (rounds/<round>.json and .csv hold every result of the round),
// while the page and its history go by the campaign. (Before, round 3's
// files lost the run, with no word, the next time they were made.)
func TestOlderRoundKeepsDroppedExperiment(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	res := filepath.Join(dir, "results", "demo-mock-rounds")
	copyDir(t, filepath.Join(root, "results", "demo-mock-rounds"), res)
	r3 := filepath.Join(res, schema.RoundsDir, "3")
	old, err := schema.ReadFile(filepath.Join(r3, "small-batch--chat--c4.json"))
	if err != nil {
		t.Fatal(err)
	}
	old.Experiment, old.ID = "dropped-batch", "dropped0000000001"
	if err := schema.WriteFile(filepath.Join(r3, "dropped-batch--chat--c4.json"), old); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, NoCache: true}); err != nil {
		t.Fatal(err)
	}
	checkRoundFiles(t, out, "mock-rounds/", res) // round 3's files hold all 25 results
	csv := readFile(t, filepath.Join(out, "mock-rounds", "rounds", "3.csv"))
	if !strings.Contains(csv, "\n3,dropped-batch,chat,mock,1,ok,") {
		t.Errorf("rounds/3.csv has no row of the dropped experiment's run (engine and GPUs from its result):\n%.400s", csv)
	}
	if page := readFile(t, filepath.Join(out, "mock-rounds", "index.html")); strings.Contains(page, "dropped-batch") {
		t.Error("the page shows an experiment the campaign no longer has")
	}
}

// TestHistoryWorkloadEdit: a profile's workload changed between rounds
// (input_len doubled from round 7 of 9, the figures of one line
// halved): a review found it flagged as a change point and listed on
// the home page as a regression. The page, the home page and data.json agree: no
// change, the edit named under the table and marked on the chart.
func TestHistoryWorkloadEdit(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	camp := filepath.Join(dir, "results", "demo-mock-rounds")
	for k := 1; k <= 9; k++ {
		singleRunRound(t, camp, k, func(j int, r *schema.Result) {
			r.Summary.TotalTokenThroughput *= 1 + float64((k*7+j*3)%5-2)/400
			if j == 3 && k >= 7 {
				r.Load.InputLen *= 2
				r.Summary.TotalTokenThroughput *= 0.5
			}
		})
	}
	out := filepath.Join(dir, "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
		t.Fatal(err)
	}
	if home := readFile(t, filepath.Join(out, "index.html")); strings.Contains(home, "Regressions and improvements") {
		t.Error("the home page lists the workload edit as a regression")
	}
	page := readFile(t, filepath.Join(out, "mock-rounds", "index.html"))
	if strings.Contains(page, `<ul class="history-changes">`) || !strings.Contains(page, `<p class="history-work">The workload of Chat changed in round 7 `) {
		t.Error("the history flags the workload edit, or does not name it")
	}
	if !strings.Contains(page, `"workload of Chat"`) {
		t.Error("the history chart does not mark the workload edit")
	}
	var data struct {
		Changes []json.RawMessage `json:"changes"`
	}
	b, err := os.ReadFile(filepath.Join(out, "mock-rounds", "data.json"))
	if err == nil {
		err = json.Unmarshal(b, &data)
	}
	if err != nil || len(data.Changes) != 0 {
		t.Errorf("data.json changes %s (%v), want none", data.Changes, err)
	}
}

// singleRunRound writes round k of single runs of the demo's four
// configurations (round 1 in the campaign's directory camp, round k > 1
// as rounds/k started on 2026-01-k), each from round 6 of the bundled
// demo results, adjust changing run j's copy first.
func singleRunRound(t *testing.T, camp string, k int, adjust func(j int, r *schema.Result)) {
	t.Helper()
	src := filepath.Join(repoRoot(t), "results", "demo-mock-rounds", "rounds", "6")
	names := []string{"large-batch--chat--c4.json", "large-batch--chat--c16.json", "small-batch--chat--c4.json", "small-batch--chat--c16.json"}
	rdir := camp
	if k > 1 {
		rd, err := schema.CreateRound(camp, &schema.Round{ID: strconv.Itoa(k), Start: fmt.Sprintf("2026-01-%02dT02:00:00Z", k)})
		if err != nil {
			t.Fatal(err)
		}
		rdir = rd.Dir
	} else if err := os.MkdirAll(camp, 0o755); err != nil {
		t.Fatal(err)
	}
	for j, name := range names {
		r, err := schema.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		adjust(j, r)
		if k == 1 {
			r.Start, r.End = "2026-01-01T02:00:00Z", "2026-01-01T02:01:00Z"
		}
		if err := schema.WriteFile(filepath.Join(rdir, name), r); err != nil {
			t.Fatal(err)
		}
	}
}
