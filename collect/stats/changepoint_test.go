package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	moremath "github.com/aclements/go-moremath/stats"
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

// oracle is the power ceiling of the rates: the share of step series in
// which a two-sided pooled t test told the step's index (9) calls the
// two sides different at level alpha. No test that has to find the round
// can do better.
func oracle(step [][]float64, alpha float64) float64 {
	hits := 0
	for _, s := range step {
		x, y := Summarize(s[:9]), Summarize(s[9:])
		m, k := float64(x.N), float64(y.N)
		v := ((m-1)*x.StdDev*x.StdDev + (k-1)*y.StdDev*y.StdDev) / (m + k - 2)
		tt := (x.Mean - y.Mean) / math.Sqrt(v*(1/m+1/k))
		if 2*(moremath.TDist{V: m + k - 2}).CDF(-math.Abs(tt)) <= alpha {
			hits++
		}
	}
	return float64(hits) / float64(len(step))
}

// TestChangePointRates holds ChangePoints to the rates the docs state,
// on series of Gaussian noise: at most 1 false change per 100 series of
// pure noise at every length from 6 to 300 rounds; a 10 % step at round
// 10 of 20 found within one round in ≥ 99 % of series at CV 2 %, ≥ 95 %
// at CV 3 % and ≥ 78 % at CV 4 % (measured 82 %; the permutation test
// this replaced found it in 70 %, and a t test told the round in 98.6 %:
// the rest is the price of not knowing it, see changepoint.go). At CV 5 %
// the rate is logged, not held. (go test -run ChangePointRates -v prints
// them.)
func TestChangePointRates(t *testing.T) {
	// 3,000 series a CV: the step rate at CV 4 % within ±0.8 points.
	const series = 3000
	for _, c := range []struct{ cv, min float64 }{{0.02, 0.99}, {0.03, 0.95}, {0.04, 0.80}, {0.05, 0}} {
		noise, step := rateSeries(uint64(c.cv*1000), series, c.cv)
		f, hit, extra := score(ours(noise), ours(step))
		t.Logf("CV %.0f%%, %d series of 20 rounds: %.3f false changes per noise series; 10%% step at round 10 found ±1 in %.1f%% (%.3f other changes per step series; a t test told the round: %.1f%%)",
			c.cv*100, series, f, hit*100, extra, oracle(step, DefaultChangeAlpha)*100)
		if hit < c.min {
			t.Errorf("CV %.0f%%: step found in %.1f%% of series, want ≥ %.0f%%", c.cv*100, hit*100, c.min*100)
		}
	}
	// The statistic is scale-free, so the false-alarm rate depends on the
	// length alone; 20,000 series a length put its estimate within ±0.002.
	rng := rand.New(rand.NewPCG(5, 5))
	lengths := []int{6, 7, 10, 20, 50, 100, 200}
	if !testing.Short() {
		lengths = append(lengths, 300) // past the table: simulated here (about a second)
	}
	for _, n := range lengths {
		const tries = 20000
		falses := 0
		for i := 0; i < tries; i++ {
			falses += len(ChangePoints(noiseSeries(rng, n, 0.03, -1, 0), ChangePointConfig{}))
		}
		f := float64(falses) / tries
		t.Logf("%d rounds: %.4f false changes per noise series (%d series)", n, f, tries)
		if f > 0.01 {
			t.Errorf("%d rounds: %.4f false changes per noise series, want ≤ 0.01", n, f)
		}
	}
}

// TestChangePointRobustness measures what the Gaussian threshold does
// away from Gaussian noise, 20 rounds at CV 3 %: one wild round (±6 SD)
// somewhere in the series, and noise with heavy tails (Student's t with
// 3 degrees of freedom, scaled to the same SD). Both are logged; the
// wild round is held to ≤ 2 false changes per 100 series, since a
// single odd round is what MinSize is there to ignore.
func TestChangePointRobustness(t *testing.T) {
	const tries = 5000
	rng := rand.New(rand.NewPCG(6, 6))
	wild, heavy := 0, 0
	for i := 0; i < tries; i++ {
		s := noiseSeries(rng, 20, 0.03, -1, 0)
		sign := 1.0
		if rng.IntN(2) == 0 {
			sign = -1
		}
		s[rng.IntN(20)] = 100 * (1 + sign*6*0.03)
		wild += len(ChangePoints(s, ChangePointConfig{}))
		for j := range s {
			// Student's t, 3 df: Z / sqrt(χ²₃/3), SD sqrt(3).
			chi := 0.0
			for k := 0; k < 3; k++ {
				z := rng.NormFloat64()
				chi += z * z
			}
			s[j] = 100 * (1 + 0.03*rng.NormFloat64()/math.Sqrt(chi/3)/math.Sqrt(3))
		}
		heavy += len(ChangePoints(s, ChangePointConfig{}))
	}
	fw, fh := float64(wild)/tries, float64(heavy)/tries
	t.Logf("20 rounds, %d series: one wild round: %.4f false changes per series; t₃ noise: %.4f", tries, fw, fh)
	if fw > 0.02 {
		t.Errorf("one wild round: %.4f false changes per series, want ≤ 0.02", fw)
	}
}

// TestChangePointPositions logs where in 20 rounds a 10 % step is found
// at CV 3 % and 4 % (go test -run ChangePointPositions -v): the edges are
// harder (fewer rounds on one side), MinSize 3 rounds is the floor.
func TestChangePointPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, cv := range []float64{0.03, 0.04} {
		line := fmt.Sprintf("CV %.0f%%, step found ±1 at round", cv*100)
		for _, at := range []int{4, 6, 10, 14, 17} {
			const tries = 1000
			hits := 0
			for i := 0; i < tries; i++ {
				for _, cp := range ChangePoints(noiseSeries(rng, 20, cv, at-1, 10), ChangePointConfig{}) {
					if cp.Index >= at-2 && cp.Index <= at {
						hits++
						break
					}
				}
			}
			line += fmt.Sprintf(" %d: %.1f%%", at, float64(hits)/tries*100)
		}
		t.Log(line)
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
	// The shortest series that can be tested: 3 + 3 rounds.
	if cps := ChangePoints([]float64{100, 101, 99, 80, 81, 79}, ChangePointConfig{}); len(cps) != 1 || cps[0].Index != 3 || cps[0].P != 0.001 {
		t.Errorf("6 points, a 20 %% step: %+v", cps)
	}
	if cps := ChangePoints([]float64{100, 101, 99, 100, 102, 98}, ChangePointConfig{}); len(cps) != 0 {
		t.Errorf("6 points of noise: %+v", cps)
	}
	if cps := ChangePoints([]float64{100, 100, 100, 50, 50, 50}, ChangePointConfig{}); len(cps) != 1 || cps[0].Index != 3 {
		t.Errorf("two constant levels: %+v", cps)
	}
	if cps := ChangePoints([]float64{100, 100, 100, 100, 100, 100, 100}, ChangePointConfig{}); len(cps) != 0 {
		t.Errorf("a constant series: %+v", cps)
	}
	if cps := ChangePoints([]float64{100, 101, 99, 50, 50}, ChangePointConfig{}); len(cps) != 0 {
		t.Errorf("5 points (under 2·MinSize): %+v", cps)
	}
}

// TestSplitP: the p-value is each tabulated level at its threshold,
// decreases with the statistic, and so agrees with the thresholds at
// every level.
func TestSplitP(t *testing.T) {
	th := thresholdsOf(20, 3)
	for i, q := range th {
		if p := splitP(20, 3, q); p != changePointLevels[i] {
			t.Errorf("at threshold %v: p = %v, want %v", q, p, changePointLevels[i])
		}
	}
	if p := splitP(20, 3, th[0]*0.99); p != 1 {
		t.Errorf("below the largest level's threshold: p = %v", p)
	}
	if p := splitP(20, 3, math.Inf(1)); p != 0.001 {
		t.Errorf("infinite statistic: p = %v", p)
	}
	prev := 1.0
	for q := th[0]; q < th[len(th)-1]*1.1; q += 0.05 {
		p := splitP(20, 3, q)
		if p > prev {
			t.Fatalf("p(%v) = %v > p of a smaller statistic %v", q, p, prev)
		}
		prev = p
	}
	// Another MinSize is simulated, once.
	if a, b := thresholdsOf(12, 2), thresholdsOf(12, 2); a != b || a[3] <= 0 {
		t.Errorf("simulated thresholds %v, %v", a, b)
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

// TestSeriesChangesLatest: Latest marks what the series' latest round
// flagged: over single runs the change point a round's value revealed
// (rounds before it), not one found without it; with repeats, the change
// at the latest round only.
func TestSeriesChangesLatest(t *testing.T) {
	single := func(vs ...float64) Series {
		var s Series
		for i, v := range vs {
			s.Rounds = append(s.Rounds, i)
			s.Samples = append(s.Samples, []float64{v})
		}
		return s
	}
	// A 15 % drop at index 3: not testable on 5 points, found on 6.
	found := single(100, 101, 99, 85, 86, 84)
	old := single(100, 101, 99, 85, 86, 84, 85)
	ch := SeriesChanges([]Series{found, old})
	if len(ch) != 2 || ch[0].Round != 3 || ch[1].Round != 3 {
		t.Fatalf("changes %+v, want one at round 3 in each series", ch)
	}
	if !ch[0].Latest || ch[1].Latest {
		t.Errorf("Latest %v, %v: want true where round 5 found the change, false a round later", ch[0].Latest, ch[1].Latest)
	}
	rep := func(base ...float64) []float64 {
		var v []float64
		for _, b := range base {
			for k := 0; k < 6; k++ {
				v = append(v, b+float64(k%3)-1)
			}
		}
		return v
	}
	s := Series{Rounds: []int{0, 1, 2}, Samples: [][]float64{rep(100), rep(80), rep(80)}}
	last := Series{Rounds: []int{0, 1, 2}, Samples: [][]float64{rep(100), rep(100), rep(80)}}
	ch = SeriesChanges([]Series{s, last})
	if len(ch) != 2 || ch[0].Latest || !ch[1].Latest || ch[1].Round != 2 {
		t.Errorf("repeats: %+v, want round 1 not latest, round 2 latest", ch)
	}
}

// TestSeriesChangesLongHistory: a change between two rounds with repeats
// is flagged however many rounds the history holds. The tests into one
// round form one family (as a diff of the two rounds); one family over
// the whole history grew with each round, so the same 12 % step (6+6
// runs, p = 0.002) was flagged in 6 rounds and no longer in 40. Over
// noise alone, a round is flagged in at most Alpha of the rounds.
func TestSeriesChangesLongHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	history := func(rounds, lines int, step bool) []Series {
		series := make([]Series, lines)
		for l := range series {
			for r := 0; r < rounds; r++ {
				level := 1000.0
				if step && l == 0 && r >= 3 {
					level = 880
				}
				v := make([]float64, 6)
				for k := range v {
					v[k] = level * (1 + 0.005*rng.NormFloat64())
				}
				series[l].Rounds = append(series[l].Rounds, r)
				series[l].Samples = append(series[l].Samples, v)
			}
		}
		return series
	}
	for _, rounds := range []int{6, 40} {
		found := false
		for _, c := range SeriesChanges(history(rounds, 4, true)) {
			if c.Series == 0 && c.Round == 3 && c.Method == "u-test" {
				found = true
			}
		}
		if !found {
			t.Errorf("%d rounds: the 12 %% step at round 3 is not flagged", rounds)
		}
	}
	flagged, transitions := 0, 0
	for h := 0; h < 200; h++ {
		rounds := map[int]bool{}
		for _, c := range SeriesChanges(history(20, 4, false)) {
			rounds[c.Round] = true
		}
		flagged += len(rounds)
		transitions += 19
	}
	if rate := float64(flagged) / float64(transitions); rate > Alpha {
		t.Errorf("noise: %d of %d rounds flagged (%.3f > %.2f)", flagged, transitions, rate, Alpha)
	} else {
		t.Logf("noise: %d of %d rounds flagged", flagged, transitions)
	}
}
