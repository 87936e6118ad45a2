package bench_test

import (
	"context"
	"fmt"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/mock"
)

// Run 8 requests against the simulated engine, at most 4 at a time;
// metrics.WriteText prints res.Summary as vLLM's result block.
func ExampleRun() {
	eng, err := mock.Start(context.Background(), mock.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	samples := make([]dataset.Sample, 8)
	for i := range samples {
		samples[i] = dataset.Sample{Prompt: fmt.Sprintf("hello %d", i), PromptLen: 2, OutputLen: 16}
	}
	res, err := bench.Run(context.Background(), bench.Config{
		BaseURL: eng.URL, Model: "mock", Samples: samples, MaxConcurrency: 4, IgnoreEOS: true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Summary.Completed, "requests,", res.Summary.TotalOutputTokens, "tokens")
	// Output: 8 requests, 128 tokens
}
