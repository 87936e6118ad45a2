package render

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// carriedFixture is the fixture site with a second round, 2026-11-28,
// holding results (written as collect names them), and a build of it:
// the report's page without its History section, and its data.json.
func carriedFixture(t *testing.T, results ...*schema.Result) (page string, data carriedData) {
	t.Helper()
	dir := copyFixture(t)
	writeRound(t, filepath.Join(dir, "results", "demo-h100"), &schema.Round{ID: "2026-11-28", Start: "2026-11-28T05:00:00Z", Campaign: "demo-h100"}, results)
	page, b := buildFixtureReport(t, dir)
	page = withoutHistory(t, page)
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	return page, data
}

type carriedData struct {
	Runs []struct {
		Experiment, Profile string
		Status              schema.Status
		Round               string `json:"round"`
	} `json:"runs"`
	Rounds []struct {
		ID       string `json:"id"`
		Headline []struct {
			Experiment, Profile string
		} `json:"headline"`
	} `json:"rounds"`
}

// fixtureRun is the fixture's result of experiment exp on profile prof.
func fixtureRun(t *testing.T, exp, prof string) *schema.Result {
	t.Helper()
	for _, r := range fixtureResults() {
		if r.Experiment == exp && r.Profile == prof {
			return r
		}
	}
	t.Fatalf("no fixture run %s/%s", exp, prof)
	return nil
}

func interrupted(r *schema.Result) *schema.Result {
	r.Status, r.Error, r.Summary = schema.StatusInterrupted, "interrupted (Ctrl-C): run the same command with --round 2026-11-28 to resume", nil
	return r
}

// TestInterruptedRoundNotShown: Ctrl-C early in `collect --new-round`
// leaves a round holding one interrupted result; the page keeps showing
// the round before (its numbers, no "interrupted" row, nothing carried)
// and the history has no column for the stopped round.
func TestInterruptedRoundNotShown(t *testing.T) {
	page, data := carriedFixture(t, interrupted(fixtureRun(t, "vllm-base", "sharegpt")))
	for _, n := range []string{"2352.82", "4005.62", "1690.84"} {
		if !strings.Contains(page, n) {
			t.Errorf("round 1's %s is not on the page", n)
		}
	}
	if strings.Contains(page, ">interrupted") || strings.Contains(page, `class="carried"`) || strings.Contains(page, "info carried") {
		t.Error("the page shows the interrupted round, or carries runs")
	}
	if len(data.Runs) != 6 {
		t.Errorf("data.json runs: %d, want round 1's 6", len(data.Runs))
	}
	for _, r := range data.Runs {
		if r.Round != "" || r.Status == schema.StatusInterrupted {
			t.Errorf("data.json run %+v: round 1's own run expected", r)
		}
	}
	if len(data.Rounds) != 0 {
		t.Errorf("data.json rounds: %+v; the stopped round is no history", data.Rounds)
	}
}

// TestPartialRoundCarries: a round measuring part of the campaign
// (`collect --new-round --only vllm-base`, one of its runs interrupted)
// is shown with its own runs, and every other planned run from round 1,
// marked: the runs table names the round, a line atop the page says how
// many the round measured, data.json's runs carry "round"; the history
// (data.json's rounds) keeps each round's own results.
func TestPartialRoundCarries(t *testing.T) {
	vb := fixtureRun(t, "vllm-base", "sharegpt")
	vb.Summary.TotalTokenThroughput = 2871.44
	page, data := carriedFixture(t, vb, interrupted(fixtureRun(t, "vllm-base", "long")))
	if !strings.Contains(page, "2871.44") || strings.Contains(page, "2352.82") {
		t.Errorf("round 2's vllm-base run: has 2871.44 %v, has round 1's 2352.82 %v", strings.Contains(page, "2871.44"), strings.Contains(page, "2352.82"))
	}
	for _, n := range []string{"4005.62", "1690.84", "2148.69"} {
		if !strings.Contains(page, n) {
			t.Errorf("round 1's %s is not carried onto the page", n)
		}
	}
	if strings.Contains(page, ">interrupted") {
		t.Error("the interrupted run is shown rather than round 1's")
	}
	if n := strings.Count(page, `<small class="carried">from round 1</small>`); n != 5 {
		t.Errorf("%d runs marked from round 1, want 5", n)
	}
	note := "The latest round, <code>2026-11-28</code>, measured 1 of the 6 runs on this page; the others are the newest earlier results of their configurations, marked in the runs table: 5 runs from round <code>1</code>."
	if !strings.Contains(page, note) {
		t.Errorf("no line atop the page saying %q", note)
	}
	if i, j := strings.Index(page, note), strings.Index(page, `<h2`); i < 0 || j < i {
		t.Error("the line is not above the page's first section")
	}
	carried := 0
	for _, r := range data.Runs {
		switch {
		case r.Experiment == "vllm-base" && r.Profile == "sharegpt":
			if r.Round != "2026-11-28" {
				t.Errorf("round 2's own run marked %q, want its round, 2026-11-28", r.Round)
			}
		case r.Round == "1":
			carried++
		default:
			t.Errorf("data.json run %+v: want round 1", r)
		}
	}
	if len(data.Runs) != 6 || carried != 5 {
		t.Errorf("data.json runs: %d, %d carried; want 6, 5", len(data.Runs), carried)
	}
	if len(data.Rounds) != 2 || data.Rounds[1].ID != "2026-11-28" {
		t.Fatalf("data.json rounds: %+v", data.Rounds)
	}
	for _, h := range data.Rounds[1].Headline {
		if h.Experiment != "vllm-base" {
			t.Errorf("round 2's history holds %s/%s, carried from round 1", h.Experiment, h.Profile)
		}
	}
}

// TestHistoryFailedRequests: a round whose run had failed requests (a
// stall: the run stays ok, its throughput over its whole time) says so
// in the history, in the table's cell and the chart's hover, as the
// curves and SLO blocks do; a round without failures says nothing.
func TestHistoryFailedRequests(t *testing.T) {
	dir := copyFixture(t)
	results := fixtureResults()
	for _, r := range results {
		if r.Experiment == "vllm-base" && r.Profile == "sharegpt" {
			r.Summary.Completed, r.Summary.Failed, r.Summary.TotalTokenThroughput = 970, 30, 80.5
		}
	}
	writeRound(t, filepath.Join(dir, "results", "demo-h100"), &schema.Round{ID: "2026-11-28", Start: "2026-11-28T05:00:00Z", Campaign: "demo-h100"}, results)
	page, b := buildFixtureReport(t, dir)
	const stall = "✗ 30 of 1000 requests failed"
	i, j := strings.Index(page, `<table class="sortable history">`), strings.Index(page, `<h2 id="all-runs"`)
	if i < 0 || j < i {
		t.Fatal("no history table")
	}
	table := page[i:j]
	if !strings.Contains(table, `<small class="failed">`+stall+`</small>`) {
		t.Errorf("the history table does not say %q", stall)
	}
	if n := strings.Count(table, "✗ 484 of 1000 requests failed"); n != 2 {
		t.Errorf("SGLang's 484 failed requests said in %d rounds, want 2", n)
	}
	if n := strings.Count(table, `class="failed"`); n != 3 {
		t.Errorf("%d cells say requests failed, want 3", n)
	}
	opt := historyChartOption(t, page)
	found := 0
	for _, f := range opt.History.Failed {
		if f == stall {
			found++
		}
	}
	if found != 1 || len(opt.History.Failed) != 3 {
		t.Errorf("the chart's hover: failed %v; want %q once among 3", opt.History.Failed, stall)
	}
	// data.json's headline has the same counts: each round's every line.
	var data struct {
		Rounds []struct {
			Headline []struct {
				Experiment, Profile string
				Requests            *int `json:"requests"`
				Failed              *int `json:"failed_requests"`
			} `json:"headline"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	var said []string
	for ri, rd := range data.Rounds {
		for _, h := range rd.Headline {
			if (h.Requests == nil) != (h.Failed == nil) {
				t.Fatalf("round %d: %s/%s's headline has one of requests and failed_requests", ri, h.Experiment, h.Profile)
			}
			if h.Failed != nil { // present where any failed, as the history says it
				said = append(said, fmt.Sprintf("%d %s/%s ✗ %d of %d requests failed", ri, h.Experiment, h.Profile, *h.Failed, *h.Requests))
			}
		}
	}
	sort.Strings(said)
	if want := []string{"0 sglang-base/sharegpt ✗ 484 of 1000 requests failed", "1 sglang-base/sharegpt ✗ 484 of 1000 requests failed", "1 vllm-base/sharegpt " + stall}; !reflect.DeepEqual(said, want) {
		t.Errorf("data.json's failed requests: %q, want the history's %q", said, want)
	}
}

// TestInterruptedRoundOvertaken: a round whose collect was stopped before
// any run finished, then overtaken by a newer round, measured nothing:
// the history's chart and tables leave it out (a column of dashes read as
// missing data) and name it under the table; data.json lists it as
// interrupted, with no headline.
func TestInterruptedRoundOvertaken(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "results", "demo-h100")
	writeRound(t, camp, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T05:00:00Z", Campaign: "demo-h100"}, []*schema.Result{interrupted(fixtureRun(t, "vllm-base", "sharegpt"))})
	writeRound(t, camp, &schema.Round{ID: "2026-11-29", Start: "2026-11-29T05:00:00Z", Campaign: "demo-h100"}, fixtureResults())
	page, b := buildFixtureReport(t, dir)
	i, j := strings.Index(page, `<h2 id="history"`), strings.Index(page, `<h2 id="all-runs"`)
	if i < 0 || j < i {
		t.Fatal("no history section")
	}
	hist := page[i:j]
	if strings.Contains(hist, "Round 2026-11-28") || !strings.Contains(hist, "Round 2026-11-29") || !strings.Contains(hist, "over 2 rounds") {
		t.Errorf("the history's table shows round 2026-11-28 (or not 2026-11-29, or not 2 rounds):\n%s", hist)
	}
	if strings.Contains(hist, `<td title="not run in this round">–</td>`) {
		t.Error("the history's table has an empty cell")
	}
	const note = "Not shown: round 2026-11-28, interrupted before any run finished"
	if !strings.Contains(hist, note) {
		t.Errorf("the history does not say %q", note)
	}
	opt := historyChartOption(t, page)
	if len(opt.Dataset.Source) != 2 || len(opt.History.Rounds) != 2 || opt.History.Rounds[1][0] != "2026-11-29" {
		t.Errorf("history chart: %d rows, rounds %v; want 1 and 2026-11-29", len(opt.Dataset.Source), opt.History.Rounds)
	}
	var data struct {
		Rounds []struct {
			ID          string            `json:"id"`
			Interrupted bool              `json:"interrupted"`
			Headline    []json.RawMessage `json:"headline"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range data.Rounds {
		got = append(got, fmt.Sprintf("%s %v %d", r.ID, r.Interrupted, len(r.Headline)))
	}
	// 5 figures and the fixture's crashed sglang run (headlineData.NotOK).
	if want := []string{"1 false 6", "2026-11-28 true 0", "2026-11-29 false 6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("data.json rounds (id, interrupted, headline figures): %q, want %q", got, want)
	}
}

// writeRound makes round rec of the campaign results directory camp,
// holding results, each in the file collect names its run; it returns
// the round's directory.
func writeRound(t *testing.T, camp string, rec *schema.Round, results []*schema.Result) string {
	t.Helper()
	rd, err := schema.CreateRound(camp, rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := schema.WriteFile(filepath.Join(rd.Dir, r.Experiment+"--"+r.Profile+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	return rd.Dir
}

// buildFixtureReport builds the fixture site copied to dir into dir/site
// and returns its report's page and data.json.
func buildFixtureReport(t *testing.T, dir string) (page string, dataJSON []byte) {
	t.Helper()
	out := filepath.Join(dir, "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "demo", "h100", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if dataJSON, err = os.ReadFile(filepath.Join(out, "demo", "h100", "data.json")); err != nil {
		t.Fatal(err)
	}
	return string(b), dataJSON
}

// withoutHistory is a report's page less its History section (which
// shows every round), up to the All Runs section.
func withoutHistory(t *testing.T, page string) string {
	t.Helper()
	if i := strings.Index(page, `<h2 id="history"`); i >= 0 {
		j := strings.Index(page, `<h2 id="all-runs"`)
		if j < i {
			t.Fatal("no All Runs section after History")
		}
		page = page[:i] + page[j:]
	}
	return page
}

// TestOlderRoundStrict: a result of an older round with a field of the
// wrong type inside its requests is the build's error naming the file,
// line and field, as it is in the latest round (the older round's decode
// passed its requests over and showed the result without them).
func TestOlderRoundStrict(t *testing.T) {
	for _, older := range []bool{false, true} {
		dir := copyFixture(t)
		camp := filepath.Join(dir, "results", "demo-h100")
		rd := writeRound(t, camp, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T05:00:00Z", Campaign: "demo-h100"}, fixtureResults())
		f := filepath.Join(rd, "vllm-base--long.json") // the latest round's
		if older {
			f = filepath.Join(camp, "vllm-base--long.json") // round 1's
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["requests"] = []any{map[string]any{"index": 0, "output_tokens": "sixteen", "success": true}}
		if b, err = json.MarshalIndent(m, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err = Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")})
		t.Logf("older round %v: %v", older, err)
		if err == nil || !strings.Contains(err.Error(), "vllm-base--long.json:") || !strings.Contains(err.Error(), "requests.output_tokens") {
			t.Errorf("older round %v: build error %v; want one naming the file, line and requests.output_tokens", older, err)
		}
	}
}
