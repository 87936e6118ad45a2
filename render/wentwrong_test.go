package render

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// wentWrongRound writes round n (2 to 6) of the fixture's campaign: its
// results, vllm-base/sharegpt's crashed in round 4 and failed (none of
// its requests completed) in round 5.
func wentWrongRound(t *testing.T, camp string, n int) {
	t.Helper()
	id := "2026-11-2" + string(rune('0'+n))
	results := fixtureResults()
	for _, r := range results {
		if r.Experiment != "vllm-base" || r.Profile != "sharegpt" {
			continue
		}
		switch n {
		case 4:
			r.Status, r.Error, r.Summary = schema.StatusCrashed, "engine exited (code 137) before the benchmark ended", nil
		case 5:
			r.Summary.Failed, r.Summary.Completed = 1000, 0
		}
	}
	writeRound(t, camp, &schema.Round{ID: id, Start: id + "T05:00:00Z", Campaign: "demo-h100"}, results)
}

// historyRow is the cells of the history table's row labelled label.
func historyRow(t *testing.T, page, label string) []string {
	t.Helper()
	i, j := strings.Index(page, `<h2 id="history"`), strings.Index(page, `<h2 id="all-runs"`)
	if i < 0 || j < i {
		t.Fatal("no history section")
	}
	hist := page[i:j]
	k := strings.Index(hist, "<tr><td>"+label+"</td>")
	if k < 0 {
		t.Fatalf("no history row %q", label)
	}
	row := hist[k:]
	row = row[:strings.Index(row, "</tr>")]
	var cells []string
	for _, m := range regexp.MustCompile(`<td([^>]*)>(.*?)</td>`).FindAllStringSubmatch(row, -1)[1:] {
		cells = append(cells, strings.TrimSpace(m[1]+" "+m[2]))
	}
	return cells
}

// TestHistoryWentWrong: a configuration whose runs crashed in round 4
// and failed in round 5 of 6 is shown so in those rounds' history cells
// (not "–", which a round that did not run it shows), marked on its
// chart line, listed with its statuses in data.json's headline, and,
// while the crash is the latest round's, listed on the home page as a
// regression; its change points are sought in its figures alone.
func TestHistoryWentWrong(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "results", "demo-h100")
	for n := 2; n <= 4; n++ {
		wentWrongRound(t, camp, n)
	}
	buildFixtureReport(t, dir)
	home, err := os.ReadFile(filepath.Join(dir, "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	const item = "vLLM / ShareGPT, crashed in round 2026-11-24 after a result in round 2026-11-23 (Regression)"
	if !strings.Contains(string(home), item) {
		t.Errorf("round 4's home page does not list %q:\n%s", item, home)
	}

	for n := 5; n <= 6; n++ {
		wentWrongRound(t, camp, n)
	}
	page, b := buildFixtureReport(t, dir)
	if home, err = os.ReadFile(filepath.Join(dir, "site", "index.html")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(home), "crashed in round") || strings.Contains(string(home), "Regressions and improvements") {
		t.Error("round 6's home page lists the crash of round 4 (round 6 ran it well again)")
	}
	got := historyRow(t, page, "vLLM / ShareGPT")
	want := []string{"1176.4", "1176.4", "1176.4", `class="went-wrong" crashed`, `class="went-wrong" failed (1000 of 1000 requests)`, "1176.4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history row:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(page, "No change points") {
		t.Error("the history flags a change point: rounds 4 and 5 are no value of the series")
	}

	opt := historyChartOption(t, page)
	var marks []string
	for _, s := range opt.Series {
		if s.MarkPoint == nil {
			continue
		}
		var mp struct {
			Data []struct {
				Name   string `json:"name"`
				Value  string `json:"value"`
				Symbol string `json:"symbol"`
				Coord  []any  `json:"coord"`
			} `json:"data"`
		}
		raw, _ := json.Marshal(s.MarkPoint)
		if err := json.Unmarshal(raw, &mp); err != nil {
			t.Fatal(err)
		}
		for _, d := range mp.Data {
			marks = append(marks, s.Name+": "+d.Value+" "+d.Symbol+" "+d.Name)
		}
	}
	wantMarks := []string{
		"vLLM / ShareGPT: crashed triangle round 2026-11-24: crashed",
		"vLLM / ShareGPT: failed triangle round 2026-11-25: failed (1000 of 1000 requests)",
	}
	if !reflect.DeepEqual(marks, wantMarks) {
		t.Errorf("chart marks %q, want %q", marks, wantMarks)
	}

	var data struct {
		Rounds []struct {
			ID       string `json:"id"`
			Headline []struct {
				Experiment string          `json:"experiment"`
				Profile    string          `json:"profile"`
				Values     []float64       `json:"total_token_throughput_per_gpu"`
				Failed     int             `json:"failed_requests"`
				Requests   int             `json:"requests"`
				NotOK      []schema.Status `json:"not_ok"`
			} `json:"headline"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, rd := range data.Rounds {
		for _, h := range rd.Headline {
			if h.Experiment == "vllm-base" && h.Profile == "sharegpt" {
				said = append(said, rd.ID+" "+strings.TrimSpace(strings.Trim(jsonOf(t, h.Values), "[]")+" "+strings.Join(statuses(h.NotOK), ","))+" "+jsonOf(t, [2]int{h.Failed, h.Requests}))
			}
		}
	}
	wantData := []string{"1 1176.41 [0,0]", "2026-11-22 1176.41 [0,0]", "2026-11-23 1176.41 [0,0]", "2026-11-24 crashed [0,0]",
		"2026-11-25 failed [1000,1000]", "2026-11-26 1176.41 [0,0]"}
	if !reflect.DeepEqual(said, wantData) {
		t.Errorf("data.json's vllm-base/sharegpt headline:\n got %q\nwant %q", said, wantData)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func statuses(ss []schema.Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}
