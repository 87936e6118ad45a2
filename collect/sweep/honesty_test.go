package sweep_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/sweep"
)

// startMock serves the fixed-timing mock in-process.
func startMock(t *testing.T, ttft, itl time.Duration) string {
	t.Helper()
	eng, err := mock.Start(context.Background(), mock.Config{TTFT: ttft, ITL: itl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng.URL
}

// tinyRun runs n requests of out tokens at concurrency c against url.
func tinyRun(t *testing.T, url string, seed int64, n, c, out int) *schema.Summary {
	t.Helper()
	samples := make([]dataset.Sample, n)
	for i := range samples {
		samples[i] = dataset.Sample{Prompt: fmt.Sprintf("hello %d", i), PromptLen: 2, OutputLen: out}
	}
	res, err := bench.Run(context.Background(), bench.Config{BaseURL: url, Model: "mock", Samples: samples,
		MaxConcurrency: c, IgnoreEOS: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary == nil || res.Summary.Completed != n {
		t.Fatalf("run: %+v", res.Summary)
	}
	return res.Summary
}

// outputRow is --compare's output-throughput line for two sets of runs.
func outputRow(t *testing.T, a, b []*schema.Summary) (delta, note string, row sweep.CompareRow) {
	t.Helper()
	for _, r := range sweep.Compare(sweep.Side{Runs: a}, sweep.Side{Runs: b}, nil) {
		if r.Metric.Name == "Output token throughput (tok/s)" {
			d, n := r.Delta.DeltaText()
			return d, n, r
		}
	}
	t.Fatal("no output throughput row")
	return
}

// TestCompareIdenticalIsNoise is the false-positive half of the
// statistical honesty check: per seed, four runs of one configuration on
// the mock against four more of the same configuration (interleaved, so
// that a slow machine phase hits both sides), compared as --compare
// does. The output throughput must come out "~" for at least 95 % of
// the seeds. With exchangeable runs the exact U test at 4+4 calls a
// difference significant with probability 2/C(8,4) = 2.9 %, so 400
// seeds give about 11 false alarms and the 20 allowed are exceeded with
// probability below 0.5 % (Poisson tail).
func TestCompareIdenticalIsNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("400 seeds of 8 runs")
	}
	url := startMock(t, 0, 0)
	tinyRun(t, url, 0, 8, 8, 2) // warm the mock
	const seeds = 400
	sig := 0
	start := time.Now()
	for seed := int64(1); seed <= seeds; seed++ {
		var a, b []*schema.Summary
		for range 4 {
			a = append(a, tinyRun(t, url, seed, 8, 8, 2))
			b = append(b, tinyRun(t, url, seed, 8, 8, 2))
		}
		delta, note, row := outputRow(t, a, b)
		if !row.Delta.Tested {
			t.Fatalf("seed %d: 4+4 runs not tested: %s %s", seed, delta, note)
		}
		if delta != "~" {
			sig++
			t.Logf("seed %d: identical configurations called different: %s (%s)", seed, delta, note)
		}
	}
	rate := float64(sig) / seeds
	t.Logf("MEASURED: %d of %d seeds significant (%.1f %%; expected about 2.9 %%), %.1f s", sig, seeds, 100*rate, time.Since(start).Seconds())
	if rate > 0.05 {
		t.Errorf("identical configurations differ in %.1f %% of seeds, want at most 5 %%", 100*rate)
	}
}

// TestCompareDetectsTwentyPercent is the other half: a configuration
// with 20 % less throughput (ITL 10.1 ms instead of 8 ms: 10 + 31 × 10.1 =
// 323 ms per request instead of 258) is reported as a significant change,
// at eight runs a side, for every seed. The runs last about 0.3 s so that
// a busy machine's scheduling delays stay small beside the difference;
// eight runs a side let the rank test absorb the odd run that a loaded
// 2-core machine stretches by 50 % (seen when other tests ran beside it).
func TestCompareDetectsTwentyPercent(t *testing.T) {
	fast := startMock(t, 10*time.Millisecond, 8*time.Millisecond)
	slow := startMock(t, 10*time.Millisecond, 10100*time.Microsecond)
	tinyRun(t, fast, 0, 16, 16, 32)
	tinyRun(t, slow, 0, 16, 16, 32)
	for seed := int64(1); seed <= 2; seed++ {
		var a, b []*schema.Summary
		for range 8 {
			a = append(a, tinyRun(t, fast, seed, 16, 16, 32))
			b = append(b, tinyRun(t, slow, seed, 16, 16, 32))
		}
		delta, note, row := outputRow(t, a, b)
		t.Logf("seed %d: %s (%s): old %.1f ± %.1f %%, new %.1f ± %.1f %%", seed, delta, note,
			row.Delta.Old.Mean, 100*row.Delta.Old.CV, row.Delta.New.Mean, 100*row.Delta.New.CV)
		if !row.Delta.Significant || !strings.HasPrefix(delta, "-") || row.Delta.Pct > -10 {
			t.Errorf("seed %d: a 20 %% slower configuration reads %s (%s)", seed, delta, note)
		}
	}
}
