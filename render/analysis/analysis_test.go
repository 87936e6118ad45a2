package analysis

import (
	"math"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// run makes an ok sweep-point result.
func run(exp string, c, rep int, total, tpotMed, ttft99 float64) Run {
	return Run{GPUs: 2, Result: &schema.Result{Status: schema.StatusOK, Experiment: exp, Profile: "p", Repeat: rep,
		Load: schema.Load{Sweep: schema.SweepConcurrency, MaxConcurrency: c},
		Summary: &schema.Summary{Completed: 10, TotalTokenThroughput: total, OutputThroughput: total / 2, TotalOutputTokens: 1000,
			TPOT: &schema.Stats{MedianMs: schema.F(tpotMed), Percentiles: []schema.Percentile{{P: 99, ValueMs: tpotMed * 1.5}}},
			TTFT: &schema.Stats{MedianMs: schema.F(ttft99 / 2), Percentiles: []schema.Percentile{{P: 99, ValueMs: ttft99}}}},
		Telemetry: &schema.Telemetry{TotalEnergyJ: 500}}}
}

// crossing: "small" is fast per user but saturates early; "big" is slow
// per user and reaches more throughput.
func crossing() []Run {
	return []Run{
		run("small", 1, 0, 200, 5, 50), run("small", 4, 0, 700, 6, 80), run("small", 16, 0, 1000, 10, 400),
		run("big", 1, 0, 100, 10, 60), run("big", 4, 0, 380, 11, 90), run("big", 16, 0, 1400, 12, 300),
		run("big", 16, 1, 1600, 12, 300),
		{GPUs: 2, Result: &schema.Result{Status: schema.StatusSkipped, Experiment: "big", Profile: "p", Load: schema.Load{Sweep: schema.SweepConcurrency, MaxConcurrency: 64}}},
	}
}

func TestCurveFrontierSLO(t *testing.T) {
	runs := crossing()
	small, big := CurveOf(runs, "small", "p"), CurveOf(runs, "big", "p")
	if len(small.Points) != 3 || len(big.Points) != 4 {
		t.Fatalf("points: %d %d", len(small.Points), len(big.Points))
	}
	b16 := big.Points[2]
	// Per GPU (2 GPUs), mean of the two repeats: (1400+1600)/2/2 = 750.
	if b16.Runs != 2 || b16.Total.Mean != 750 || b16.Output.Mean != 375 || b16.Interactivity != 1000.0/12 || b16.TTFTP99 != 300 {
		t.Errorf("big c16: %+v", b16)
	}
	if math.Abs(b16.TokPerJ-2) > 1e-12 {
		t.Errorf("tok/J %v", b16.TokPerJ)
	}
	if !big.Points[3].Skipped || big.Points[3].Runs != 0 {
		t.Errorf("skipped point: %+v", big.Points[3])
	}
	curves := []Curve{small, big}
	fr := Frontier(curves, false)
	// Frontier in increasing interactivity: big c16 (83.3, 750), small c16
	// (100, 500), small c4 (166.7, 350), small c1 (200, 100). big c1 and c4
	// are dominated by small's points.
	want := []struct{ c, i int }{{1, 2}, {0, 2}, {0, 1}, {0, 0}}
	if len(fr) != len(want) {
		t.Fatalf("frontier %+v", fr)
	}
	for i, w := range want {
		if fr[i].Curve != w.c || fr[i].Index != w.i {
			t.Errorf("frontier[%d] = %+v, want curve %d point %d", i, fr[i], w.c, w.i)
		}
	}

	// SLO: P99 TTFT ≤ 100 ms. small meets it up to c4 (350/GPU), big up to
	// c4 (190/GPU): small wins at this SLO; with 500 ms big wins.
	ans := SLOAnswers(curves, schema.SLO{"ttft_p99": 100}, &schema.Cost{GPUHourUSD: 2.52}, false)
	if ans[0].Best != 1 || ans[0].ThroughputPerGPU != 350 || !ans[0].Winner || ans[1].Winner || ans[1].Best != 1 {
		t.Errorf("tight SLO: %+v", ans)
	}
	if want := 2.52 / (3600 * 350.0) * 1e6; math.Abs(ans[0].CostPerMTok-want) > 1e-9 {
		t.Errorf("cost %v, want %v", ans[0].CostPerMTok, want)
	}
	ans = SLOAnswers(curves, schema.SLO{"ttft_p99": 500}, nil, false)
	if !ans[1].Winner || ans[1].Point.Value != 16 || !math.IsNaN(ans[1].CostPerMTok) {
		t.Errorf("loose SLO: %+v", ans)
	}
	// No point meets it: Best -1, the checks of the lowest point say by how much.
	ans = SLOAnswers(curves, schema.SLO{"ttft_p99": 10}, nil, false)
	if ans[0].Best != -1 || ans[0].Winner || len(ans[0].Checks) != 1 || ans[0].Checks[0].ValueMs != 50 || ans[0].Point.Value != 1 {
		t.Errorf("unmet SLO: %+v", ans[0])
	}
}

func TestCompareRepeats(t *testing.T) {
	var a, b []Run
	for i, v := range []float64{100, 101, 99, 100.5} {
		a = append(a, run("a", 16, i, v, 10, 100))
		b = append(b, run("b", 16, i, v*1.2, 10, 100))
	}
	get := func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true }
	d := Compare(a, b, get, true)
	if !d.Tested || !d.Significant || math.Abs(d.Pct-20) > 1e-9 || d.Old.Mean != 50.0625 {
		t.Errorf("%+v", d)
	}
	if got := Points(append(a, crossing()...), "p"); len(got) != 4 || got[3].Value != 64 {
		t.Errorf("points %v", got)
	}
	if !IsSweep(a, "p") || IsSweep(a, "q") {
		t.Error("IsSweep")
	}
}

func TestRateSweep(t *testing.T) {
	mk := func(rate float64, thr float64) Run {
		return Run{Result: &schema.Result{Status: schema.StatusOK, Experiment: "e", Profile: "p",
			Load:    schema.Load{Sweep: schema.SweepRate, RequestRate: rate},
			Summary: &schema.Summary{Completed: 1, TotalTokenThroughput: thr, TPOT: &schema.Stats{MedianMs: schema.F(10)}}}}
	}
	runs := []Run{mk(0, 900), mk(10, 500), mk(0.5, 50), mk(math.Inf(1), 950)}
	cv := CurveOf(runs, "e", "p")
	var got []string
	for _, p := range cv.Points {
		got = append(got, p.Point.Slug())
	}
	// inf (0 or +Inf in the file) is one point, the highest load.
	if len(got) != 3 || got[0] != "rate0.5" || got[2] != "rateinf" || cv.Points[2].Runs != 2 || cv.Points[2].Total.Mean != 925 {
		t.Errorf("points %v %+v", got, cv.Points)
	}
}

// TestSLOFailedRequests: a point whose requests partly failed does not
// meet the SLO, however fast the requests that succeeded were (an
// overloaded server that drops requests would otherwise win).
func TestSLOFailedRequests(t *testing.T) {
	runs := crossing()
	// small at c4 (the tight SLO's answer) loses 5 of its 15 requests.
	runs[1].Result.Summary.Failed = 5
	small, big := CurveOf(runs, "small", "p"), CurveOf(runs, "big", "p")
	ans := SLOAnswers([]Curve{small, big}, schema.SLO{"ttft_p99": 100}, nil, false)
	if ans[0].Best != 0 || ans[0].Point.Value != 1 || ans[0].ThroughputPerGPU != 100 {
		t.Errorf("small: want concurrency 1 (c4 lost requests), got %+v", ans[0])
	}
	if !ans[1].Winner || ans[1].Point.Value != 4 {
		t.Errorf("big at c4 should win: %+v", ans[1])
	}
	// No point meets it: the lowest point's failures are reported.
	runs[0].Result.Summary.Failed = 2
	small = CurveOf(runs, "small", "p")
	ans = SLOAnswers([]Curve{small}, schema.SLO{"ttft_p99": 100}, nil, false)
	if ans[0].Best != -1 || ans[0].Failed != 2 || ans[0].Requests != 12 {
		t.Errorf("small with every point failing requests: %+v", ans[0])
	}
}
