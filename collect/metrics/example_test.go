package metrics_test

import (
	"fmt"
	"os"

	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
)

func ExampleNewStats() {
	st, err := metrics.NewStats([]float64{12, 15, 11, 40, 13}, []float64{50, 99})
	if err != nil {
		panic(err)
	}
	fmt.Printf("mean %.2f median %.2f std %.2f p99 %.2f\n", *st.MeanMs, *st.MedianMs, *st.StdMs, st.Percentiles[1].ValueMs)
	// Output: mean 18.20 median 13.00 std 10.98 p99 39.00
}

func ExampleSummarize() {
	reqs := []schema.Request{
		{SendS: 0, EventS: []float64{0.5, 0.75, 1.0}, EndS: 1.0, OutputTokens: 3, PromptTokens: 100, Success: true},
		{SendS: 0.5, EventS: []float64{1.0, 1.25}, EndS: 1.25, OutputTokens: 2, PromptTokens: 100, Success: true},
		{SendS: 0.5, EndS: 2.0, PromptTokens: 100, Error: "Internal Server Error"},
	}
	opt := metrics.Options{Metrics: []string{"ttft", "e2el"}}
	s, err := metrics.Summarize(reqs, opt)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d ok, %d failed in %.1f s; TTFT mean %.0f ms, E2EL p99 %.2f ms; peak %d in flight\n",
		s.Completed, s.Failed, s.DurationS, *s.TTFT.MeanMs, s.E2EL.Percentiles[0].ValueMs, *s.MaxConcurrentRequests)
	// The header carries the same Options: they choose the groups written.
	h := metrics.VLLMHeader{Date: "20261122-090000", Backend: "openai", ModelID: "org/model", NumPrompts: 3, Options: opt}
	if err := metrics.WriteVLLMJSON(os.Stdout, reqs, s, h, false); err != nil {
		panic(err)
	}
	// Output:
	// 2 ok, 1 failed in 2.0 s; TTFT mean 500 ms, E2EL p99 997.50 ms; peak 2 in flight
	// {"date": "20261122-090000", "endpoint_type": "openai", "backend": "openai", "label": null, "model_id": "org/model", "tokenizer_id": null, "num_prompts": 3, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": null, "duration": 2.0, "completed": 2, "failed": 1, "total_input_tokens": 200, "total_output_tokens": 5, "request_throughput": 1.0, "request_goodput": null, "output_throughput": 2.5, "total_token_throughput": 102.5, "latencies": [1.0, 0.75, 0.0], "queue_times": [0.0, 0.5, 0.5], "max_output_tokens_per_s": 3.0, "max_concurrent_requests": 2, "rtfx": 0.0, "mean_ttft_ms": 500.0, "median_ttft_ms": 500.0, "std_ttft_ms": 0.0, "p99_ttft_ms": 500.0, "mean_e2el_ms": 875.0, "median_e2el_ms": 875.0, "std_e2el_ms": 125.0, "p99_e2el_ms": 997.5}
}
