package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPercentileTable(t *testing.T) {
	tests := []struct {
		x    []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{4, 1, 3, 2}, 0, 1}, // unsorted input
		{[]float64{4, 1, 3, 2}, 100, 4},
		{[]float64{1, 2, 3, 4}, 25, 1.75},
		{[]float64{10}, 99, 10},           // one sample: h = 0, top-end branch
		{nil, 99, 0},                      // empty: vLLM's `x or 0`
		{[]float64{0, 10}, 99, 9.9},       // g = 0.99 ≥ 0.5: b − (b−a)(1−g) = 10 − 10·0.01
		{[]float64{0, 10}, 1, 0.1},        // g = 0.01 < 0.5: a + (b−a)g
		{[]float64{1, 2, 3}, 99.9, 2.998}, // h = 1.998
		// numpy's _lerp takes b − (b−a)(1−g) for g ≥ 0.5, which differs
		// from a + (b−a)g in the last bit here (checked with numpy 1.24:
		// np.percentile([0.1, 0.7], 70) = 0.5199999999999999 where the
		// naive form gives 0.52, and [0.1, 0.2] gives 0.17, not
		// 0.16999999999999998).
		{[]float64{0.1, 0.7}, 70, 0.5199999999999999},
		{[]float64{0.1, 0.2}, 70, 0.17},
	}
	for _, tt := range tests {
		if got := Percentile(tt.x, tt.p); got != tt.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.x, tt.p, got, tt.want)
		}
	}
}

func TestMeanMedianStdTable(t *testing.T) {
	tests := []struct {
		x                 []float64
		mean, median, std float64
	}{
		{nil, 0, 0, 0},
		{[]float64{5}, 5, 5, 0},
		{[]float64{1, 2, 3, 4}, 2.5, 2.5, math.Sqrt(1.25)},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 4.5, 2}, // the textbook population std of 2
		{[]float64{3, 1, 2}, 2, 2, math.Sqrt(2.0 / 3)},
	}
	for _, tt := range tests {
		if got := Mean(tt.x); got != tt.mean {
			t.Errorf("Mean(%v) = %v, want %v", tt.x, got, tt.mean)
		}
		if got := Median(tt.x); got != tt.median {
			t.Errorf("Median(%v) = %v, want %v", tt.x, got, tt.median)
		}
		if got := Std(tt.x); got != tt.std {
			t.Errorf("Std(%v) = %v, want %v", tt.x, got, tt.std)
		}
	}
}

// TestPairwiseSumStructure checks the summation order against an explicit
// rebuild of numpy's blocking for sizes around each boundary (< 8, 8..128
// with a remainder, > 128 split at a multiple of 8).
func TestPairwiseSumStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var ref func(a []float64) float64
	ref = func(a []float64) float64 {
		n := len(a)
		if n < 8 {
			s := 0.0
			for _, v := range a {
				s += v
			}
			return s
		}
		if n <= 128 {
			r := make([]float64, 8)
			copy(r, a)
			i := 8
			for ; i+8 <= n; i += 8 {
				for j := range 8 {
					r[j] += a[i+j]
				}
			}
			s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
			for ; i < n; i++ {
				s += a[i]
			}
			return s
		}
		h := n / 2
		h -= h % 8
		return ref(a[:h]) + ref(a[h:])
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 136, 1000, 8191, 8192, 8193, 20000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.ExpFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
		}
		if got, want := pairwiseSum(x), ref(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("n=%d: pairwiseSum = %v, reference blocking %v", n, got, want)
		}
		// The chunked (numpy < 2.3) sum adds 8192-element chunks in order.
		want := 0.0
		for i := 0; i < n; i += numpyBufSize {
			want += ref(x[i:min(i+numpyBufSize, n)])
		}
		if got := sumOf(x, numpyBufSize, pairwiseSum); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("n=%d: chunked sum = %v, want %v", n, got, want)
		}
	}
}

// TestStatsProperties: for random samples of many shapes, min ≤ p0 ≤ … ≤
// p100 ≤ max with p0 = min and p100 = max, min ≤ median ≤ max, min ≤ mean
// ≤ max, std ≥ 0, and the inputs are left untouched.
func TestStatsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	ps := []float64{0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.6, 75, 90, 95, 99, 99.9, 99.99, 100}
	for trial := range 500 {
		n := 1 + rng.IntN(3000)
		x := make([]float64, n)
		for i := range x {
			switch trial % 4 {
			case 0:
				x[i] = rng.Float64()
			case 1:
				x[i] = rng.ExpFloat64() * 1e-3
			case 2:
				x[i] = float64(rng.IntN(5)) // many ties
			default:
				x[i] = rng.NormFloat64() * 1e6 // negative values too
			}
		}
		orig := slices.Clone(x)
		st, err := NewStats(x, ps)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x, orig) {
			t.Fatal("NewStats modified its input")
		}
		lo, hi := slices.Min(x), slices.Max(x)
		prev := math.Inf(-1)
		for _, p := range st.Percentiles {
			if p.ValueMs < prev || p.ValueMs < lo || p.ValueMs > hi {
				t.Fatalf("trial %d: p%v = %v out of order (prev %v, range [%v, %v])", trial, p.P, p.ValueMs, prev, lo, hi)
			}
			prev = p.ValueMs
		}
		if st.Percentiles[0].ValueMs != lo || st.Percentiles[len(ps)-1].ValueMs != hi {
			t.Fatalf("trial %d: p0/p100 = %v/%v, want min/max %v/%v", trial, st.Percentiles[0].ValueMs, st.Percentiles[len(ps)-1].ValueMs, lo, hi)
		}
		if m := *st.MedianMs; m < lo || m > hi {
			t.Fatalf("trial %d: median %v outside [%v, %v]", trial, m, lo, hi)
		}
		if p50, _ := st.Get(50); p50 != *st.MedianMs && math.Abs(p50-*st.MedianMs) > 1e-12*math.Max(1, math.Abs(p50)) {
			t.Fatalf("trial %d: p50 %v and median %v differ beyond rounding", trial, p50, *st.MedianMs)
		}
		if m := *st.MeanMs; m < lo || m > hi {
			t.Fatalf("trial %d: mean %v outside [%v, %v]", trial, m, lo, hi)
		}
		if !(*st.StdMs >= 0) {
			t.Fatalf("trial %d: std %v", trial, *st.StdMs)
		}
	}
}

func TestNewStatsRejects(t *testing.T) {
	for _, tt := range []struct {
		x  []float64
		ps []float64
	}{
		{[]float64{1}, []float64{101}},
		{[]float64{1}, []float64{-1}},
		{[]float64{1}, []float64{math.NaN()}},
		{[]float64{math.NaN()}, []float64{50}},
	} {
		if _, err := NewStats(tt.x, tt.ps); err == nil {
			t.Errorf("NewStats(%v, %v): no error", tt.x, tt.ps)
		}
	}
}

func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 100, radixMin - 1, radixMin, 50_000} {
		x := make([]float64, n)
		for i := range x {
			switch i % 5 {
			case 0:
				x[i] = rng.NormFloat64() * 1e3 // negative and positive
			case 1:
				x[i] = 0
			case 2:
				x[i] = math.Inf(1 - 2*(i%2))
			case 3:
				x[i] = rng.ExpFloat64() * 1e-300 // tiny, subnormal-ish
			default:
				x[i] = float64(rng.IntN(10)) // ties
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		sortFloats(x)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: x[%d] = %v, want %v", n, i, x[i], want[i])
			}
		}
	}
}
