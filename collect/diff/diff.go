// Package diff compares two sets of results, benchstat's way: every run
// the two share (an experiment, profile and load point, its repeats
// pooled), each headline metric's mean ± CV on both sides, the change
// and whether it is real. It is computed once (Compare → Table) and
// written as text, Markdown or JSON.
//
// Significance: each run × metric is tested with the two-sided
// Mann-Whitney U test over the repeats (collect/stats.Compare, the test
// of the comparison tables), then the p-values of every tested
// comparison of the diff are adjusted together with Benjamini-Hochberg
// (stats.BenjaminiHochberg): a change is significant when its adjusted
// p-value (q) is at most stats.Alpha. When nothing changed at all, the
// chance that any comparison comes out significant is then at most
// Alpha, however many runs and metrics are compared, so a CI gate on two
// rounds of an unchanged configuration fails in at most 5 % of tries;
// when something did change, at most 5 % of what is flagged is expected
// to be false. The metrics of one run are positively correlated (a
// slower decode step raises TPOT, ITL and E2EL together), the dependence
// under which Benjamini-Hochberg keeps its guarantee.
//
// Size: two rounds run on different days differ by more than their
// repeats do (a busy neighbour, a warmer GPU, a new driver), and a U test
// over the repeats calls such a shift significant whatever its size, as
// soon as the ranks separate. A change is therefore also required to be
// at least MinEffect times the repeats' pooled standard deviation (the
// standardised effect size d); a significant change below that prints
// "~" with its d. The rule scales with each run's own noise: it is not a
// fixed percentage.
//
// With too few repeats the U test cannot reach Alpha (stats.MinP: four
// runs a side, or 3+5): such rows show the change and say so, and are
// never significant. A single run per side is never a regression.
package diff

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// MinEffect is the smallest change reported, in pooled standard
// deviations of the repeats (stats.MinEffect).
const MinEffect = stats.MinEffect

// Effect is the standardised size of a change (stats.Effect).
func Effect(d stats.Delta) float64 { return stats.Effect(d) }

// Metric is a figure of a run's summary that a diff compares.
type Metric struct {
	// Key is its name in JSON (units in the key), Name its label.
	Key, Name, Unit string
	// HigherIsBetter: throughput. Latencies are better lower.
	HigherIsBetter bool
	// Value reads it from a summary, NaN when the run did not record it.
	Value func(*schema.Summary) float64
}

func median(s *schema.Stats) float64 {
	if s == nil || s.MedianMs == nil {
		return math.NaN()
	}
	return *s.MedianMs
}

// Metrics are the figures compared, in order.
var Metrics = []Metric{
	{"output_tok_per_s", "output throughput", "tok/s", true, func(s *schema.Summary) float64 { return s.OutputThroughput }},
	{"total_tok_per_s", "total throughput", "tok/s", true, func(s *schema.Summary) float64 { return s.TotalTokenThroughput }},
	{"ttft_p50_ms", "median TTFT", "ms", false, func(s *schema.Summary) float64 { return median(s.TTFT) }},
	{"tpot_p50_ms", "median TPOT", "ms", false, func(s *schema.Summary) float64 { return median(s.TPOT) }},
	{"itl_p50_ms", "median ITL", "ms", false, func(s *schema.Summary) float64 { return median(s.ITL) }},
	{"e2el_p50_ms", "median E2E latency", "ms", false, func(s *schema.Summary) float64 { return median(s.E2EL) }},
}

// Side is one side of a diff: its name (a round, a directory, a file)
// and its results grouped by run.
type Side struct {
	Name string
	// File: the side is one file (a result, a benchmark output). Two
	// files of one run each are compared whatever their runs' names (one
	// configuration before and after an upgrade); two directories or
	// rounds are matched by run only.
	File bool
	runs map[string][]*schema.Result
	keys []string // sorted
	// Campaigns are the campaign ids its results name, sorted.
	Campaigns []string
	// Engines are the engines and versions its results report
	// ("vllm 0.13.0"), sorted: what ran, read from the results (a
	// round's record holds none, so the two cannot disagree).
	Engines []string
	// failed holds the status of the runs with no ok result (crashed,
	// failed): nothing to compare, but not absent either.
	failed map[string]string
}

// RunKey is what matches a result with its counterpart on the other
// side: experiment/profile and the load point of a sweep
// ("small-batch/chat c=8"); a result outside a campaign goes by its
// label, else its id.
func RunKey(r *schema.Result) string {
	if r.Experiment == "" && r.Profile == "" {
		if r.Label != "" {
			return r.Label
		}
		return r.ID
	}
	k := r.Experiment + "/" + r.Profile
	switch pt := schema.PointOf(r.Load); pt.Sweep {
	case schema.SweepConcurrency:
		k += fmt.Sprintf(" c=%g", pt.Value)
	case schema.SweepRate:
		k += " rate=" + strings.TrimPrefix(pt.Slug(), "rate")
	}
	return k
}

// NewSide groups results by run (RunKey); repeats of a run pool into one
// sample. Runs that did not finish ok, or have no summary, are left out:
// a crash has no numbers to compare.
func NewSide(name string, rs []*schema.Result) Side {
	s := Side{Name: name, runs: map[string][]*schema.Result{}, failed: map[string]string{}}
	seen, seenEngine := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		if r.Campaign != "" && !seen[r.Campaign] {
			seen[r.Campaign] = true
			s.Campaigns = append(s.Campaigns, r.Campaign)
		}
		if e := strings.TrimSpace(r.Engine.Name + " " + r.Engine.Version); r.Engine.Version != "" && !seenEngine[e] {
			seenEngine[e] = true
			s.Engines = append(s.Engines, e)
		}
		// A run whose every request failed measured no latency: its
		// zeros (vLLM writes 0 ms) are not a 100 % improvement.
		noneDone := r.Summary != nil && r.Summary.Completed == 0 && r.Summary.Failed > 0
		if r.Status != schema.StatusOK || r.Summary == nil || noneDone {
			if _, ok := s.failed[RunKey(r)]; !ok {
				st := string(r.Status)
				switch {
				case r.Status != schema.StatusOK:
				case noneDone:
					st = fmt.Sprintf("all %d requests failed", r.Summary.Failed)
				default:
					st = "no summary"
				}
				s.failed[RunKey(r)] = st
			}
			continue
		}
		k := RunKey(r)
		if _, ok := s.runs[k]; !ok {
			s.keys = append(s.keys, k)
		}
		s.runs[k] = append(s.runs[k], r)
	}
	for k := range s.runs {
		delete(s.failed, k) // some repeats finished: compared on those
	}
	sort.Strings(s.Campaigns)
	sort.Strings(s.Engines)
	sort.SliceStable(s.keys, func(i, j int) bool { return runLess(s.runs[s.keys[i]][0], s.runs[s.keys[j]][0]) })
	return s
}

// runLess orders runs by experiment, profile and load (c=8 before c=32).
func runLess(a, b *schema.Result) bool {
	if a.Experiment != b.Experiment {
		return a.Experiment < b.Experiment
	}
	if a.Profile != b.Profile {
		return a.Profile < b.Profile
	}
	pa, pb := schema.PointOf(a.Load), schema.PointOf(b.Load)
	if pa.Sweep != pb.Sweep {
		return pa.Sweep < pb.Sweep
	}
	if la, lb := pointLoad(pa), pointLoad(pb); la != lb {
		return la < lb
	}
	return RunKey(a) < RunKey(b)
}

// pointLoad orders points: a rate of 0 (inf) is the highest.
func pointLoad(pt schema.Point) float64 {
	if pt.Sweep == schema.SweepRate && pt.Value == 0 {
		return math.Inf(1)
	}
	return pt.Value
}

// Runs is the number of runs (not results) on the side.
func (s Side) Runs() int { return len(s.keys) }

// Row is one run × metric.
type Row struct {
	Run    string
	Metric Metric
	stats.Delta
	// Q is P adjusted for the number of comparisons (Benjamini-Hochberg
	// over the tested rows); 1 for a row not tested. Effect is the
	// change's standardised size (Effect).
	Q, Effect float64
	// Significant: tested, Q ≤ stats.Alpha and |Effect| ≥ MinEffect.
	// Better and Worse say which
	// way a significant change goes; Regression is Worse by more than the
	// table's margin.
	Significant, Better, Worse, Regression bool
}

// Table is a diff.
type Table struct {
	Old, New string
	// OldEngines and NewEngines are the engine versions each side's
	// results report (Side.Engines).
	OldEngines, NewEngines []string
	Rows                   []Row
	// OnlyOld and OnlyNew are the runs found on one side only.
	OnlyOld, OnlyNew []string
	// FailedNew are the runs OLD finished ok that NEW holds no ok result
	// of, only crashed or failed ones ("a/chat c=4 (crashed)"): the worst
	// regression there is, and a gate's failure (Gate).
	FailedNew []string
	// FailedRequests are the runs compared whose requests failed on
	// either side ("a/chat c=4: none → 37 of 6000"), and
	// NewFailures those of them whose share of failed requests is
	// significantly higher in NEW: a gate's failure, which the latency
	// and throughput of the requests that did finish do not show. The
	// test is Fisher's exact test, one-sided (stats.FisherGreater), its
	// p-values adjusted together over the runs listed (Benjamini-Hochberg,
	// as the metrics' are) and held to stats.Alpha: one request that
	// failed in 6,000 (p = 0.5) is an engine's occasional drop, not a
	// gate's failure; 15 in 500 against none (p < 0.0001) is.
	FailedRequests, NewFailures []string
	// OneSided are the metrics of a run compared that one side did not
	// record ("run/run median TPOT (old only)", a vllm bench serve run
	// with other --percentile-metrics): not compared, nor gated.
	OneSided []string
	// OtherLoad are the runs compared whose two sides ran a different
	// load ("run/run: max_concurrency 16 → 64"): two outputs of vllm
	// bench serve, each one run, are paired whatever their load, and a
	// run of a campaign whose profile changed keeps its name.
	OtherLoad []string
	// OtherWorkload are the shared runs that perflab collect measured on
	// two workloads ("vllm/short: input_len 128 → 512"): the campaign
	// changed the profile between the sides, so their changes are not
	// the engines' (WorkloadChange).
	OtherWorkload []string
	// Tests is the number of comparisons tested (the Benjamini-Hochberg
	// family); MarginPct the regression margin.
	Tests     int
	MarginPct float64
	// Gated is set by a caller that gates on the table (--fail-on): the
	// Markdown summary then gives the gate's verdict, not what a gate
	// would decide.
	Gated bool
}

// Compare diffs new against old. A regression is a significant change
// for the worse by more than marginPct percent (0: any). When each side
// is a file holding a single run under different names (one
// configuration before and after an upgrade), the two are compared.
func Compare(old, new Side, marginPct float64) *Table {
	t := &Table{Old: old.Name, New: new.Name, OldEngines: old.Engines, NewEngines: new.Engines, MarginPct: marginPct}
	type pair struct{ name, o, n string }
	var pairs []pair
	if old.File && new.File && len(old.keys) == 1 && len(new.keys) == 1 && old.keys[0] != new.keys[0] {
		pairs = append(pairs, pair{old.keys[0] + " → " + new.keys[0], old.keys[0], new.keys[0]})
	} else {
		for _, k := range old.keys {
			if _, ok := new.runs[k]; ok {
				pairs = append(pairs, pair{k, k, k})
			} else if st, ok := new.failed[k]; ok {
				t.FailedNew = append(t.FailedNew, k+" ("+st+")")
			} else {
				t.OnlyOld = append(t.OnlyOld, k)
			}
		}
		for _, k := range new.keys {
			if _, ok := old.runs[k]; !ok {
				t.OnlyNew = append(t.OnlyNew, k)
			}
		}
	}
	failed := func(rs []*schema.Result) (n, of int) {
		for _, r := range rs {
			n += r.Summary.Failed
			of += r.Summary.Failed + r.Summary.Completed
		}
		return n, of
	}
	for _, p := range pairs {
		if d := loadDiff(old.runs[p.o][0].Load, new.runs[p.n][0].Load); d != "" {
			t.OtherLoad = append(t.OtherLoad, p.name+": "+d)
		}
	}
	var failP []float64
	for _, p := range pairs {
		fo, oo := failed(old.runs[p.o])
		fn, on := failed(new.runs[p.n])
		if fo == 0 && fn == 0 {
			continue
		}
		of := func(n, all int) string {
			if n == 0 {
				return "none"
			}
			return fmt.Sprintf("%d of %d", n, all)
		}
		t.FailedRequests = append(t.FailedRequests, p.name+": "+of(fo, oo)+" → "+of(fn, on))
		failP = append(failP, stats.FisherGreater(fn, on, fo, oo))
	}
	for i, q := range stats.BenjaminiHochberg(failP) {
		if q <= stats.Alpha {
			t.NewFailures = append(t.NewFailures, t.FailedRequests[i])
		}
	}
	for _, p := range pairs {
		if w := WorkloadChange(old.runs[p.o][0], new.runs[p.n][0]); w != "" {
			t.OtherWorkload = append(t.OtherWorkload, p.name+": "+w)
		}
	}
	values := func(rs []*schema.Result, m Metric) []float64 {
		out := make([]float64, 0, len(rs))
		for _, r := range rs {
			out = append(out, m.Value(r.Summary))
		}
		return out
	}
	var ps []float64
	var tested []int
	for _, m := range Metrics {
		for _, p := range pairs {
			d := stats.Compare(values(old.runs[p.o], m), values(new.runs[p.n], m))
			if d.Old.N == 0 || d.New.N == 0 {
				// A metric neither side recorded (text imports) is
				// nothing; one side's only is said: it is not gated.
				if d.Old.N > 0 {
					t.OneSided = append(t.OneSided, p.name+" "+m.Name+" (old only)")
				} else if d.New.N > 0 {
					t.OneSided = append(t.OneSided, p.name+" "+m.Name+" (new only)")
				}
				continue
			}
			t.Rows = append(t.Rows, Row{Run: p.name, Metric: m, Delta: d, Q: 1})
			if d.Tested {
				ps = append(ps, d.P)
				tested = append(tested, len(t.Rows)-1)
			}
		}
	}
	t.Tests = len(ps)
	for i, q := range stats.BenjaminiHochberg(ps) {
		r := &t.Rows[tested[i]]
		r.Q = q
		r.Effect = Effect(r.Delta)
		r.Significant = q <= stats.Alpha && math.Abs(r.Effect) >= MinEffect && !math.IsNaN(r.Pct)
		if r.Significant {
			up := r.Pct > 0
			r.Better = up == r.Metric.HigherIsBetter
			r.Worse = !r.Better
			r.Regression = r.Worse && math.Abs(r.Pct) > marginPct
		}
	}
	return t
}

// loadDiff names the load fields that differ between a and b
// ("max_concurrency 16 → 64, input_len 1024 → 2048"), "" when none do.
func loadDiff(a, b schema.Load) string {
	var out []string
	add := func(name string, x, y any) {
		if x != y {
			out = append(out, fmt.Sprintf("%s %v → %v", name, x, y))
		}
	}
	rate := func(r float64) any {
		if r == 0 || math.IsInf(r, 1) {
			return "inf"
		}
		return r
	}
	add("max_concurrency", a.MaxConcurrency, b.MaxConcurrency)
	add("request_rate", rate(a.RequestRate), rate(b.RequestRate))
	add("dataset", a.Dataset, b.Dataset)
	add("input_len", a.InputLen, b.InputLen)
	add("output_len", a.OutputLen, b.OutputLen)
	return strings.Join(out, ", ")
}

// Regressions returns the rows that are regressions beyond the margin.
func (t *Table) Regressions() []Row {
	var out []Row
	for _, r := range t.Rows {
		if r.Regression {
			out = append(out, r)
		}
	}
	return out
}

// Gate is what fails a regression gate: the regressions beyond the
// margin, the runs that finished in OLD and crashed or failed in NEW, and
// the runs whose share of failed requests rose significantly.
func (t *Table) Gate() []string {
	var out []string
	for _, r := range t.Regressions() {
		out = append(out, fmt.Sprintf("%s %s %+.1f%%", r.Run, r.Metric.Name, r.Pct))
	}
	for _, f := range t.FailedNew {
		out = append(out, f+" in NEW")
	}
	for _, f := range t.NewFailures {
		out = append(out, "failed requests "+f)
	}
	return out
}

// DeltaText is the row's change as benchstat prints it: "+4.21%" when
// significant after the adjustment, "~" when not, and the note
// "(p=0.008 q=0.031 n=5+5)"; an untested row gives its percentage and
// why it was not tested.
func (r Row) DeltaText() (delta, note string) {
	if math.IsNaN(r.Pct) {
		return "?", ""
	}
	if !r.Tested {
		return r.Delta.DeltaText()
	}
	note = fmt.Sprintf("p=%.3f q=%.3f n=%d+%d", r.P, r.Q, r.Old.N, r.New.N)
	if r.Q <= stats.Alpha && !r.Significant {
		note = fmt.Sprintf("p=%.3f q=%.3f d=%.1f<%g n=%d+%d", r.P, r.Q, r.Effect, MinEffect, r.Old.N, r.New.N)
	}
	if !r.Significant {
		return "~", note
	}
	return fmt.Sprintf("%+.2f%%", r.Pct), note
}

// WorkloadChange says how the workload of result b differs from a's
// ("input_len 128 → 512, num_prompts 64 → 32"), both measured by perflab
// collect; "" when it is the same, or when either came from another
// tool (an import records the load its output shows, often in part).
// The workload is the load the benchmark offered: dataset, lengths,
// prompts, rate, concurrency, seed, sampling; not the command line or
// the server's address.
func WorkloadChange(a, b *schema.Result) string {
	if !collected(a) || !collected(b) {
		return ""
	}
	fields := func(l schema.Load) map[string]string {
		l.Command, l.RPSChanges = "", nil
		raw, _ := json.Marshal(l) // plain data: cannot fail
		var m map[string]json.RawMessage
		_ = json.Unmarshal(raw, &m)
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}
	fa, fb := fields(a.Load), fields(b.Load)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if fa[k] != fb[k] {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", k, unset(fa[k]), unset(fb[k])))
		}
	}
	return strings.Join(diffs, ", ")
}

func unset(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// collected reports whether perflab collect (or perflab bench) measured
// result r (collect.Imported tells them apart; diff does not import
// collect).
func collected(r *schema.Result) bool {
	return r.Tool.Name == "" || r.Tool.Name == "perflab bench"
}
