package sweep

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
)

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		in   string
		want []float64
		err  string
	}{
		{Concurrency, "1,8,64", []float64{1, 8, 64}, ""},
		{Concurrency, " 4 , 2", []float64{4, 2}, ""},
		{Concurrency, "1,,2", nil, "empty item"},
		{Concurrency, "0", nil, "not a whole number ≥ 1"},
		{Concurrency, "2.5", nil, "not a whole number"},
		{Rate, "1,10,inf", []float64{1, 10, math.Inf(1)}, ""},
		{Rate, "0.5", []float64{0.5}, ""},
		{Rate, "-1", nil, "positive number or inf"},
		{Rate, "inf,INF", nil, "appears twice"},
	} {
		got, err := ParseList(tc.kind, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want %q", tc.kind, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s %q: %v %v", tc.kind, tc.in, got, err)
			continue
		}
		for i := range got {
			if got[i].Value != tc.want[i] || got[i].Kind != tc.kind {
				t.Errorf("%s %q: %v", tc.kind, tc.in, got)
			}
		}
	}
	if s := (Point{Rate, math.Inf(1)}).String(); s != "rate=inf" {
		t.Errorf("%q", s)
	}
}

// sum is a summary with the given output throughput, median TPOT and P99
// TTFT.
func sum(out, tpotMedian, ttftP99 float64, goodput *float64) *schema.Summary {
	return &schema.Summary{
		RequestThroughput: out / 100, OutputThroughput: out, TotalTokenThroughput: out * 2, RequestGoodput: goodput,
		TTFT: &schema.Stats{MedianMs: schema.F(ttftP99 / 2), Percentiles: []schema.Percentile{{P: 99, ValueMs: ttftP99}}},
		TPOT: &schema.Stats{MedianMs: schema.F(tpotMedian), Percentiles: []schema.Percentile{{P: 99, ValueMs: tpotMedian * 1.5}}},
	}
}

func TestWriteTableMarks(t *testing.T) {
	rows := []Row{
		{Point{Concurrency, 1}, []*schema.Summary{sum(100, 10, 50, schema.F(1))}},
		{Point{Concurrency, 8}, []*schema.Summary{sum(700, 12, 150, schema.F(6)), sum(760, 12, 170, schema.F(7))}},
		{Point{Concurrency, 64}, []*schema.Summary{sum(3000, 25, 900, schema.F(4))}},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows, TableOptions{SLO: schema.SLO{"ttft_p99": 200}, Goodput: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Best throughput: c=64 (3000.00 output tok/s)",
		"Best within SLO ttft_p99:200: c=8 (730.00 output tok/s)", // the mean of its two runs
		"no: ttft_p99 900.00 > 200.00",
		" 83.33 ", // c=8: tok/s/user = 1000/12
		"  6.50 ", // c=8: mean goodput
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if mk := Mark(rows, TableOptions{Goodput: true}); mk.BestGoodput != 1 || mk.BestWithinSLO != -1 || mk.BestThroughput != 2 {
		t.Errorf("goodput marks %+v", mk)
	}
	// An SLO nobody meets: said so.
	b.Reset()
	_ = WriteTable(&b, rows, TableOptions{SLO: schema.SLO{"ttft_p99": 10}})
	if !strings.Contains(b.String(), "none of the points meets it") {
		t.Errorf("%s", b.String())
	}
}

// TestMeetsSLOFailedRequests: a point whose requests partly failed does
// not meet the SLO, however fast the ones that succeeded were (an
// overloaded server dropping requests would otherwise be "within SLO").
func TestMeetsSLOFailedRequests(t *testing.T) {
	fast := sum(3000, 10, 50, nil)
	fast.Completed, fast.Failed = 60, 4
	ok, why := Row{Point{Concurrency, 64}, []*schema.Summary{sum(2900, 10, 50, nil), fast}}.MeetsSLO(schema.SLO{"ttft_p99": 200})
	if ok || why != "4 of 64 requests failed" {
		t.Errorf("MeetsSLO = %v, %q; want false, \"4 of 64 requests failed\"", ok, why)
	}
}

func TestWriteRepeats(t *testing.T) {
	runs := []*schema.Summary{sum(90, 10, 50, nil), sum(100, 10, 50, nil), sum(110, 10, 50, nil)}
	var b bytes.Buffer
	if err := WriteRepeats(&b, runs, nil); err != nil {
		t.Fatal(err)
	}
	// mean 100, sample std 10, CV 10 %
	if !strings.Contains(squash(b.String()), "Output token throughput (tok/s) 100.00 10.00 90.00 110.00 10.00%") {
		t.Errorf("%s", b.String())
	}
	if strings.Contains(b.String(), "goodput") {
		t.Errorf("goodput listed without being recorded:\n%s", b.String())
	}
}

// writeVLLM writes summaries as vLLM JSON records (JSON lines when
// several).
func writeVLLM(t *testing.T, path string, sums ...*schema.Summary) {
	t.Helper()
	var buf bytes.Buffer
	for i, s := range sums {
		if i > 0 {
			buf.WriteByte('\n')
		}
		h := metrics.VLLMHeader{Date: "20261124-000000", Backend: "openai", ModelID: "m", NumPrompts: 10}
		if err := metrics.WriteVLLMJSON(&buf, nil, s, h, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadSide(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	// a run saved twice: its vLLM JSON and its perflab result
	writeVLLM(t, p("a1.json"), sum(100, 10, 50, nil))
	res := &schema.Result{ID: "a1", Status: schema.StatusOK, Summary: sum(100, 10, 50, nil),
		Artifacts: []schema.Artifact{{Kind: "vllm-json", Path: "a1.json"}}}
	if err := schema.WriteFile(p("a1.perflab.json"), res); err != nil {
		t.Fatal(err)
	}
	// two runs appended as JSON lines
	writeVLLM(t, p("a2.json"), sum(110, 10, 50, nil), sum(120, 10, 50, nil))

	side, err := ReadSide(filepath.Join(dir, "a*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Runs) != 3 || len(side.Skipped) != 1 || side.Skipped[0] != p("a1.json") {
		t.Errorf("runs %d skipped %v, want 3 runs and a1.json skipped", len(side.Runs), side.Skipped)
	}
	// an interrupted run (a Ctrl-C'd sweep point) and its vLLM JSON are
	// left out, and the header says so
	writeVLLM(t, p("a3.json"), sum(10, 10, 50, nil))
	part := &schema.Result{ID: "a3", Status: schema.StatusInterrupted, Error: "interrupted", Summary: sum(10, 10, 50, nil),
		Artifacts: []schema.Artifact{{Kind: "vllm-json", Path: "a3.json"}}}
	if err := schema.WriteFile(p("a3.perflab.json"), part); err != nil {
		t.Fatal(err)
	}
	side, err = ReadSide(filepath.Join(dir, "a*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Runs) != 3 || len(side.LeftOut) != 1 || side.LeftOut[0] != p("a3.perflab.json")+" (interrupted)" {
		t.Errorf("runs %d left out %v, want 3 runs and a3.perflab.json left out", len(side.Runs), side.LeftOut)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, side, side, nil); err != nil || !strings.Contains(b.String(), "left out, not finished: "+p("a3.perflab.json")+" (interrupted)") {
		t.Errorf("compare header does not name the left-out run (%v):\n%s", err, b.String())
	}
	if _, err := ReadSide(p("a3.perflab.json")); err == nil || !strings.Contains(err.Error(), "no finished run") {
		t.Errorf("only an interrupted run: %v", err)
	}
	side, err = ReadSide(p("a1.json") + "," + p("a2.json"))
	if err != nil || len(side.Runs) != 3 {
		t.Errorf("list: %d runs, %v", len(side.Runs), err)
	}
	for spec, want := range map[string]string{
		p("none*.json"):     "matches no file",
		p("missing.json"):   "no such file",
		p("a1.json") + ",,": "empty file name",
	} {
		if _, err := ReadSide(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
	if err := os.WriteFile(p("bad.json"), []byte("{\"completed\": "), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSide(p("bad.json")); err == nil || !strings.Contains(err.Error(), "bad.json:1") {
		t.Errorf("truncated JSON: %v", err)
	}
}

// TestReadSideMixed: a side whose runs differ in concurrency or model
// (a glob over a whole sweep, say) is flagged, and the comparison warns.
func TestReadSideMixed(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []int{8, 8, 16} {
		r := &schema.Result{ID: fmt.Sprint("r", i), Status: schema.StatusOK, Model: schema.Model{ID: "m"},
			Load: schema.Load{MaxConcurrency: c}, Summary: sum(100, 10, 50, nil)}
		if err := schema.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.json", i)), r); err != nil {
			t.Fatal(err)
		}
	}
	side, err := ReadSide(filepath.Join(dir, "r[01].json"))
	if err != nil || len(side.Mixed) != 0 {
		t.Errorf("repeats of one configuration: mixed %v, err %v", side.Mixed, err)
	}
	side, err = ReadSide(filepath.Join(dir, "r*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Mixed) != 1 || side.Mixed[0] != "max_concurrency 8, 16" {
		t.Errorf("mixed %q, want max_concurrency 8, 16", side.Mixed)
	}
	rate := &schema.Result{ID: "r3", Status: schema.StatusOK, Model: schema.Model{ID: "m"},
		Load: schema.Load{MaxConcurrency: 8, RequestRate: 20}, Summary: sum(100, 10, 50, nil)}
	if err := schema.WriteFile(filepath.Join(dir, "r3.json"), rate); err != nil {
		t.Fatal(err)
	}
	if side, err := ReadSide(filepath.Join(dir, "r[03].json")); err != nil || len(side.Mixed) != 1 || side.Mixed[0] != "request_rate inf, 20" {
		t.Errorf("rates: mixed %q, err %v", side.Mixed, err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, side, side, nil); err != nil || !strings.Contains(b.String(), "warning: old's runs differ in max_concurrency 8, 16") {
		t.Errorf("no warning (%v):\n%s", err, b.String())
	}
}

func TestWriteCompare(t *testing.T) {
	old := Side{Spec: "old", Files: []string{"o"}, Runs: []*schema.Summary{sum(100, 10, 50, nil), sum(101, 10, 50, nil), sum(99, 10, 50, nil), sum(100.5, 10, 50, nil)}}
	new := Side{Spec: "new", Files: []string{"n"}, Runs: []*schema.Summary{sum(120, 9, 50, nil), sum(121, 9, 50, nil), sum(119, 9, 50, nil), sum(120.5, 9, 50, nil)}}
	var b bytes.Buffer
	if err := WriteCompare(&b, old, new, nil); err != nil {
		t.Fatal(err)
	}
	out := squash(b.String())
	for _, want := range []string{
		"old: old (4 runs from 1 file)",
		"Output token throughput (tok/s) 100.12 ± 1% 120.12 ± 1% +19.98% (p=0.029 n=4+4) better",
		"Median TPOT (ms) 10.00 ± 0% 9.00 ± 0% -10.00% (p=0.029 n=4+4) better",
		"P99 TTFT (ms) 50.00 ± 0% 50.00 ± 0% ~ (p=1.000 n=4+4)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	_ = WriteCompare(&b, Side{Spec: "a", Files: []string{"a"}, Runs: old.Runs[:1]}, Side{Spec: "b", Files: []string{"b"}, Runs: new.Runs[:1]}, nil)
	if !strings.Contains(squash(b.String()), "+20.00% (1 run each)") {
		t.Errorf("single runs:\n%s", b.String())
	}
}

// squash collapses runs of spaces (the tables' padding) to one.
func squash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
