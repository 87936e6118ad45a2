package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9, math.NaN()})
	if s.N != 8 || s.Mean != 5 || s.Min != 2 || s.Max != 9 {
		t.Fatalf("got %+v", s)
	}
	// Sample std of this set: sqrt(32/7).
	if want := math.Sqrt(32.0 / 7); math.Abs(s.StdDev-want) > 1e-12 || math.Abs(s.CV-want/5) > 1e-12 {
		t.Errorf("std %v cv %v, want %v", s.StdDev, s.CV, want)
	}
	if m := s.Median(); m != 4.5 {
		t.Errorf("median %v", m)
	}
	if one := Summarize([]float64{3}); one.StdDev != 0 || one.CV != 0 || one.Median() != 3 {
		t.Errorf("one value: %+v", one)
	}
	if z := Summarize(nil); z.N != 0 || !math.IsNaN(z.Median()) {
		t.Errorf("empty: %+v", z)
	}
}

func TestCompareExactP(t *testing.T) {
	// Fully separated 5+5 samples: exact two-sided p = 2/C(10,5) = 2/252.
	d := Compare([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if !d.Tested || math.Abs(d.P-2.0/252) > 1e-9 || !d.Significant {
		t.Fatalf("got %+v", d)
	}
	if got, note := d.DeltaText(); got != "+166.67%" || note != "p=0.008 n=5+5" {
		t.Errorf("text %q %q", got, note)
	}
	// 3+3 fully separated: p = 0.1, can never be significant: not tested.
	d = Compare([]float64{1, 2, 3}, []float64{6, 7, 8})
	if d.Tested || d.Significant {
		t.Errorf("3+3 should not be tested: %+v", d)
	}
	if _, note := d.DeltaText(); note != "n=3+3: too few runs to test (≥4 each)" {
		t.Errorf("note %q", note)
	}
	// Unequal counts whose exact test can reach Alpha are tested, as
	// benchstat does: 3+5 fully separated gives p = 2/C(8,3) = 0.036.
	d = Compare([]float64{1, 2, 3}, []float64{6, 7, 8, 9, 10})
	if !d.Tested || !d.Significant || math.Abs(d.P-2.0/56) > 1e-9 {
		t.Errorf("3+5 should be tested and significant: %+v", d)
	}
	// 3+4 can at best give 2/C(7,3) = 0.057: not tested.
	if d = Compare([]float64{1, 2, 3}, []float64{6, 7, 8, 9}); d.Tested {
		t.Errorf("3+4 should not be tested: %+v", d)
	}
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{{1, 1, 1}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {2, 8, 2.0 / 45}, {8, 2, 2.0 / 45}, {0, 5, 1}} {
		if got := MinP(tc.n1, tc.n2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
	if _, note := Compare([]float64{1}, []float64{2}).DeltaText(); note != "1 run each" {
		t.Errorf("note %q", note)
	}
	// All equal: no evidence, "~".
	d = Compare([]float64{5, 5, 5, 5}, []float64{5, 5, 5, 5})
	if got, _ := d.DeltaText(); got != "~" || d.P != 1 {
		t.Errorf("equal: %q %+v", got, d)
	}
}

// TestCompareFalsePositiveRate: two samples of the same distribution are
// called different in about Alpha of the trials, never much more.
func TestCompareFalsePositiveRate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	sig := 0
	for range trials {
		a, b := make([]float64, 5), make([]float64, 5)
		for i := range a {
			a[i] = 1000 + 20*r.NormFloat64()
			b[i] = 1000 + 20*r.NormFloat64()
		}
		if Compare(a, b).Significant {
			sig++
		}
	}
	if rate := float64(sig) / trials; rate > 0.07 {
		t.Errorf("false positive rate %.3f > 0.07", rate)
	}
}

func TestInteractivity(t *testing.T) {
	if v := Interactivity(20); v != 50 {
		t.Errorf("got %v", v)
	}
	if !math.IsNaN(Interactivity(0)) {
		t.Error("0 ms TPOT should be NaN")
	}
}
