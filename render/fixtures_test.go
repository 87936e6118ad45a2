package render

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

var update = flag.Bool("update", false, "rewrite golden files and fixtures in testdata")

const fixtureSite = "testdata/site"

// fixtureResults are the hand-made results of testdata/site's demo
// campaign. Each row exercises something the pages must show:
func fixtureResults() []*schema.Result {
	stats := func(mean, median, p99 float64) *schema.Stats {
		return &schema.Stats{MeanMs: schema.F(mean), MedianMs: schema.F(median), Percentiles: []schema.Percentile{{P: 99, ValueMs: p99}}}
	}
	sum := func(done, failed int, dur, rps, out, total, ttft, tpot, itl float64) *schema.Summary {
		return &schema.Summary{DurationS: dur, Completed: done, Failed: failed, TotalInputTokens: done * 217, TotalOutputTokens: done * 201,
			RequestThroughput: rps, OutputThroughput: out, TotalTokenThroughput: total, MaxOutputTokensPerS: schema.F(out * 2), MaxConcurrentRequests: schema.I(done),
			TTFT: stats(ttft, ttft*0.98, ttft*1.9), TPOT: stats(tpot, tpot*0.8, tpot*4), ITL: stats(itl, itl*0.7, itl*4)}
	}
	load := func(p string) schema.Load {
		if p == "long" {
			return schema.Load{Backend: "openai-chat", Endpoint: "/v1/chat/completions", Dataset: "random", InputLen: 4000, OutputLen: 200, NumPrompts: 500, Seed: 42}
		}
		return schema.Load{Backend: "openai-chat", Endpoint: "/v1/chat/completions", Dataset: "sharegpt", NumPrompts: 1000,
			Command: "vllm bench serve --model Qwen/Qwen3-32B --backend openai-chat --endpoint /v1/chat/completions --dataset-name sharegpt --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 1000"}
	}
	mk := func(exp, prof, engine string, s *schema.Summary) *schema.Result {
		return &schema.Result{ID: "demo-h100--" + exp + "--" + prof, Campaign: "demo-h100", Experiment: exp, Profile: prof,
			Status: schema.StatusOK, Engine: schema.Engine{Name: engine}, Model: schema.Model{ID: "Qwen/Qwen3-32B"},
			Load: load(prof), Tool: schema.Tool{Name: "vllm bench serve", Version: "0.11.0"}, Summary: s,
			Hardware: &schema.Hardware{GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 2, GPUs: []schema.GPU{{Index: 0, Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559}}, DriverVersion: "570.86.15", CUDAVersion: "12.8"}}
	}
	vb := mk("vllm-base", "sharegpt", "vllm", sum(1000, 0, 178.01, 5.62, 1131.55, 2352.82, 78118.74, 88.09, 69.76))
	vbl := mk("vllm-base", "long", "vllm", sum(500, 0, 120.2, 4.16, 832.1, 2148.69, 30210.5, 66.61, 60.1))
	// SGLang on ShareGPT: partial success (516 of 1000) must be flagged.
	sg := mk("sglang-base", "sharegpt", "sglang", sum(516, 484, 247.94, 2.08, 814.03, 1690.84, 115690.30, 57.86, 56.25))
	sg.Warnings = []string{"484 requests failed: HTTP 503 (server overloaded)"}
	// SGLang on the long profile crashed: no summary, a log tail.
	sgl := mk("sglang-base", "long", "sglang", nil)
	sgl.Status, sgl.Error, sgl.LogTail = schema.StatusCrashed, "engine exited with status 1 before becoming healthy", "torch.OutOfMemoryError: CUDA out of memory <allocating 2.00 GiB>\n"
	// FP8 on one GPU: higher per-GPU throughput; the ShareGPT run keeps its
	// raw text (with HTML-like text that must stay escaped) and an
	// implausible peak throughput.
	f8 := mk("vllm-fp8", "sharegpt", "vllm", sum(1000, 0, 104.55, 9.56, 1926.06, 4005.62, 45000.2, 95.3, 70.2))
	f8.Summary.MaxOutputTokensPerS = schema.F(30810010.86)
	f8.Hardware.GPUCount = 1
	f8.RawOutput = "<script>alert('raw output must be escaped')</script>\n============ Serving Benchmark Result ============\nSuccessful requests:                     1000      \nTotal Token throughput (tok/s):          4005.62   \n==================================================\n"
	f8l := mk("vllm-fp8", "long", "vllm", sum(500, 0, 80.1, 6.24, 1248.3, 1500.00, 20001.0, 60.0, 55.0))
	f8l.Hardware.GPUCount = 1
	return []*schema.Result{vb, vbl, sg, sgl, f8, f8l}
}

// TestFixtureResults keeps testdata/site/results in step with
// fixtureResults (go test -run FixtureResults -update rewrites them).
func TestFixtureResults(t *testing.T) {
	for _, r := range fixtureResults() {
		p := filepath.Join(fixtureSite, "results", r.Campaign, r.Experiment+"--"+r.Profile+".json")
		want, err := schema.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := schema.WriteAtomic(p, want); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run go test -run FixtureResults -update)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale; run go test -run FixtureResults -update", p)
		}
	}
}
