package sweep

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// thresholdProbe fakes a server whose P99 TTFT is 10 ms × load: an SLO of
// ttft_p99 ≤ limit is met up to load limit/10.
func thresholdProbe(loads *[]float64) Probe {
	return func(_ context.Context, load float64) (*schema.Summary, error) {
		*loads = append(*loads, load)
		return &schema.Summary{OutputThroughput: load, TTFT: &schema.Stats{Percentiles: []schema.Percentile{{P: 99, ValueMs: 10 * load}}}}, nil
	}
}

func TestSearchConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name       string
		limit      float64
		cfg        SearchConfig
		best       float64
		probes     []float64
		exact      bool
		lowerBound bool
	}{
		// 1,2,4,8 met, 16 broken; bisect 12 (b), 10 (m), 11 (b): answer 10.
		{"interior", 105, SearchConfig{}, 10, []float64{1, 2, 4, 8, 16, 12, 10, 11}, true, false},
		// exactly on a power of two
		{"power of two", 80, SearchConfig{}, 8, []float64{1, 2, 4, 8, 16, 12, 10, 9}, true, false},
		{"none", 5, SearchConfig{}, 0, []float64{1}, true, false},
		{"start above", 35, SearchConfig{Start: 8}, 3, []float64{8, 4, 2, 3}, true, false},
		{"capped", 1e9, SearchConfig{Max: 20}, 20, []float64{1, 2, 4, 8, 16, 20}, false, true},
		{"probe budget", 105, SearchConfig{MaxProbes: 6}, 10, []float64{1, 2, 4, 8, 16, 12}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var loads []float64
			cfg := tc.cfg
			cfg.Kind = Concurrency
			res, err := Search(context.Background(), schema.SLO{"ttft_p99": tc.limit}, cfg, thresholdProbe(&loads))
			if err != nil {
				t.Fatal(err)
			}
			if !equal(loads, tc.probes) {
				t.Errorf("probes %v, want %v", loads, tc.probes)
			}
			if tc.name == "probe budget" {
				// stopped with [8, 12] open: 8 is the best probed
				if res.Best != 8 || res.Exact {
					t.Errorf("best %v exact %v: %s", res.Best, res.Exact, res.Reason)
				}
				return
			}
			if res.Best != tc.best || res.Exact != tc.exact {
				t.Errorf("best %v exact %v, want %v %v (%s)", res.Best, res.Exact, tc.best, tc.exact, res.Reason)
			}
			if tc.best == 0 && res.BestIndex != -1 {
				t.Errorf("best index %d", res.BestIndex)
			}
		})
	}
}

func TestSearchRate(t *testing.T) {
	var loads []float64
	res, err := Search(context.Background(), schema.SLO{"ttft_p99": 105}, SearchConfig{Kind: Rate, Start: 2}, thresholdProbe(&loads))
	if err != nil {
		t.Fatal(err)
	}
	// Bracket 2,4,8,16; bisect until the bracket is ≤ 5 % of its top.
	if !res.Exact || res.Best > 10.5 || res.Broken-res.Best > 0.05*res.Broken || res.Broken <= 10.5 {
		t.Errorf("best %v broken %v exact %v probes %v", res.Best, res.Broken, res.Exact, loads)
	}
}

// TestSearchRateNoneMet: a rate search that breaks the SLO at its start
// stops there, rather than halving the rate toward 0 (each probe lasting
// num_prompts / rate seconds) until the probes run out.
func TestSearchRateNoneMet(t *testing.T) {
	var loads []float64
	res, err := Search(context.Background(), schema.SLO{"ttft_p99": 5}, SearchConfig{Kind: Rate, Start: 1}, thresholdProbe(&loads))
	if err != nil {
		t.Fatal(err)
	}
	if !equal(loads, []float64{1}) || res.BestIndex != -1 || res.Best != 0 || res.Broken != 1 {
		t.Errorf("probes %v best %v (index %d) broken %v: %s", loads, res.Best, res.BestIndex, res.Broken, res.Reason)
	}
	if !strings.Contains(res.Reason, "--slo-search-start") {
		t.Errorf("reason %q does not say how to look lower", res.Reason)
	}
}

func TestSearchErrors(t *testing.T) {
	var loads []float64
	if _, err := Search(context.Background(), nil, SearchConfig{Kind: Concurrency}, thresholdProbe(&loads)); err == nil {
		t.Error("empty SLO accepted")
	}
	if _, err := Search(context.Background(), schema.SLO{"ttft_p99": 1}, SearchConfig{Kind: Concurrency, Start: 1.5}, thresholdProbe(&loads)); err == nil {
		t.Error("fractional concurrency accepted")
	}
	if _, err := Search(context.Background(), schema.SLO{"ttft_p99": 1}, SearchConfig{Kind: Rate, Resolution: math.NaN()}, thresholdProbe(&loads)); err == nil {
		t.Error("NaN resolution accepted")
	}
	boom := errors.New("boom")
	n := 0
	res, err := Search(context.Background(), schema.SLO{"ttft_p99": 1e9}, SearchConfig{Kind: Concurrency}, func(_ context.Context, load float64) (*schema.Summary, error) {
		n++
		if n == 3 {
			return nil, boom
		}
		return &schema.Summary{TTFT: &schema.Stats{Percentiles: []schema.Percentile{{P: 99, ValueMs: 1}}}}, nil
	})
	if !errors.Is(err, boom) || len(res.Probes) != 2 || res.Best != 2 {
		t.Errorf("err %v probes %d best %v", err, len(res.Probes), res.Best)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}
