package stats

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// Change-point detection over a series of measurements in time order
// (a configuration's figure, one value per round).
//
// ChangePoints finds where a series of single measurements changes
// level with E-divisive means (Matteson & James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data",
// JASA 2014; the method Apache Otava, formerly Hunter, runs on CI
// benchmark series): a split of a segment is scored by the energy
// distance between its two sides, the best split of the best-scoring
// segment is tested with a permutation test (the series' values shuffled
// within their segments, Permutations times), and the division goes on
// while a split is significant at Alpha. Because the division stops at
// the first split that is not significant, a series of pure noise shows
// a false change with probability about Alpha: that is the stated
// false-alarm rate, per series. The permutations are drawn from a
// generator seeded by the series' values, so a series always gives the
// same answer (pages are deterministic).
//
// AdjacentChanges is the test for rounds with repeats: the two-sided
// Mann-Whitney U test (Compare, the comparison tables' test) between
// each round and the next, the p-values then adjusted together
// (BenjaminiHochberg) so that a series with no change shows one with
// probability at most Alpha.

// ChangePointConfig tunes ChangePoints; the zero value means the
// documented defaults.
type ChangePointConfig struct {
	// Alpha is the significance level of each split's permutation test,
	// and so about the chance that a series with no change shows one
	// (default DefaultChangeAlpha).
	Alpha float64
	// Permutations is the number of shuffles per test (default 999: the
	// smallest p-value it can give is 1/1000).
	Permutations int
	// MinSize is the fewest points on either side of a split (default 3):
	// a single odd round is an outlier, not a new level.
	MinSize int
}

// DefaultChangeAlpha is ChangePoints' default significance level: a
// series of pure noise shows a false change in about 0.5 % of series
// (measured: TestChangePointRates).
const DefaultChangeAlpha = 0.005

func (c ChangePointConfig) withDefaults() ChangePointConfig {
	if c.Alpha <= 0 {
		c.Alpha = DefaultChangeAlpha
	}
	if c.Permutations <= 0 {
		c.Permutations = 999
	}
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
	// P is the split's permutation p-value.
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
	rng := rand.New(rand.NewPCG(seedOf(series), 0x9e3779b97f4a7c15))
	cuts := []int{0, n} // segment bounds, sorted
	ps := map[int]float64{}
	for {
		// The best split over every current segment.
		bestQ, bestT := math.Inf(-1), -1
		for i := 0; i+1 < len(cuts); i++ {
			if t, q := bestSplit(series[cuts[i]:cuts[i+1]], cfg.MinSize); t > 0 && q > bestQ {
				bestQ, bestT = q, cuts[i]+t
			}
		}
		if bestT < 0 {
			break
		}
		// The permutation test: shuffle within each segment, take the
		// best split anywhere, count how often it is as good.
		perm := append([]float64(nil), series...)
		ge := 0
		for r := 0; r < cfg.Permutations; r++ {
			q := math.Inf(-1)
			for i := 0; i+1 < len(cuts); i++ {
				seg := perm[cuts[i]:cuts[i+1]]
				rng.Shuffle(len(seg), func(a, b int) { seg[a], seg[b] = seg[b], seg[a] })
				if t, qs := bestSplit(seg, cfg.MinSize); t > 0 && qs > q {
					q = qs
				}
			}
			if q >= bestQ*(1-1e-12) || math.IsInf(q, 1) {
				ge++
			}
		}
		p := float64(ge+1) / float64(cfg.Permutations+1)
		if p > cfg.Alpha {
			break
		}
		ps[bestT] = p
		cuts = append(cuts, bestT)
		sort.Ints(cuts)
	}
	var out []ChangePoint
	for i := 1; i+1 < len(cuts); i++ {
		before, after := Summarize(series[cuts[i-1]:cuts[i]]), Summarize(series[cuts[i]:cuts[i+1]])
		cp := ChangePoint{Index: cuts[i], P: ps[cuts[i]], Before: before, After: after, Pct: math.NaN()}
		if before.Mean != 0 {
			cp.Pct = (after.Mean - before.Mean) / math.Abs(before.Mean) * 100
		}
		out = append(out, cp)
	}
	return out
}

// bestSplit returns the split t of s (minSize ≤ t ≤ len−minSize; 0
// when s is too short) with the largest statistic, and that statistic:
// E-divisive means' difference of the means of the two sides (its energy
// distance with exponent 2, 2·E|X−Y|² − E|X−X'|² − E|Y−Y'|² = 2(μx − μy)²),
// studentised by the pooled variance of the sides,
//
//	T(t) = m·k/(m+k) · (x̄ − ȳ)² / s²,  s² = (Σ(x−x̄)² + Σ(y−ȳ)²) / (m+k−2)
//
// (the squared two-sample t statistic of x = s[0:t] and y = s[t:]). Scaled
// by its own noise, a split is judged against the series' noise rather
// than its whole spread, which a shift inflates: on 20 rounds at CV 5 %
// the permutation test then finds a 10 % step about twice as often.
//
// Unlike E-divisive, the right side always runs to the end of s (binary
// segmentation): the windows E-divisive also tries, which find a level
// that comes back (a regression fixed a few rounds later) in one split,
// cost too much power in the permutation test's maximum on series of 20
// rounds (a 10 % step at CV 5 %: found in 76 % of series against 96 %).
func bestSplit(s []float64, minSize int) (int, float64) {
	n := len(s)
	if n < 2*minSize {
		return 0, math.Inf(-1)
	}
	c := s[0] // centred for precision
	sum := make([]float64, n+1)
	sq := make([]float64, n+1)
	for i, v := range s {
		v -= c
		sum[i+1] = sum[i] + v
		sq[i+1] = sq[i] + v*v
	}
	dev := func(a, b int) (mean, ss float64) { // mean and Σ(v−mean)² of s[a:b]
		k := float64(b - a)
		mean = (sum[b] - sum[a]) / k
		ss = sq[b] - sq[a] - k*mean*mean
		return mean, math.Max(ss, 0)
	}
	bestT, bestQ := 0, math.Inf(-1)
	for t := minSize; t <= n-minSize; t++ {
		mx, dx := dev(0, t)
		my, dy := dev(t, n)
		m, k := float64(t), float64(n-t)
		d := mx - my
		v := (dx + dy) / (m + k - 2)
		var q float64
		switch {
		case v > 1e-12*(mx*mx+my*my+c*c):
			q = m * k / (m + k) * d * d / v
		case math.Abs(d) > 1e-9*(math.Abs(mx)+math.Abs(my)+math.Abs(c)):
			q = math.Inf(1) // two constant levels that differ
		}
		if q > bestQ {
			bestT, bestQ = t, q
		}
	}
	return bestT, bestQ
}

// seedOf hashes a series' values, the seed of its permutations.
func seedOf(series []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range series {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
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

// SeriesChange is a change point of one series of a SeriesChanges call.
type SeriesChange struct {
	// Series is the index of the series, Round the index of the first
	// round of the new level (a value of Series.Rounds).
	Series, Round int
	// Pct is the change in percent: between the two rounds (repeats), or
	// between the levels either side (single runs). Effect is the
	// standardised size (Effect; 0 for single runs).
	Pct, Effect float64
	// P is the test's p-value; Q the p-value adjusted over every
	// adjacent-round test of the call (Benjamini-Hochberg), or P for the
	// change-point method.
	P, Q float64
	// Method is "u-test" or "e-divisive".
	Method string
}

// SeriesChanges finds the change points of several series at once (every
// configuration and metric of a report). A series whose adjacent rounds
// have enough repeats to be tested (MinP ≤ Alpha) is tested round against
// round with the U test (Compare); the p-values of every such test of the
// call are adjusted together with BenjaminiHochberg (nothing changed
// anywhere: a false change with probability ≤ Alpha), and a change must
// also be at least MinEffect pooled standard deviations. A series with
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
		testable := true
		for i := 1; i < len(s.Samples); i++ {
			if MinP(len(s.Samples[i-1]), len(s.Samples[i])) > Alpha {
				testable = false
			}
		}
		if testable {
			for i := 1; i < len(s.Samples); i++ {
				d := Compare(s.Samples[i-1], s.Samples[i])
				tests = append(tests, SeriesChange{Series: si, Round: s.Rounds[i], Pct: d.Pct, Effect: Effect(d), P: d.P, Method: "u-test"})
				deltas = append(deltas, d)
			}
			continue
		}
		means := make([]float64, len(s.Samples))
		for i, v := range s.Samples {
			means[i] = Summarize(v).Mean
		}
		for _, cp := range ChangePoints(means, ChangePointConfig{}) {
			out = append(out, SeriesChange{Series: si, Round: s.Rounds[cp.Index], Pct: cp.Pct, P: cp.P, Q: cp.P, Method: "e-divisive"})
		}
	}
	ps := make([]float64, len(tests))
	for i, t := range tests {
		ps[i] = t.P
	}
	for i, q := range BenjaminiHochberg(ps) {
		c := tests[i]
		if q <= Alpha && deltas[i].Tested && !math.IsNaN(c.Pct) && math.Abs(c.Effect) >= MinEffect {
			c.Q = q
			out = append(out, c)
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
