package blocks

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// TestHistoryChartX: x is a category axis of the rounds in their
// order, each labelled by its id and date. A review found a time axis
// piling 12 rounds of one day into a spike at the right edge when two
// rounds were dated a year before, rounds started in the same second at
// one x, and a round re-dated later than the next drawn backwards.
func TestHistoryChartX(t *testing.T) {
	res := func(start string) []*schema.Result {
		return []*schema.Result{{Experiment: "e", Profile: "p", Status: schema.StatusOK, Start: start, Summary: &schema.Summary{Completed: 1, TotalTokenThroughput: 100}}}
	}
	r := &Report{Campaign: &schema.Campaign{Hardware: schema.HardwareSpec{Count: 1}, Profiles: []schema.Profile{{ID: "p", Name: "P"}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{{ID: "e", Name: "E"}}}}}}
	r.Rounds = []site.RoundResults{{ID: "1", Results: res("2026-11-27T23:52:06Z")},
		{ID: "v0.10", Record: &schema.Round{ID: "v0.10", Start: "2025-05-01T00:00:00Z"}, Results: res("")},
		{ID: "v0.11", Record: &schema.Round{ID: "v0.11", Start: "2025-05-01T00:00:00Z"}, Results: res("")},
		{ID: "2026-11-28.2", Record: &schema.Round{ID: "2026-11-28.2", Start: "2026-11-28T02:00:00Z"}, Results: res("")}}
	h := historyOf(r)
	b, err := historyChart(r, "h", h.rounds, h.lines, h.changes).JSON()
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Dataset struct {
			Source [][]any `json:"source"`
		} `json:"dataset"`
		XAxis []map[string]any `json:"xAxis"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	var x []string
	for _, row := range o.Dataset.Source {
		x = append(x, row[0].(string))
	}
	want := []string{"1\n2026-11-27", "v0.10\n2025-05-01", "v0.11\n2025-05-01", "2026-11-28.2"}
	if o.XAxis[0]["type"] != "category" || strings.Join(x, " ") != strings.Join(want, " ") {
		t.Errorf("x axis %v, x %q; want a category axis, x %q", o.XAxis[0], x, want)
	}
}

// TestRoundEngineReported: a round's engine is the version its results
// report; a record's declared version (written by early rounds) is never
// shown as what ran, its image is.
func TestRoundEngineReported(t *testing.T) {
	rec := &schema.Round{ID: "2", Engines: []schema.RoundEngine{{Experiment: "e", Engine: "vllm", Version: "0.13.0", Image: "vllm/vllm-openai:v0.15.1"}}}
	res := func(v string) []*schema.Result {
		return []*schema.Result{{Experiment: "e", Engine: schema.Engine{Name: "vllm", Version: v}}}
	}
	for _, tc := range []struct{ reported, want string }{
		{"0.15.1", "vllm 0.15.1"},
		{"", "vllm vllm/vllm-openai:v0.15.1"},
	} {
		r := &Report{Rounds: []site.RoundResults{{ID: "2", Record: rec, Results: res(tc.reported)}}}
		if got := roundEngine(r, 0, "e"); got != tc.want {
			t.Errorf("reported %q: roundEngine = %q, want %q", tc.reported, got, tc.want)
		}
	}
}

// TestHistoryHeadingDate: a round's heading adds its date unless the id
// starts with it ("Round 2026-11-28 / 2026-11-28" said it twice).
func TestHistoryHeadingDate(t *testing.T) {
	for id, want := range map[string]string{"2026-11-28": "", "2026-11-28.2": "", "v0.13.0": "2026-11-28", "slurm-81234": "2026-11-28"} {
		rr := site.RoundResults{ID: id, Record: &schema.Round{ID: id, Start: "2026-11-28T05:00:00Z"}}
		if got := datedUnlessNamed(rr); got != want {
			t.Errorf("round %s: date %q, want %q", id, got, want)
		}
	}
}

// TestSpreadPct: a spread under 1 % keeps a decimal (a review read
// "± 0%" for 0.19 %); from 1 % up, whole per cent as before.
func TestSpreadPct(t *testing.T) {
	for _, c := range []struct {
		cv   float64
		want string
	}{{0.0019, "0.2"}, {0.0004, "0.0"}, {0.0094, "0.9"}, {0.0096, "1"}, {0.031, "3"}, {0.126, "13"}} {
		if got := spreadPct(c.cv); got != c.want {
			t.Errorf("spreadPct(%g) = %q, want %q", c.cv, got, c.want)
		}
	}
}

// historyReport is a report of one experiment on one profile over
// rounds whose runs measured vals[i] (one value a run) in round i.
func historyReport(vals ...[]float64) *Report {
	r := &Report{Campaign: &schema.Campaign{Hardware: schema.HardwareSpec{Count: 1}, Profiles: []schema.Profile{{ID: "p", Name: "P"}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{{ID: "e", Name: "E"}}}}}}
	for i, vs := range vals {
		var res []*schema.Result
		for _, v := range vs {
			res = append(res, &schema.Result{Experiment: "e", Profile: "p", Status: schema.StatusOK, Summary: &schema.Summary{Completed: 1, TotalTokenThroughput: v}})
		}
		id := strconv.Itoa(i + 1)
		r.Rounds = append(r.Rounds, site.RoundResults{ID: id, Record: &schema.Round{ID: id}, Results: res})
	}
	return r
}

// TestHistoryCoverage: where no change is found, the history says what
// was tested. A review read "no round differs from the one before beyond
// its runs' noise" under a 51 % drop in the 4th round of single runs,
// which no test could judge yet (3 rounds on each side), and under
// rounds of 3 repeats, which the U test cannot judge (4 a side).
func TestHistoryCoverage(t *testing.T) {
	one := func(vs ...float64) [][]float64 {
		var out [][]float64
		for _, v := range vs {
			out = append(out, []float64{v})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		rounds [][]float64
		none   string
		notes  []string
	}{
		{"4 single runs, the last halved", one(100, 101, 99, 50), "No change points could be tested yet.",
			[]string{"with 4 rounds so far, none of the configuration's rounds is judged yet"}},
		{"7 single runs, the last halved", one(100, 101, 99, 100, 102, 98, 50), "No change points among the rounds tested.",
			[]string{"rounds 4 to 5 were tested for one; rounds 6 and 7 will be judged as more rounds come"}},
		{"3 repeats", [][]float64{{100, 101, 99}, {50, 51, 49}}, "No change points could be tested yet.",
			[]string{"none of the configuration's rounds", "between rounds 1 → 2: those series were tested as single runs"}},
		{"4 repeats", [][]float64{{100, 101, 99, 100}, {100, 101, 99, 100}}, "No change points: no round differs from the one before beyond its runs' noise.", nil},
	} {
		r := historyReport(tc.rounds...)
		h := historyOf(r)
		if len(h.changes) != 0 {
			t.Fatalf("%s: changes %+v", tc.name, h.changes)
		}
		none, notes := historyCoverage(r, h)
		if none != tc.none || len(notes) < len(tc.notes) || len(tc.notes) == 0 && len(notes) > 0 {
			t.Errorf("%s: %q, notes %q; want %q", tc.name, none, notes, tc.none)
			continue
		}
		all := strings.Join(notes, " ")
		for _, want := range tc.notes {
			if !strings.Contains(all, want) {
				t.Errorf("%s: notes %q lack %q", tc.name, notes, want)
			}
		}
	}
}

// TestHistoryWorkloadChange: a campaign edit of the profile's workload
// between rounds (input_len 128 → 512 here) moves every figure of it; a
// review found it flagged as a change point and listed on the home page
// as a regression. The series is cut there instead: no change, the
// chart marks the round on its x axis, the table's note names it; a
// change after the edit is still found in the new workload's rounds.
func TestHistoryWorkloadChange(t *testing.T) {
	withInput := func(r *Report, from int, inputLen int) {
		for ri := from; ri < len(r.Rounds); ri++ {
			for _, res := range r.Rounds[ri].Results {
				res.Load.InputLen = inputLen
			}
		}
	}
	// Single runs, 4 rounds a side: binary segmentation would split at
	// round 5; repeats, 4 a side: the U test would flag round 2.
	single := historyReport([]float64{100}, []float64{101}, []float64{99}, []float64{100}, []float64{50}, []float64{51}, []float64{49}, []float64{50})
	withInput(single, 0, 128)
	withInput(single, 4, 512)
	repeats := historyReport([]float64{100, 101, 99, 100}, []float64{50, 51, 49, 50})
	withInput(repeats, 1, 512)
	for name, r := range map[string]*Report{"single runs": single, "repeats": repeats} {
		h := historyOf(r)
		if len(h.changes) != 0 {
			t.Errorf("%s: change points across the workload edit: %+v", name, h.changes)
		}
		edit := len(r.Rounds) / 2
		if got := workChangesText(r, h.lines, h.rounds); !strings.HasPrefix(got, "The workload of P changed in round "+r.Rounds[edit].ID+" ") {
			t.Errorf("%s: note %q", name, got)
		}
		b, err := historyChart(r, "h", h.rounds, h.lines, h.changes).JSON()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"workload of P"`) {
			t.Errorf("%s: the chart does not mark the workload change: %s", name, b)
		}
	}
	// A drop within the new workload's rounds is still a change point,
	// at its round.
	r := historyReport([]float64{100}, []float64{101}, []float64{50}, []float64{51}, []float64{49}, []float64{50}, []float64{25}, []float64{26}, []float64{24})
	withInput(r, 2, 512)
	h := historyOf(r)
	if len(h.changes) != 1 || h.changes[0].round != 6 || !h.changes[0].c.Latest {
		t.Errorf("a drop at round 7 after the edit at round 3: changes %+v", h.changes)
	}
}

// TestHistoryCampaignOrder: the history's lines follow the campaign's
// order (its experiments, then its profiles), as every other block
// does; they were sorted by id, putting the baseline last.
func TestHistoryCampaignOrder(t *testing.T) {
	r := &Report{Campaign: &schema.Campaign{Hardware: schema.HardwareSpec{Count: 1},
		Profiles: []schema.Profile{{ID: "short", Name: "Short"}, {ID: "long", Name: "Long"}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{{ID: "vllm", Name: "vLLM"}}},
			{ID: "t", Experiments: []schema.Experiment{{ID: "sglang", Name: "SGLang"}}}}}}
	var res []*schema.Result
	for _, e := range []string{"sglang", "vllm"} {
		for _, p := range []string{"long", "short"} {
			res = append(res, &schema.Result{Experiment: e, Profile: p, Status: schema.StatusOK, Summary: &schema.Summary{Completed: 1, TotalTokenThroughput: 100}})
		}
	}
	r.Rounds = []site.RoundResults{{ID: "1", Results: res}, {ID: "2", Results: res}}
	var got []string
	for _, l := range historyOf(r).lines {
		got = append(got, l.label())
	}
	want := []string{"vLLM / Short", "vLLM / Long", "SGLang / Short", "SGLang / Long"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("lines %q, want the campaign's order %q", got, want)
	}
}
