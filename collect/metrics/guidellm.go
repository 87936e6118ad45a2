package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Definition says what one metric means under one tool's naming, so that
// a page never prints a number under a definition it does not have (a
// guidellm "TPOT" includes the TTFT; a guidellm "ITL" is vLLM's TPOT).
type Definition struct {
	// Tool is "vllm" or "guidellm".
	Tool string
	// Key is the tool's own key (ttft, time_per_output_token_ms, …).
	Key string
	// Label is a short display label that names the tool's definition.
	Label string
	// Unit is "ms", "s", "tok/s", "req/s" or "" for counts.
	Unit string
	// Formula is the per-request formula and how it is aggregated.
	Formula string
	// VLLMEquivalent is the vLLM key that measures the same thing, "" when
	// none does.
	VLLMEquivalent string
}

// VLLMDefinitions returns the latency metrics as `vllm bench serve` (and
// Summarize) defines them.
func VLLMDefinitions() []Definition {
	return []Definition{
		{"vllm", MetricTTFT, "TTFT", "ms", "first SSE event with non-empty choices − send; one sample per successful request", MetricTTFT},
		{"vllm", MetricTPOT, "TPOT (excl. 1st token)", "ms", "(E2EL − TTFT)/(output tokens − 1) per request with > 1 output token; unweighted", MetricTPOT},
		{"vllm", MetricITL, "ITL", "ms", "gap between consecutive token events, pooled over successful requests (one sample per event)", MetricITL},
		{"vllm", MetricE2EL, "E2EL", "ms", "last token event − send; one sample per successful request", MetricE2EL},
		{"vllm", MetricClientQueue, "Client queue time", "ms", "send − arrival (wait for the --max-concurrency cap)", MetricClientQueue},
		{"vllm", MetricE2ELInclQueue, "E2EL incl. client queue", "ms", "E2EL + client queue time", MetricE2ELInclQueue},
	}
}

// GuidellmDefinitions returns guidellm's latency metrics with labels that
// say they are guidellm's, and the vLLM metric each corresponds to.
func GuidellmDefinitions() []Definition {
	return []Definition{
		{"guidellm", "time_to_first_token_ms", "TTFT (guidellm)", "ms", "first line with ≥ 1 token − request start; weight 1", MetricTTFT},
		{"guidellm", "inter_token_latency_ms", "ITL (guidellm: mean decode time per token)", "ms", "(last token − first token)/(output tokens − 1) per request; weighted by output tokens − 1", MetricTPOT},
		{"guidellm", "time_per_output_token_ms", "TPOT (guidellm, incl. TTFT)", "ms", "(last token − request start)/output tokens per request; weighted by output tokens", ""},
		{"guidellm", "request_latency", "Request latency (guidellm)", "s", "request end (after [DONE]) − request start; weight 1", MetricE2EL},
	}
}

// GuidellmPercentile is guidellm's weighted percentile ("PDF" method) for
// q in [0, 1]: the values are sorted, equal values merged with their
// weights summed, the weights normalised to probabilities, and the result
// is the value at the first position where the cumulative probability
// reaches q (numpy searchsorted, side "left"). There is no interpolation,
// unlike numpy's linear percentile that vLLM uses. weights nil means
// weight 1 each. An empty input gives 0.
func GuidellmPercentile(values, weights []float64, q float64) (float64, error) {
	if weights != nil && len(weights) != len(values) {
		return 0, fmt.Errorf("metrics: guidellm percentile: %d values but %d weights", len(values), len(weights))
	}
	if !(q >= 0 && q <= 1) {
		return 0, fmt.Errorf("metrics: guidellm percentile: q = %v: want [0, 1]", q)
	}
	type vw struct{ v, w float64 }
	pts := make([]vw, 0, len(values))
	for i, v := range values {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		if math.IsNaN(v) || !(w >= 0) {
			return 0, fmt.Errorf("metrics: guidellm percentile: value %d = %v, weight %v", i, v, w)
		}
		pts = append(pts, vw{v, w})
	}
	if len(pts) == 0 {
		return 0, nil
	}
	slices.SortFunc(pts, func(a, b vw) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	var merged []vw
	for _, p := range pts {
		if n := len(merged); n > 0 && merged[n-1].v == p.v {
			merged[n-1].w += p.w
		} else {
			merged = append(merged, p)
		}
	}
	// guidellm drops values whose weight is 0, and falls back to equal
	// weights when the total is at most 1e-6.
	merged = slices.DeleteFunc(merged, func(p vw) bool { return !(p.w > 0) })
	if len(merged) == 0 {
		return 0, nil
	}
	total := 0.0
	for _, p := range merged {
		total += p.w
	}
	if total <= 1e-6 {
		for i := range merged {
			merged[i].w = 1
		}
		total = float64(len(merged))
	}
	cdf := make([]float64, len(merged))
	acc := 0.0
	for i, p := range merged {
		acc += p.w / total
		cdf[i] = acc
	}
	i := sort.SearchFloat64s(cdf, q) // first index with cdf[i] >= q
	if i >= len(merged) {
		i = len(merged) - 1
	}
	return merged[i].v, nil
}
