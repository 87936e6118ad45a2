package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// noiseSeries is n values around 100 with Gaussian noise of the given
// coefficient of variation, the values from step on multiplied by
// 1+stepPct/100.
func noiseSeries(rng *rand.Rand, n int, cv float64, step int, stepPct float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 100 * (1 + cv*rng.NormFloat64())
		if step >= 0 && i >= step {
			s[i] *= 1 + stepPct/100
		}
	}
	return s
}

// rateSeries draws the series the rates are measured on: n series of
// 20 rounds of pure noise at CV cv, and n with a 10 % step at round 10
// (index 9).
func rateSeries(seed uint64, n int, cv float64) (noise, step [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for k := 0; k < n; k++ {
		noise = append(noise, noiseSeries(rng, 20, cv, -1, 0))
		step = append(step, noiseSeries(rng, 20, cv, 9, 10))
	}
	return noise, step
}

// score counts detections: false changes per noise series, the share of
// step series with a change within one round of the step, and the other
// changes per step series.
func score(noiseFound, stepFound [][]int) (falsePerSeries, found, extra float64) {
	falses, hits, extras := 0, 0, 0
	for _, f := range noiseFound {
		falses += len(f)
	}
	for _, f := range stepFound {
		hit := false
		for _, i := range f {
			if math.Abs(float64(i-9)) <= 1 && !hit {
				hit = true
			} else {
				extras++
			}
		}
		if hit {
			hits++
		}
	}
	n := float64(len(stepFound))
	return float64(falses) / float64(len(noiseFound)), float64(hits) / n, float64(extras) / n
}

func ours(series [][]float64) [][]int {
	out := make([][]int, len(series))
	for i, s := range series {
		for _, cp := range ChangePoints(s, ChangePointConfig{}) {
			out[i] = append(out[i], cp.Index)
		}
	}
	return out
}

// rates measures ChangePoints on rateSeries.
func rates(seed uint64, series int, cv float64) (falsePerSeries, found, extra float64) {
	noise, step := rateSeries(seed, series, cv)
	return score(ours(noise), ours(step))
}

// TestChangePointRates holds ChangePoints to the rates the docs state,
// on series of 20 rounds with Gaussian noise: at CV 2–5 % at most 1 false
// change per 100 series of pure noise; a 10 % step at round 10 found
// within one round in ≥ 95 % of series at CV 2–3 %. At CV 4–5 % the step
// is 2–2.5 noise deviations and no test at this false-alarm rate finds
// it in 95 % of series (a t test that knew where the step is would find
// it in about 90 % at CV 5 %); the rates there are logged, not held.
// (go test -run ChangePointRates -v prints them.)
func TestChangePointRates(t *testing.T) {
	// 150 series a CV in -short too: the rates are estimates, and at 50
	// series the step rate at CV 3 % read 94 % (seeded, so every time).
	series := 150
	// The statistic is scale-free, so the false-alarm rate is the same at
	// every CV: it is held over all the noise series together.
	falses := 0.0
	for _, cv := range []float64{0.02, 0.03, 0.04, 0.05} {
		f, hit, extra := rates(uint64(cv*1000), series, cv)
		falses += f * float64(series)
		t.Logf("CV %.0f%%, %d series of 20 rounds: %.3f false changes per noise series; 10%% step at round 10 found ±1 in %.1f%% (%.3f other changes per step series)",
			cv*100, series, f, hit*100, extra)
		if cv <= 0.03 && hit < 0.95 {
			t.Errorf("CV %.0f%%: step found in %.1f%% of series, want ≥ 95%%", cv*100, hit*100)
		}
	}
	if f := falses / float64(4*series); f > 0.01 {
		t.Errorf("%.4f false changes per noise series, want ≤ 0.01", f)
	} else {
		t.Logf("all CVs: %.4f false changes per noise series (%d series)", f, 4*series)
	}
}

func TestChangePointsFindsSteps(t *testing.T) {
	flat := []float64{100, 101, 99, 100, 100.5, 99.5, 100, 101, 99, 100}
	if cps := ChangePoints(flat, ChangePointConfig{}); len(cps) != 0 {
		t.Errorf("flat series: %+v", cps)
	}
	// Two steps: down 12 % at index 8, down 12 % again at 16.
	var s []float64
	for i := 0; i < 24; i++ {
		v := 100 + float64(i%3) - 1
		if i >= 8 {
			v *= 0.88
		}
		if i >= 16 {
			v *= 0.88
		}
		s = append(s, v)
	}
	cps := ChangePoints(s, ChangePointConfig{})
	if len(cps) != 2 || cps[0].Index != 8 || cps[1].Index != 16 {
		t.Fatalf("change points %+v", cps)
	}
	if math.Abs(cps[0].Pct+12) > 1 || cps[0].P > DefaultChangeAlpha {
		t.Errorf("first change %+v", cps[0])
	}
	// Deterministic: the same series, the same answer.
	again := ChangePoints(append([]float64(nil), s...), ChangePointConfig{})
	if fmt.Sprint(again) != fmt.Sprint(cps) {
		t.Error("two runs differ")
	}
	// Too short to test at the default level: 6 single runs.
	if cps := ChangePoints([]float64{100, 100, 100, 50, 50, 50}, ChangePointConfig{}); len(cps) != 0 {
		t.Errorf("6 points gave %+v; the permutation test cannot reach 0.005 with 3+3", cps)
	}
}

func TestBenjaminiHochberg(t *testing.T) {
	// R's p.adjust(c(0.01, 0.04, 0.03, 0.5), "BH") = 0.04 0.0533 0.0533 0.5
	got := BenjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.5})
	want := []float64{0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("BH %v, want %v", got, want)
		}
	}
}

func TestAdjacentChanges(t *testing.T) {
	rounds := [][]float64{
		{100, 101, 99, 100, 100.5},
		{100.2, 99.8, 100.4, 99.6, 100.1},
		{88, 88.5, 87.9, 88.2, 88.4}, // 12 % down
		{88.1, 88.3, 87.8, 88.0, 88.6},
	}
	got := AdjacentChanges(rounds)
	if len(got) != 3 || got[0].Changed || !got[1].Changed || got[2].Changed || got[1].Index != 2 {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkChangePoints is the CPU of ChangePoints per series: 20 and
// 100 rounds of single runs at CV 4 %, pure noise and with a 10 % step
// in the middle (go test -run '^$' -bench ChangePoints ./collect/stats).
func BenchmarkChangePoints(b *testing.B) {
	for _, n := range []int{20, 100} {
		for _, kind := range []string{"noise", "step"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				step := -1
				if kind == "step" {
					step = n / 2
				}
				series := make([][]float64, 64)
				for i := range series {
					series[i] = noiseSeries(rng, n, 0.04, step, 10)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ChangePoints(series[i%len(series)], ChangePointConfig{})
				}
			})
		}
	}
}
