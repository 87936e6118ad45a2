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
	// P is the test's p-value and Q the p-value adjusted over the Changes
	// call's tests into the same round (Benjamini-Hochberg); for
	// the change-point method, Q is P (its test holds the false-alarm
	// rate per series).
	P, Q float64
	// Method is "u-test" (adjacent rounds with repeats, the comparison
	// tables' Mann-Whitney U test) or "max-t" (single runs:
	// stats.ChangePoints).
	Method string
	// Better says whether the change is for the better.
	Better bool
}

// Changes finds the change points of every run's metrics over rounds
// (oldest first). A run whose adjacent rounds have enough repeats to be
// tested (stats.MinP ≤ Alpha) is tested round against round with the U
// test, the p-values of the tests into one round adjusted together with
// Benjamini-Hochberg (no change at that round: a false change there with
// probability ≤ Alpha, as in a diff of the two rounds); a run measured
// once per round (or too few times)
// goes through stats.ChangePoints on its per-round means, with that
// method's false-alarm rate per series. Rounds where a run is missing
// are left out of its series. The result is ordered by round, then run
// and metric.
func Changes(rounds []Side, metrics []Metric) []Change {
	type key struct {
		run    string
		metric Metric
	}
	var keys []key
	var series []stats.Series
	seen := map[string]bool{}
	var runs []string
	for _, r := range rounds {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				runs = append(runs, k)
			}
		}
	}
	for _, k := range runs {
		for _, m := range metrics {
			var s stats.Series
			for i, r := range rounds {
				var v []float64
				for _, res := range r.runs[k] {
					if x := m.Value(res.Summary); !math.IsNaN(x) {
						v = append(v, x)
					}
				}
				if len(v) > 0 {
					s.Rounds = append(s.Rounds, i)
					s.Samples = append(s.Samples, v)
				}
			}
			keys = append(keys, key{k, m})
			series = append(series, s)
		}
	}
	var out []Change
	for _, c := range stats.SeriesChanges(series) {
		k := keys[c.Series]
		out = append(out, Change{Run: k.run, Metric: k.metric, Round: c.Round, Pct: c.Pct, P: c.P, Q: c.Q, Method: c.Method,
			Better: (c.Pct > 0) == k.metric.HigherIsBetter})
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
