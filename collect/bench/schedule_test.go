package bench

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

type numpyCases struct {
	RandomSampleSeed0 []float64 `json:"random_sample_seed0"`
	Cases             []struct {
		Seed       int64     `json:"seed"`
		N          int       `json:"n"`
		Rate       float64   `json:"rate"`
		Burstiness any       `json:"burstiness"`
		TimesS     []float64 `json:"times_s"`
	} `json:"cases"`
}

// TestScheduleMatchesNumpy compares with what numpy (vLLM's generator)
// printed; testdata/schedule_numpy.py regenerates the file.
func TestScheduleMatchesNumpy(t *testing.T) {
	data, err := os.ReadFile("testdata/schedule_numpy.json")
	if err != nil {
		t.Fatal(err)
	}
	var nc numpyCases
	if err := json.Unmarshal(data, &nc); err != nil {
		t.Fatal(err)
	}
	r := newNumpyRNG(0)
	for i, want := range nc.RandomSampleSeed0 {
		if got := r.double(); got != want {
			t.Fatalf("random_sample #%d = %v, numpy %v", i, got, want)
		}
	}
	for _, c := range nc.Cases {
		b := math.Inf(1)
		if f, ok := c.Burstiness.(float64); ok {
			b = f
		}
		got, err := Schedule(c.N, c.Rate, b, c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			// Go's math.Log and glibc's log may differ in the last bit,
			// so allow a few ulps (the RNG bits themselves are exact).
			if math.Abs(got[i]-c.TimesS[i]) > 1e-14*math.Max(1, c.TimesS[i]) {
				t.Fatalf("seed %d n %d rate %v burst %v: t[%d] = %.17g, numpy %.17g", c.Seed, c.N, c.Rate, b, i, got[i], c.TimesS[i])
			}
		}
	}
}

func TestScheduleShape(t *testing.T) {
	// inf rate: everything at once, no RNG use
	s, _ := Schedule(5, math.Inf(1), 1, 0)
	for _, v := range s {
		if v != 0 {
			t.Fatalf("inf rate schedule %v", s)
		}
	}
	// rescaled: the last release is exactly n/rate, times never decrease
	for _, b := range []float64{0.25, 1, 4} {
		s, _ := Schedule(1000, 50, b, 3)
		if s[len(s)-1] != 1000.0/50 {
			t.Fatalf("burstiness %v: last = %v, want 20", b, s[len(s)-1])
		}
		for i := 1; i < len(s); i++ {
			if s[i] < s[i-1] {
				t.Fatalf("burstiness %v: times decrease at %d", b, i)
			}
		}
	}
	// determinism for a seed; another seed gives another schedule
	a, _ := Schedule(100, 10, 1, 9)
	b, _ := Schedule(100, 10, 1, 9)
	c, _ := Schedule(100, 10, 1, 10)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different schedule")
		}
	}
	if a[0] == c[0] && a[50] == c[50] {
		t.Fatal("different seeds, same schedule")
	}
	for _, bad := range []struct{ rate, burst float64 }{{-1, 1}, {1, 0}, {math.NaN(), 1}, {1, -2}} {
		if _, err := Schedule(3, bad.rate, bad.burst, 0); err == nil {
			t.Errorf("rate %v burstiness %v: no error", bad.rate, bad.burst)
		}
	}
	if _, err := Schedule(3, 1, 1, -1); err == nil {
		t.Error("negative seed: no error")
	}
}

// TestScheduleBurstinessStatistics checks the gap distribution: mean 1/rate
// for every burstiness, coefficient of variation 1/sqrt(burstiness).
func TestScheduleBurstinessStatistics(t *testing.T) {
	const n, rate = 20000, 100.0
	for _, b := range []float64{0.5, 1, 4} {
		s, err := Schedule(n, rate, b, 1)
		if err != nil {
			t.Fatal(err)
		}
		var sum, sq float64
		prev := 0.0
		for _, v := range s {
			g := v - prev
			prev = v
			sum += g
			sq += g * g
		}
		mean := sum / n
		cv := math.Sqrt(sq/n-mean*mean) / mean
		wantCV := 1 / math.Sqrt(b)
		if math.Abs(mean-1/rate) > 1e-9 { // rescaling makes the mean exact
			t.Errorf("burstiness %v: mean gap %v, want %v", b, mean, 1/rate)
		}
		if math.Abs(cv-wantCV)/wantCV > 0.05 {
			t.Errorf("burstiness %v: CV %.3f, want %.3f", b, cv, wantCV)
		}
	}
}
