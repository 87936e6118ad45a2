package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	moremath "github.com/aclements/go-moremath/stats"
)

// Alpha is the significance level of Compare: a p-value at or below it
// marks a difference as real (benchstat's default and rule: "~" when
// p > Alpha).
const Alpha = 0.05

// Sample summarises repeated measurements of one figure.
type Sample struct {
	Values []float64 // as given, in order
	N      int
	Mean   float64
	StdDev float64 // sample standard deviation (n−1); 0 for one value
	Min    float64
	Max    float64
	// CV is the coefficient of variation, StdDev/Mean, as a fraction; 0
	// when Mean is 0.
	CV float64
}

// Summarize computes a Sample's statistics. NaN values are dropped (a
// metric a run did not record); an empty input gives a zero Sample.
func Summarize(values []float64) Sample {
	s := Sample{}
	for _, v := range values {
		if !math.IsNaN(v) {
			s.Values = append(s.Values, v)
		}
	}
	s.N = len(s.Values)
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = s.Values[0], s.Values[0]
	sum := 0.0
	for _, v := range s.Values {
		sum += v
		s.Min = math.Min(s.Min, v)
		s.Max = math.Max(s.Max, v)
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		ss := 0.0
		for _, v := range s.Values {
			d := v - s.Mean
			ss += d * d
		}
		s.StdDev = math.Sqrt(ss / float64(s.N-1))
	}
	if s.Mean != 0 {
		s.CV = s.StdDev / math.Abs(s.Mean)
	}
	return s
}

// Median returns the sample's median (linear interpolation between the
// two middle values, as numpy), NaN for an empty sample.
func (s Sample) Median() float64 {
	if s.N == 0 {
		return math.NaN()
	}
	v := append([]float64(nil), s.Values...)
	sort.Float64s(v)
	if s.N%2 == 1 {
		return v[s.N/2]
	}
	return (v[s.N/2-1] + v[s.N/2]) / 2
}

// Delta is the comparison of a new sample against an old one.
type Delta struct {
	Old, New Sample
	// Pct is the change of the means in percent, (new−old)/old×100; NaN
	// when Old.Mean is 0.
	Pct float64
	// Tested is true when the U test ran with enough runs to be able to
	// reach Alpha: MinP(n_old, n_new) <= Alpha (4+4, or unequal counts
	// such as 3+5 or 2+8, as benchstat tests them).
	Tested bool
	// P is the two-sided Mann-Whitney p-value (1 when every value on both
	// sides is equal); meaningful only when Tested.
	P float64
	// Significant: Tested and P <= Alpha.
	Significant bool
}

// MinRunsPerSide is the fewest runs per side, equal on both, with which
// the exact two-sided U test can reach p <= Alpha (2/C(8,4) = 0.029 at
// 4+4). Unequal counts can reach it with fewer on one side (MinP).
const MinRunsPerSide = 4

// MinP is the smallest two-sided p-value the exact U test can give for
// samples of n1 and n2 values (fully separated, no ties): 2 / C(n1+n2, n1).
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	c := 1.0 // C(n1+n2, n1), built as a product
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Compare compares new against old with the two-sided Mann-Whitney U test
// at Alpha.
func Compare(old, new []float64) Delta {
	d := Delta{Old: Summarize(old), New: Summarize(new), P: 1}
	d.Pct = math.NaN()
	if d.Old.N > 0 && d.New.N > 0 && d.Old.Mean != 0 {
		d.Pct = (d.New.Mean - d.Old.Mean) / math.Abs(d.Old.Mean) * 100
	}
	if MinP(d.Old.N, d.New.N) > Alpha {
		return d
	}
	d.Tested = true
	p, err := MannWhitneyP(d.Old.Values, d.New.Values)
	if err == nil {
		d.P = p
	}
	d.Significant = d.P <= Alpha
	return d
}

// MannWhitneyP is the two-sided Mann-Whitney U test's p-value for the
// samples a and b: 1 when every value is equal (no evidence of a
// difference).
func MannWhitneyP(a, b []float64) (float64, error) {
	r, err := moremath.MannWhitneyUTest(a, b, moremath.LocationDiffers)
	if errors.Is(err, moremath.ErrSamplesEqual) {
		return 1, nil
	}
	if err != nil {
		return math.NaN(), fmt.Errorf("stats: mann-whitney: %w", err)
	}
	return r.P, nil
}

// DeltaText formats the change benchstat's way: "+4.21%" for a significant
// change, "~" for one within noise, and the "(p=0.690 n=5+5)" note; with too
// few runs to test, the percentage and a note saying so ("1 run each").
func (d Delta) DeltaText() (delta, note string) {
	if math.IsNaN(d.Pct) {
		return "?", ""
	}
	pct := fmt.Sprintf("%+.2f%%", d.Pct)
	switch {
	case !d.Tested && d.Old.N == 1 && d.New.N == 1:
		return pct, "1 run each"
	case !d.Tested:
		return pct, fmt.Sprintf("n=%d+%d: too few runs to test (≥%d each)", d.Old.N, d.New.N, MinRunsPerSide)
	case d.Significant:
		return pct, fmt.Sprintf("p=%.3f n=%d+%d", d.P, d.Old.N, d.New.N)
	default:
		return "~", fmt.Sprintf("p=%.3f n=%d+%d", d.P, d.Old.N, d.New.N)
	}
}

// Interactivity is tokens per second per user, 1000 / median TPOT (ms);
// NaN when the TPOT is not positive.
func Interactivity(medianTPOTMs float64) float64 {
	if !(medianTPOTMs > 0) {
		return math.NaN()
	}
	return 1000 / medianTPOTMs
}
