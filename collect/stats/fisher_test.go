package stats

import (
	"math"
	"testing"
)

// TestFisherGreater checks the one-sided Fisher exact test against values
// computed independently, exactly, with Python's integer binomials
// (sum over x ≥ a of C(n, x)·C(m, k−x) / C(n+m, k), k = a+b; what
// scipy.stats.fisher_exact(alternative="greater") gives for [[a, n−a],
// [b, m−b]]), and against its edges.
func TestFisherGreater(t *testing.T) {
	for _, tc := range []struct {
		a, n, b, m int
		want       float64
	}{
		{1, 1000, 0, 1000, 0.5},                  // one failure against none: a coin toss
		{3, 10, 0, 10, 0.10526315789473684},      // 3 of 10 against 0 of 10
		{15, 500, 0, 500, 2.743320486256772e-05}, // 15 of 500 against none
		{0, 100, 5, 100, 1},                      // fewer: nothing to see
		{5, 100, 5, 100, 0.626235124935476},      // the same rate
	} {
		got := FisherGreater(tc.a, tc.n, tc.b, tc.m)
		if math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("FisherGreater(%d, %d, %d, %d) = %.17g, want %.17g", tc.a, tc.n, tc.b, tc.m, got, tc.want)
		}
	}
	if !math.IsNaN(FisherGreater(5, 4, 0, 10)) {
		t.Errorf("more events than trials: want NaN")
	}
}
