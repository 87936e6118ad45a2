package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The parsers below read the `vllm bench serve` flag values into Options
// the way vLLM does, so that a perflab command line means what the same
// vLLM command line means.

// ParseMetrics reads --percentile-metrics ("ttft,tpot,itl"). vLLM ignores
// an unknown name silently; this rejects it, naming the allowed ones.
func ParseMetrics(s string) ([]string, error) {
	var out []string
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if !slices.Contains(metricNames(), m) {
			return nil, fmt.Errorf("metrics: --percentile-metrics: %q: want a comma-separated list of %s", m, strings.Join(metricNames(), ", "))
		}
		out = append(out, m)
	}
	return out, nil
}

// ParsePercentiles reads --metric-percentiles ("99", "25,50,75",
// "99.9"), each a number in [0, 100].
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("metrics: --metric-percentiles: %q: want comma-separated numbers in [0, 100]", f)
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseGoodput reads the --goodput "KEY:VALUE" pairs (ms): keys ttft, tpot
// or e2el, values non-negative numbers. A later pair for the same key
// wins, as in vLLM's dict.
func ParseGoodput(pairs []string) (map[string]float64, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, pair := range pairs {
		k, v, ok := strings.Cut(pair, ":")
		if !ok || strings.Contains(v, ":") {
			return nil, fmt.Errorf("metrics: --goodput %q: want KEY:VALUE pairs, the key a metric name and the value a number in milliseconds", pair)
		}
		ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(ms) {
			return nil, fmt.Errorf("metrics: --goodput %q: the value is not a number of milliseconds", pair)
		}
		switch k {
		case MetricTTFT, MetricTPOT, MetricE2EL:
		default:
			return nil, fmt.Errorf("metrics: --goodput %q: the metric must be one of ttft, tpot, e2el", pair)
		}
		if ms < 0 {
			return nil, fmt.Errorf("metrics: --goodput %q: the value must be non-negative", pair)
		}
		out[k] = ms
	}
	return out, nil
}

// ParseMetadata reads the --metadata "KEY=VALUE" items: split at the first
// "=", key and value trimmed, in command-line order.
func ParseMetadata(items []string) ([]KeyValue, error) {
	var out []KeyValue
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return nil, fmt.Errorf("metrics: --metadata %q: want KEY=VALUE", it)
		}
		out = append(out, KeyValue{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}
