package stats

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// Change-point detection over a series of measurements in time order
// (a configuration's figure, one value per round).
//
// ChangePoints finds where a series of single measurements changes level
// by binary segmentation with the Gaussian likelihood-ratio test for one
// change in mean at an unknown round: a segment's statistic is the
// largest, over its split points, squared two-sample t statistic of the
// two sides (maxSplit); it is significant when it exceeds the (1 − Alpha)
// quantile of its distribution over segments of the same length of pure
// Gaussian noise; a significant segment is split at its best split point
// and both sides are tested again. The statistic is scale- and
// location-free, so that null distribution depends on the segment's
// length alone: it is tabulated once by Monte Carlo (changePointTable,
// generated, and checked by TestChangePointTable) instead of being
// re-estimated by shuffling every series. Each segment is tested at
// Alpha, so a series of pure noise shows a change with probability Alpha
// (and a second one inside a false split with about Alpha² more): that
// is the stated false-alarm rate, per series. Nothing is random at run time, so
// a series always gives the same answer (pages are deterministic).
//
// Why this test (measured on 20 rounds of Gaussian noise with a 10 %
// step at round 10, found within one round; TestChangePointRates,
// TestAgainstOtava, and a simulation of the alternatives): it finds the
// step about as often as a test can that does not know where the step
// is. A t test told the step's round, at the same level, finds it in
// 98.3 % of series at CV 4 % and 87.7 % at CV 5 %; not knowing the round
// costs the maximum over 15 split points, whose 0.992 quantile is |t| ≈
// 4.1 instead of 3.0, and leaves 81.8 % and 55.6 %. Averaging the
// likelihood ratio over split points (Andrews and Ploberger's exp
// statistics) moves that by under 2 points either way; weighting the
// middle splits more (CUSUM's weights) gains up to 9 points at round 10
// and loses 15–37 at rounds 5 and 17; the maximum Mann-Whitney statistic
// (Pettitt's) finds a step at round 5 or 17 in about 10 % of series at
// CV 3 % where this test finds it in 90 %, because with 4 points on one
// side its ranks cannot reach the level. The permutation test this
// replaces tested the same statistic at 0.005 with 999 shuffles of each
// series: found 76.8 % and 48.5 % at CV 4 and 5 % (0.5 false changes per
// 100 noise series), where the tabulated threshold at 0.005 finds 78.5 %
// and 49.2 % and costs one pass over the series instead of a thousand.
// The rest of the gain is the level: 0.008 spends most of the budget of
// 1 false change per 100 series; 0.01 would reach it (0.9–1.2 per 100
// measured at CV 3–5 %) for 2 more points.
//
// The threshold assumes Gaussian noise. Measured away from it
// (TestChangePointRobustness, 20 rounds): one wild round (±6 SD) per
// noise series gives 0.2 false changes per 100 series (it inflates the
// pooled variance of every split more than it moves a mean), noise with
// Student's t₃ tails 0.8.
//
// AdjacentChanges is the test for rounds with repeats: the two-sided
// Mann-Whitney U test (Compare, the comparison tables' test) between
// each round and the next, the p-values then adjusted together
// (BenjaminiHochberg) so that a series with no change shows one with
// probability at most Alpha.

// ChangePointConfig tunes ChangePoints; the zero value means the
// documented defaults.
type ChangePointConfig struct {
	// Alpha is the significance level of each segment's test, and so
	// about the chance that a series with no change shows one (default
	// DefaultChangeAlpha). It is taken into [0.001, 0.05], the range of
	// the tabulated levels (changePointLevels).
	Alpha float64
	// MinSize is the fewest points on either side of a split (default 3):
	// a single odd round is an outlier, not a new level. The thresholds
	// of MinSize 3 and series up to changePointTableMax points are
	// tabulated; others are simulated on first use (changePointDraws
	// segments: about 0.1 s of CPU for 20 points, 0.6 s for 200) and kept
	// for the process.
	MinSize int
}

// DefaultChangeAlpha is ChangePoints' default significance level: a
// series of pure noise shows a false change in 0.8 % of series (about 1
// in 125; measured: TestChangePointRates), under the 1 in 100 perflab
// promises.
const DefaultChangeAlpha = 0.008

func (c ChangePointConfig) withDefaults() ChangePointConfig {
	if c.Alpha <= 0 {
		c.Alpha = DefaultChangeAlpha
	}
	c.Alpha = math.Min(math.Max(c.Alpha, changePointLevels[len(changePointLevels)-1]), changePointLevels[0])
	if c.MinSize <= 0 {
		c.MinSize = 3
	}
	return c
}

// ChangePoint is where a series changes level.
type ChangePoint struct {
	// Index is the first point of the new level (series[Index] is the
	// first value after the change).
	Index int
	// P is the p-value of the split's test: the chance that a segment of
	// its length of pure noise has as large a statistic, interpolated
	// between the tabulated levels; 0.001, the smallest tabulated, means
	// at most 0.001.
	P float64
	// Before and After are the segments either side of the change (from
	// the neighbouring change points, or the series' ends).
	Before, After Sample
	// Pct is the change of the segments' means in percent, NaN when
	// Before's mean is 0.
	Pct float64
}

// ChangePoints returns the change points of series (NaN values are not
// allowed: leave the missing rounds out), in index order.
func ChangePoints(series []float64, cfg ChangePointConfig) []ChangePoint {
	cfg = cfg.withDefaults()
	n := len(series)
	if n < 2*cfg.MinSize {
		return nil
	}
	sc := make([]float64, 2*(n+1))
	cuts := []int{0}
	var ps []float64
	// Binary segmentation, depth first: the cuts come out in order.
	var segment func(a, b int)
	segment = func(a, b int) {
		t, q := maxSplit(series[a:b], cfg.MinSize, sc)
		if t == 0 {
			return
		}
		p := splitP(b-a, cfg.MinSize, q)
		if p > cfg.Alpha {
			return
		}
		segment(a, a+t)
		cuts, ps = append(cuts, a+t), append(ps, p)
		segment(a+t, b)
	}
	segment(0, n)
	cuts = append(cuts, n)
	var out []ChangePoint
	for i := 1; i+1 < len(cuts); i++ {
		before, after := Summarize(series[cuts[i-1]:cuts[i]]), Summarize(series[cuts[i]:cuts[i+1]])
		cp := ChangePoint{Index: cuts[i], P: ps[i-1], Before: before, After: after, Pct: math.NaN()}
		if before.Mean != 0 {
			cp.Pct = (after.Mean - before.Mean) / math.Abs(before.Mean) * 100
		}
		out = append(out, cp)
	}
	return out
}

// maxSplit returns the split t of s (minSize ≤ t ≤ len−minSize; 0 when
// s is too short) with the largest squared two-sample t statistic of
// x = s[0:t] and y = s[t:], and that statistic,
//
//	T(t) = m·k/(m+k) · (x̄ − ȳ)² / s²,  s² = (Σ(x−x̄)² + Σ(y−ȳ)²) / (m+k−2),
//
// the Gaussian likelihood ratio for one change in mean at t with the
// variance unknown (−2 log Λ = n·log(1 + T/(n−2)), increasing in T).
// Two constant sides that differ give +Inf. scratch holds at least
// 2·(len(s)+1) values.
func maxSplit(s []float64, minSize int, scratch []float64) (int, float64) {
	n := len(s)
	if n < 2*minSize {
		return 0, math.Inf(-1)
	}
	c := s[0] // centred for precision
	sum, sq := scratch[:n+1], scratch[n+1:2*(n+1)]
	sum[0], sq[0] = 0, 0
	for i, v := range s {
		v -= c
		sum[i+1] = sum[i] + v
		sq[i+1] = sq[i] + v*v
	}
	tiny := 1e-12 * sq[n] // sums of squares below this are rounding: zero
	bestT, bestQ := 0, math.Inf(-1)
	for t := minSize; t <= n-minSize; t++ {
		m, k := float64(t), float64(n-t)
		sx, sy := sum[t], sum[n]-sum[t]
		d := sx/m - sy/k
		ss := math.Max(sq[n]-sx*sx/m-sy*sy/k, 0) // Σ(x−x̄)² + Σ(y−ȳ)²
		var q float64
		switch {
		case ss > tiny:
			q = m * k / (m + k) * d * d * (m + k - 2) / ss
		case m*k/(m+k)*d*d > tiny:
			q = math.Inf(1) // two constant levels that differ
		}
		if q > bestQ {
			bestT, bestQ = t, q
		}
	}
	return bestT, bestQ
}

// changePointLevels are the tail probabilities whose thresholds are
// tabulated, largest first: DefaultChangeAlpha and the levels either side
// of it the p-values are interpolated between.
var changePointLevels = [...]float64{0.05, 0.02, 0.01, 0.008, 0.005, 0.002, 0.001}

// changePointDraws is the number of noise segments each tabulated
// length is simulated with: the 0.008 quantile is estimated from its
// 1,600 largest statistics (its level to about ±2.5 %), the 0.001
// quantile from 200 (±7 %).
const changePointDraws = 200_000

// thresholds are, for one segment length and MinSize, the quantiles of
// maxSplit's statistic over segments of Gaussian noise at
// changePointLevels: thresholds[i] is exceeded with probability
// changePointLevels[i].
type thresholds [len(changePointLevels)]float64

// changePointTableMinSize and changePointTableMax are the MinSize and
// the longest segment changePointTable holds (TestChangePointTable
// -update writes it for segments of 2·MinSize to changePointTableMax
// points).
const (
	changePointTableMinSize = 3
	changePointTableMax     = 200
)

var simulated sync.Map // [2]int{n, minSize} → *thresholds

// thresholdsOf returns the thresholds of segments of n points: from
// changePointTable, or simulated once per process (and length, rounded
// up past the table).
func thresholdsOf(n, minSize int) *thresholds {
	if i := n - 2*minSize; minSize == changePointTableMinSize && i >= 0 && i < len(changePointTable) {
		return &changePointTable[i]
	}
	draws := changePointDraws
	if n > changePointTableMax {
		// Longer segments share the thresholds of the next multiple of
		// 50 points (the quantiles grow with the length, slowly: 14.0 at
		// 100 points, 14.2 at 200, at 0.008), so a long series simulates
		// a few lengths, not one per segment; and fewer draws keep each
		// under a second.
		n = (n + 49) / 50 * 50
		draws = max(changePointDraws*changePointTableMax/n, 20_000)
	}
	key := [2]int{n, minSize}
	if th, ok := simulated.Load(key); ok {
		return th.(*thresholds)
	}
	th := simulateThresholds(n, minSize, draws)
	v, _ := simulated.LoadOrStore(key, &th)
	return v.(*thresholds)
}

// simulateThresholds estimates the thresholds of segments of n points
// from draws segments of Gaussian noise, drawn from a generator seeded by
// n and minSize (the same numbers every time).
func simulateThresholds(n, minSize, draws int) thresholds {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(minSize)))
	s := make([]float64, n)
	sc := make([]float64, 2*(n+1))
	stat := make([]float64, draws)
	for i := range stat {
		for j := range s {
			s[j] = rng.NormFloat64()
		}
		_, stat[i] = maxSplit(s, minSize, sc)
	}
	sort.Float64s(stat)
	var th thresholds
	for i, l := range changePointLevels {
		th[i] = stat[draws-int(math.Round(l*float64(draws)))]
	}
	return th
}

// splitP is the p-value of statistic q of a segment of n points: the
// tabulated level it reaches, interpolated (log-linearly in q) between
// the two levels either side; 1 below the largest level, and the
// smallest level (0.001) at or above its threshold.
func splitP(n, minSize int, q float64) float64 {
	th := thresholdsOf(n, minSize)
	last := len(th) - 1
	switch {
	case q >= th[last]:
		return changePointLevels[last]
	case q < th[0]:
		return 1
	}
	i := sort.Search(last, func(i int) bool { return th[i+1] > q }) // th[i] ≤ q < th[i+1]
	lo, hi := math.Log(changePointLevels[i]), math.Log(changePointLevels[i+1])
	f := (q - th[i]) / (th[i+1] - th[i])
	if f == 0 {
		return changePointLevels[i] // exactly at a threshold: that level, not a rounding of it
	}
	return math.Exp(lo + f*(hi-lo))
}

// RoundChange is the comparison of one round (of repeats) with the one
// before it.
type RoundChange struct {
	// Index is the round compared with Index−1.
	Index int
	Delta Delta
	// Q is the U test's p-value adjusted for the number of comparisons
	// (BenjaminiHochberg over every adjacent pair of the family), and
	// Changed whether Q ≤ Alpha.
	Q       float64
	Changed bool
}

// AdjacentChanges compares each round of repeats with the one before it
// (Compare: the U test) and adjusts the p-values of the series' pairs
// together with BenjaminiHochberg. Pairs with too few runs to test keep
// p = 1. To adjust over several series at once (every configuration of
// a report), use Compare and BenjaminiHochberg directly.
func AdjacentChanges(rounds [][]float64) []RoundChange {
	if len(rounds) < 2 {
		return nil
	}
	out := make([]RoundChange, 0, len(rounds)-1)
	ps := make([]float64, 0, len(rounds)-1)
	for i := 1; i < len(rounds); i++ {
		d := Compare(rounds[i-1], rounds[i])
		out = append(out, RoundChange{Index: i, Delta: d})
		ps = append(ps, d.P)
	}
	qs := BenjaminiHochberg(ps)
	for i := range out {
		out[i].Q = qs[i]
		out[i].Changed = out[i].Delta.Tested && qs[i] <= Alpha
	}
	return out
}

// BenjaminiHochberg returns the Benjamini-Hochberg adjusted p-values
// (q-values) of ps, in the same order: q_(i) = min over j ≥ i of
// p_(j)·m/j, capped at 1, for the p-values sorted ascending. Rejecting
// where q ≤ α keeps the expected share of false discoveries at most α
// (for independent or positively dependent tests) and, when nothing
// changed at all, the chance of any false discovery at most α.
func BenjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	q := make([]float64, m)
	min := 1.0
	for r := m - 1; r >= 0; r-- {
		i := idx[r]
		v := ps[i] * float64(m) / float64(r+1)
		if math.IsNaN(v) {
			v = 1
		}
		if v < min {
			min = v
		}
		q[i] = min
	}
	return q
}

// MinEffect is the smallest change between rounds of repeats that
// SeriesChanges (and perflab diff) report, in pooled standard deviations
// of the repeats: two rounds run on different days differ by more than
// their repeats do (a busy neighbour, a warmer GPU, a new driver), and
// the U test calls such a shift significant whatever its size as soon as
// the ranks separate. The rule scales with each run's own noise; it is
// not a fixed percentage.
const MinEffect = 2.0

// Effect is the standardised size of a change, d = (mean_new −
// mean_old) / sqrt((s_old² + s_new²)/2): ±Inf when both sides are
// constant and differ, 0 when they are equal.
func Effect(d Delta) float64 {
	diff := d.New.Mean - d.Old.Mean
	sd := math.Sqrt((d.Old.StdDev*d.Old.StdDev + d.New.StdDev*d.New.StdDev) / 2)
	switch {
	case sd > 0:
		return diff / sd
	case diff > 0:
		return math.Inf(1)
	case diff < 0:
		return math.Inf(-1)
	}
	return 0
}

// Series is one figure of one configuration over rounds: the values
// measured in each round it was measured in (Rounds[i] is the index of
// the round of Samples[i]; a round where it is missing is left out).
type Series struct {
	Rounds  []int
	Samples [][]float64
}

// Untestable returns the indices i (into s.Samples) whose pair of
// adjacent rounds, i−1 and i, has too few runs for the U test to reach
// Alpha (MinP): none means SeriesChanges tests the series round against
// round with the U test, any means it goes through ChangePoints on its
// per-round means instead.
func (s Series) Untestable() []int {
	var out []int
	for i := 1; i < len(s.Samples); i++ {
		if MinP(len(s.Samples[i-1]), len(s.Samples[i])) > Alpha {
			out = append(out, i)
		}
	}
	return out
}

// Judged returns, for a series SeriesChanges tests with ChangePoints
// (Untestable not empty), the indices i (into s.Samples) at which a
// change can be found now: ChangePoints places a change only with
// MinSize points (its default, 3) on each side, so the first and the
// last two indices are never judged, and a series of fewer than 6
// points has none (from, to: an empty range, from > to, then).
func (s Series) Judged() (from, to int) {
	min := ChangePointConfig{}.withDefaults().MinSize
	return min, len(s.Samples) - min
}

// SeriesChange is a change point of one series of a SeriesChanges call.
type SeriesChange struct {
	// Series is the index of the series, Round the index of the first
	// round of the new level (a value of Series.Rounds).
	Series, Round int
	// Pct is the change in percent: between the two rounds (repeats), or
	// between the levels either side (single runs). Effect is the
	// standardised size (Effect; 0 for single runs).
	Pct, Effect float64
	// P is the test's p-value; Q the p-value adjusted over the call's
	// tests into the same round (Benjamini-Hochberg), or P for the
	// change-point method.
	P, Q float64
	// Method is "u-test" or "max-t" (ChangePoints).
	Method string
	// Latest says the series' latest round flagged the change: a U
	// test's change is at that round; a change point over single runs,
	// which needs MinSize rounds on each side and so is never at the
	// latest round, is not found (at its round or the one either side,
	// in the same direction) in the series without its latest round.
	// It is what a list of the latest round's news shows.
	Latest bool
}

// SeriesChanges finds the change points of several series at once (every
// configuration and metric of a report). A series whose adjacent rounds
// have enough repeats to be tested (MinP ≤ Alpha) is tested round against
// round with the U test (Compare); the p-values of the tests into one
// round, of every series, are adjusted together with BenjaminiHochberg
// (nothing changed at that round: a false change there with probability
// ≤ Alpha, as in a diff of the two rounds), and a change must also be at
// least MinEffect pooled standard deviations. A series with
// fewer runs per round goes through ChangePoints on its per-round means,
// with that method's false-alarm rate per series. The result is ordered
// by series, then round.
func SeriesChanges(series []Series) []SeriesChange {
	var out []SeriesChange
	var tests []SeriesChange
	var deltas []Delta
	for si, s := range series {
		if len(s.Samples) < 2 {
			continue
		}
		if len(s.Untestable()) == 0 {
			for i := 1; i < len(s.Samples); i++ {
				d := Compare(s.Samples[i-1], s.Samples[i])
				tests = append(tests, SeriesChange{Series: si, Round: s.Rounds[i], Pct: d.Pct, Effect: Effect(d), P: d.P, Method: "u-test",
					Latest: i == len(s.Samples)-1})
				deltas = append(deltas, d)
			}
			continue
		}
		means := make([]float64, len(s.Samples))
		for i, v := range s.Samples {
			means[i] = Summarize(v).Mean
		}
		before := ChangePoints(means[:len(means)-1], ChangePointConfig{})
		for _, cp := range ChangePoints(means, ChangePointConfig{}) {
			out = append(out, SeriesChange{Series: si, Round: s.Rounds[cp.Index], Pct: cp.Pct, P: cp.P, Q: cp.P, Method: "max-t",
				Latest: !foundNear(before, cp)})
		}
	}
	// One family per round: the tests of every series into that round,
	// adjusted together, as perflab diff adjusts the comparisons of two
	// rounds. One family over every round of the history grew with each
	// round: from its 25th round the demo's 12 % regression (p = 0.002 at
	// 6+6 runs) was no longer flagged, and a change flagged when it
	// happened vanished from the chart later.
	family := map[int][]int{}
	var order []int
	for i, t := range tests {
		if _, ok := family[t.Round]; !ok {
			order = append(order, t.Round)
		}
		family[t.Round] = append(family[t.Round], i)
	}
	for _, round := range order {
		idx := family[round]
		ps := make([]float64, len(idx))
		for j, i := range idx {
			ps[j] = tests[i].P
		}
		for j, q := range BenjaminiHochberg(ps) {
			i := idx[j]
			c := tests[i]
			if q <= Alpha && deltas[i].Tested && !math.IsNaN(c.Pct) && math.Abs(c.Effect) >= MinEffect {
				c.Q = q
				out = append(out, c)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Series != out[j].Series {
			return out[i].Series < out[j].Series
		}
		return out[i].Round < out[j].Round
	})
	return out
}

// foundNear reports whether cps holds a change in the direction of cp at
// cp's index or next to it: the same change, found before another point
// was added (which may move the split by one).
func foundNear(cps []ChangePoint, cp ChangePoint) bool {
	for _, b := range cps {
		if b.Index >= cp.Index-1 && b.Index <= cp.Index+1 && (b.Pct < 0) == (cp.Pct < 0) {
			return true
		}
	}
	return false
}
