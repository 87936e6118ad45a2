package metrics

import (
	"strings"
	"testing"
)

func TestGuidellmPercentile(t *testing.T) {
	tests := []struct {
		values, weights []float64
		q, want         float64
	}{
		{[]float64{4, 1, 3, 2}, nil, 0.5, 2},  // cdf .25 .5 .75 1: first cdf ≥ .5 (no interpolation)
		{[]float64{4, 1, 3, 2}, nil, 0.51, 3}, // numpy linear would give 2.53
		{[]float64{4, 1, 3, 2}, nil, 0, 1},    // q 0: the smallest value
		{[]float64{4, 1, 3, 2}, nil, 1, 4},    // q 1: the largest
		{[]float64{10, 20}, []float64{3, 1}, 0.75, 10},
		{[]float64{10, 20}, []float64{3, 1}, 0.76, 20},
		{[]float64{5, 7, 5}, nil, 0.6, 5},                // equal values merged: 5 has weight 2/3
		{[]float64{1, 2, 3}, []float64{0, 0, 1}, 0, 3},   // zero-weight values are dropped
		{[]float64{1, 2, 3}, []float64{0, 0, 0}, 0.5, 0}, // nothing left: 0, as guidellm's empty PDF
		{[]float64{1, 2}, []float64{1e-9, 1e-9}, 0.5, 1}, // total ≤ 1e-6: equal weights
		{nil, nil, 0.5, 0},
	}
	for _, tt := range tests {
		got, err := GuidellmPercentile(tt.values, tt.weights, tt.q)
		if err != nil || got != tt.want {
			t.Errorf("GuidellmPercentile(%v, %v, %v) = %v, %v; want %v", tt.values, tt.weights, tt.q, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		values, weights []float64
		q               float64
	}{
		{[]float64{1}, []float64{1, 2}, 0.5},
		{[]float64{1}, nil, 1.5},
		{[]float64{1}, []float64{-1}, 0.5},
	} {
		if _, err := GuidellmPercentile(bad.values, bad.weights, bad.q); err == nil {
			t.Errorf("GuidellmPercentile(%v, %v, %v): no error", bad.values, bad.weights, bad.q)
		}
	}
}

func TestDefinitionsKeptApart(t *testing.T) {
	for _, d := range GuidellmDefinitions() {
		if d.Tool != "guidellm" || !strings.Contains(d.Label, "guidellm") {
			t.Errorf("guidellm definition %q is not labelled as guidellm's: %q", d.Key, d.Label)
		}
		if d.Key == "time_per_output_token_ms" && d.VLLMEquivalent != "" {
			t.Error("guidellm's TPOT includes the TTFT; it has no vLLM equivalent")
		}
		if d.Key == "inter_token_latency_ms" && d.VLLMEquivalent != MetricTPOT {
			t.Error("guidellm's ITL is vLLM's TPOT")
		}
	}
	seen := map[string]bool{}
	for _, d := range VLLMDefinitions() {
		seen[d.Key] = true
	}
	for _, m := range metricNames() {
		if !seen[m] {
			t.Errorf("no vLLM definition for %s", m)
		}
	}
}
