package ingest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestLLMDReportsEveryHarness: llm-d benchmark reports as each harness
// writes them (inference-perf's stages in one YAML stream, guidellm's in a
// JSON array and in seconds, vLLM's benchmark one report per file of a
// folder, InferenceMAX on SGLang) import with their numbers in perflab's
// units, and the reports of one engine configuration, harness and
// workload at several rates or concurrencies are the points of a sweep.
func TestLLMDReportsEveryHarness(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata/llmd", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var entries []Entry
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		es, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, es...)
	}
	rs, err := Results(entries, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID+"@"+r.Load.Sweep)
	}
	want := []string{
		"vllm-qwen3-8b-a1b2c3d4--guidellm-random-1024-128--c1@max_concurrency",
		"vllm-qwen3-8b-a1b2c3d4--guidellm-random-1024-128--c16@max_concurrency",
		"vllm-qwen3-8b-a1b2c3d4--inference-perf-random-1024-128--rate2@request_rate",
		"vllm-qwen3-8b-a1b2c3d4--inference-perf-random-1024-128--rate5@request_rate",
		"vllm-qwen3-8b-a1b2c3d4--inference-perf-random-1024-128--rate8@request_rate",
		"sglang-qwen3-8b-a1b2c3d4--inferencemax-sampled-1000-1000@",
		"vllm-qwen3-8b-a1b2c3d4--vllm-benchmark-random-1024-128--c32@max_concurrency",
		"vllm-qwen3-8b-a1b2c3d4--vllm-benchmark-random-1024-128--c4@max_concurrency",
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("results\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
	// guidellm's concurrency 16, written in seconds: milliseconds here.
	g := rs[1]
	s := g.Summary
	if s.Completed != 200 || s.TotalInputTokens != 200*1024 || s.TotalOutputTokens != 200*128 || s.DurationS != 20 ||
		*s.TTFT.MeanMs != 360 || *s.ITL.MeanMs != 26 || s.RequestThroughput != 10 || s.OutputThroughput != 1280 || *s.MaxOutputTokensPerS != 1920 {
		t.Errorf("guidellm c16: %+v TTFT %+v ITL %+v", s, s.TTFT, s.ITL)
	}
	if g.Tool.Name != "guidellm" || g.Tool.Version != "0.4.0" || g.Engine.Name != "vllm" || g.Engine.Version != "v0.11.0" ||
		g.Model.ID != "Qwen/Qwen3-8B" || g.Hardware.GPUName != "NVIDIA-H100-80GB-HBM3" || g.Load.MaxConcurrency != 16 {
		t.Errorf("guidellm c16: tool %+v engine %+v model %+v hardware %+v load %+v", g.Tool, g.Engine, g.Model, g.Hardware, g.Load)
	}
	if p99, ok := s.TTFT.Get(99); !ok || p99 != 1080 {
		t.Errorf("TTFT p99 %v", p99)
	}
	ip := rs[4]
	if ip.Load.RequestRate != 8 || ip.Summary.Completed != 300 || ip.Summary.DurationS != 50 || ip.Metadata["llmd_stage"] != "2" {
		t.Errorf("inference-perf stage 2: load %+v summary %+v meta %v", ip.Load, ip.Summary, ip.Metadata)
	}
	if im := rs[5]; im.Engine.Name != "sglang" || im.Load.Dataset != "sampled" || im.Summary.Completed != 640 {
		t.Errorf("InferenceMAX: %+v %+v", im.Engine, im.Load)
	}
}
