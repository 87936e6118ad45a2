package diff

import (
	"math"
	"sort"

	"github.com/perflab/perflab/collect/stats"
)

// Change is a change point in one run's metric across rounds.
type Change struct {
	Run    string
	Metric Metric
	// Round is the index (into the rounds given to Changes) of the first
	// round of the new level.
	Round int
	// Pct is the change in percent: between the two rounds (repeats), or
	// between the levels either side (single runs).
	Pct float64
	// P is the test's p-value and Q the p-value adjusted over every
	// adjacent-round test of the Changes call (Benjamini-Hochberg); for
	// the change-point method, Q is P (its permutation test holds the
	// false-alarm rate per series).
	P, Q float64
	// Method is "u-test" (adjacent rounds with repeats, the comparison
	// tables' Mann-Whitney U test) or "e-divisive" (single runs:
	// stats.ChangePoints).
	Method string
	// Better says whether the change is for the better.
	Better bool
}

// Changes finds the change points of every run's metrics over rounds
// (oldest first). A run whose adjacent rounds have enough repeats to be
// tested (stats.MinP ≤ Alpha) is tested round against round with the U
// test, the p-values of every such test of the call adjusted together
// with Benjamini-Hochberg (no change anywhere: a false change with
// probability ≤ Alpha); a run measured once per round (or too few times)
// goes through stats.ChangePoints on its per-round means, with that
// method's false-alarm rate per series. Rounds where a run is missing
// are left out of its series. The result is ordered by round, then run
// and metric.
func Changes(rounds []Side, metrics []Metric) []Change {
	type series struct {
		run     string
		metric  Metric
		rounds  []int // index into rounds
		samples [][]float64
	}
	var all []series
	seen := map[string]bool{}
	var keys []string
	for _, r := range rounds {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		for _, m := range metrics {
			s := series{run: k, metric: m}
			for i, r := range rounds {
				rs := r.runs[k]
				var v []float64
				for _, res := range rs {
					if x := m.Value(res.Summary); !math.IsNaN(x) {
						v = append(v, x)
					}
				}
				if len(v) > 0 {
					s.rounds = append(s.rounds, i)
					s.samples = append(s.samples, v)
				}
			}
			if len(s.rounds) >= 2 {
				all = append(all, s)
			}
		}
	}
	var out []Change
	type pending struct {
		c Change
		d stats.Delta
	}
	var tests []pending
	for _, s := range all {
		testable := true
		for i := 1; i < len(s.samples); i++ {
			if stats.MinP(len(s.samples[i-1]), len(s.samples[i])) > stats.Alpha {
				testable = false
			}
		}
		if testable {
			for i := 1; i < len(s.samples); i++ {
				d := stats.Compare(s.samples[i-1], s.samples[i])
				tests = append(tests, pending{Change{Run: s.run, Metric: s.metric, Round: s.rounds[i], Pct: d.Pct, P: d.P, Method: "u-test"}, d})
			}
			continue
		}
		means := make([]float64, len(s.samples))
		for i, v := range s.samples {
			means[i] = stats.Summarize(v).Mean
		}
		for _, cp := range stats.ChangePoints(means, stats.ChangePointConfig{}) {
			out = append(out, Change{Run: s.run, Metric: s.metric, Round: s.rounds[cp.Index], Pct: cp.Pct, P: cp.P, Q: cp.P, Method: "e-divisive"})
		}
	}
	ps := make([]float64, len(tests))
	for i, t := range tests {
		ps[i] = t.d.P
	}
	for i, q := range stats.BenjaminiHochberg(ps) {
		if q <= stats.Alpha && tests[i].d.Tested && !math.IsNaN(tests[i].c.Pct) && math.Abs(Effect(tests[i].d)) >= MinEffect {
			c := tests[i].c
			c.Q = q
			out = append(out, c)
		}
	}
	for i := range out {
		out[i].Better = (out[i].Pct > 0) == out[i].Metric.HigherIsBetter
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Round != b.Round {
			return a.Round < b.Round
		}
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		return a.Metric.Key < b.Metric.Key
	})
	return out
}

// MetricByKey returns the metric with the given key.
func MetricByKey(key string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}
