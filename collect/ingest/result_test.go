package ingest

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

const testCampaign = `id: demo
model: {id: Qwen/Qwen3-32B, variants: [Qwen/Qwen3-32B-FP8]}
hardware: {vendor: NVIDIA, gpu: H100, count: 2}
engines: [{name: vllm, version: v0.11.0}]
bench: {backend: openai-chat, endpoint: /v1/chat/completions, tool: vllm bench serve}
profiles:
  - {id: sharegpt, name: ShareGPT, dataset: sharegpt, num_prompts: 1000}
  - {id: very-long, name: Very Long Prompt, dataset: random, input_len: 32000, output_len: 100, num_prompts: 100, seed: 42}
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: vllm, name: vLLM, engine: vllm, command: vllm serve Qwen/Qwen3-32B}
      - {id: sg, name: SGLang, engine: sglang, command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B, profiles: [sharegpt]}
      - {id: fa, name: FlashInfer, engine: vllm, command: vllm serve Qwen/Qwen3-32B, env: {VLLM_ATTENTION_BACKEND: FLASHINFER}, gpus: 1}
baseline: vllm
optimized: vllm
`

func campaign(t *testing.T) *schema.Campaign {
	t.Helper()
	c, err := ParseCampaign("c.yaml", []byte(testCampaign))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func block(t *testing.T) string {
	t.Helper()
	return string(readFixture(t, "vllm_header.txt"))
}

// TestResultsFromCampaign: a directive ties each block to the campaign,
// which supplies engine, load and hardware; the command beside the block is
// kept and checked against the experiment's.
func TestResultsFromCampaign(t *testing.T) {
	src := "vllm serve Qwen/Qwen3-32B\n# perflab: experiment=vllm profile=sharegpt\n" + block(t) +
		"\nVLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-32B-FP8\n# perflab: experiment=fa profile=sharegpt\n# Crash on inference\n"
	es := mustParse(t, "s.md", []byte(src))
	rs, err := Results(es, Options{Campaign: campaign(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d results", len(rs))
	}
	r := rs[0]
	if r.ID != "vllm--sharegpt" || r.Campaign != "demo" || r.Engine.Name != "vllm" || r.Engine.Version != "v0.11.0" ||
		r.Model.ID != "Qwen/Qwen3-32B" || r.Load.NumPrompts != 1000 || r.Load.Backend != "openai-chat" ||
		r.Hardware.GPUCount != 2 || r.Hardware.GPUName != "NVIDIA H100" || r.Tool.Name != "vllm bench serve" ||
		r.Label != "vLLM / ShareGPT" || r.Metadata["source"] != "s.md:3" || r.Metadata["command_source"] != "s.md:1" {
		t.Errorf("result %+v", r)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings on a clean run: %v", r.Warnings)
	}
	c := rs[1]
	if c.Status != schema.StatusCrashed || c.Summary != nil || c.Error != "Crash on inference (as recorded in the source; no benchmark output)" ||
		c.Engine.Env["VLLM_ATTENTION_BACKEND"] != "FLASHINFER" || c.Hardware.GPUCount != 1 || c.Model.ID != "Qwen/Qwen3-32B-FP8" {
		t.Errorf("crash result %+v", c)
	}
	// the source command serves FP8, the campaign's does not
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "differs from the experiment's command") {
		t.Errorf("crash warnings %v", c.Warnings)
	}
}

// TestResultsErrors: ids that do not resolve name the file and line.
func TestResultsErrors(t *testing.T) {
	b := block(t)
	tests := []struct {
		name, src string
		opt       Options
		want      string
	}{
		{"no ids with a campaign", b, Options{Campaign: nil}, ""},
		{"missing ids", b, Options{Campaign: &schema.Campaign{ID: "demo"}}, "s.md:1: which run is this?"},
		{"unknown experiment", "# perflab: experiment=nope profile=sharegpt\n" + b, Options{}, `s.md:1: campaign "demo" has no experiment "nope"`},
		{"unknown profile", b, Options{Experiment: "vllm", Profile: "long"}, `s.md:1: campaign "demo" has no profile "long"`},
		{"profile the experiment does not run", b, Options{Experiment: "sg", Profile: "very-long"}, `s.md:1: experiment "sg" of campaign "demo" runs only profiles sharegpt, not "very-long"`},
		{"two blocks one run", b + b, Options{Experiment: "vllm", Profile: "sharegpt"}, ""}, // identical numbers: kept once
		{"two different blocks one run", b + strings.Replace(b, "178.01", "178.02", 1), Options{Experiment: "vllm", Profile: "sharegpt"}, `s.md:24: experiment "vllm" profile "sharegpt" was already imported from s.md:1 with different numbers`},
		{"campaign id clash", b, Options{CampaignID: "other", Experiment: "vllm", Profile: "sharegpt"}, `campaign id "other" differs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			if opt.Campaign == nil && tt.name != "no ids with a campaign" {
				opt.Campaign = campaign(t)
			}
			es := mustParse(t, "s.md", []byte(tt.src))
			rs, err := Results(es, opt)
			if tt.want == "" {
				if err != nil || len(rs) != 1 {
					t.Fatalf("err %v, %d results", err, len(rs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestResultsWithoutCampaign: ids come from the file name and the labels.
func TestResultsWithoutCampaign(t *testing.T) {
	es := mustParse(t, "testdata/labelled_blocks.md", readFixture(t, "labelled_blocks.md"))
	rs, err := Results(es, Options{Engine: "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, " "); got != "labelled-blocks--random-32k-input labelled-blocks--random-4k-input labelled-blocks--random-2k-input labelled-blocks--random-128-input" {
		t.Fatalf("ids %s", got)
	}
	if rs[0].Model.ID != "Qwen/Qwen3-32B" || rs[0].Engine.Command != "vllm serve Qwen/Qwen3-32B" || rs[0].Label != "random 32K input" || rs[0].Load.NumPrompts != 0 {
		t.Fatalf("result %+v", rs[0])
	}
	// unlabelled blocks are numbered: two identical blocks under distinct
	// ids are two results
	es = mustParse(t, "x.txt", []byte(block(t)+block(t)))
	rs, err = Results(es, Options{Model: "m"})
	if err != nil || len(rs) != 2 || rs[0].ID != "x--block-1" || rs[1].ID != "x--block-2" || rs[0].Model.ID != "m" || rs[0].Engine.Name != "external" {
		t.Fatalf("err %v results %v", err, rs)
	}
}

func s(completed, failed, in, out int, dur, reqps, outps, total float64) *schema.Summary {
	return &schema.Summary{Completed: completed, Failed: failed, TotalInputTokens: in, TotalOutputTokens: out,
		DurationS: dur, RequestThroughput: reqps, OutputThroughput: outps, TotalTokenThroughput: total}
}

// TestCheck: each warning rule fires on its case and stays quiet on the
// normal one.
func TestCheck(t *testing.T) {
	random := schema.Load{Dataset: "random", InputLen: 1000, OutputLen: 100, NumPrompts: 10}
	ok := s(10, 0, 10000, 1000, 10, 1, 100, 1100)
	tests := []struct {
		name string
		sum  *schema.Summary
		load schema.Load
		want []string // substrings, one per expected warning; none for a clean run
	}{
		{"clean", ok, random, nil},
		{"partial success", s(5, 0, 5000, 500, 10, 0.5, 50, 550), random, []string{"5 of 10 requests succeeded (50.0%)"}},
		{"failed requests", s(8, 2, 8000, 800, 10, 0.8, 80, 880), random, []string{"8 of 10 requests succeeded", "2 requests failed"}},
		{"more than sent", s(12, 0, 12000, 1200, 12, 1, 100, 1100), random, []string{"12 requests succeeded, more than the 10"}},
		{"nothing succeeded", s(0, 10, 0, 0, 10, 0, 0, 0), random, []string{"0 of 10", "10 requests failed", "no request succeeded"}},
		// output stopped early (EOS), input fine
		{"short outputs", s(10, 0, 10000, 700, 10, 1, 70, 1070), random, []string{"total generated tokens 700 are 30.0% below 10 requests × 100 tokens = 1000 (requests stopped"}},
		{"long inputs", s(10, 0, 12000, 1000, 10, 1, 100, 1300), random, []string{"total input tokens 12000 are 20.0% above"}},
		// ShareGPT lengths vary: no token check
		{"sharegpt lengths", s(10, 0, 3000, 5000, 10, 1, 500, 800), schema.Load{Dataset: "sharegpt", NumPrompts: 10}, nil},
		{"rate mismatch", s(10, 0, 10000, 1000, 10, 1.5, 100, 1100), random, []string{"request throughput 1.5 req/s differs by +50.0%"}},
		{"total rate mismatch", s(10, 0, 10000, 1000, 10, 1, 100, 2200), random, []string{"total token throughput 2200 tok/s differs by +100.0%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Check(&schema.Result{Summary: tt.sum, Load: tt.load})
			if len(w) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", w, len(tt.want))
			}
			for i := range w {
				if !strings.Contains(w[i], tt.want[i]) {
					t.Errorf("warning %q, want %q", w[i], tt.want[i])
				}
			}
		})
	}
}

// TestCheckPeakAndLatency covers the peak-throughput and latency rules.
func TestCheckPeakAndLatency(t *testing.T) {
	base := func() *schema.Summary { return s(10, 0, 10000, 1000, 10, 1, 100, 1100) }
	tests := []struct {
		name string
		mod  func(*schema.Summary)
		want []string
	}{
		// a peak above the average total is normal for output-heavy runs
		{"plausible peak", func(s *schema.Summary) { s.MaxOutputTokensPerS = schema.F(900) }, nil},
		{"impossible peak", func(s *schema.Summary) { s.MaxOutputTokensPerS = schema.F(30810010.86) }, []string{"peak output token throughput 30810010.86 tok/s is impossible: more than the 1000 tokens"}},
		{"implausible peak", func(s *schema.Summary) {
			s.DurationS, s.RequestThroughput = 100, 0.1
			s.TotalOutputTokens, s.OutputThroughput, s.TotalTokenThroughput = 100000, 1000, 1100
			s.MaxOutputTokensPerS = schema.F(50000)
		}, []string{"peak output token throughput 50000 tok/s is implausible: 45× the total token throughput 1100 tok/s"}},
		{"zero ITL", func(s *schema.Summary) {
			s.ITL = &schema.Stats{MeanMs: schema.F(0), MedianMs: schema.F(0), Percentiles: []schema.Percentile{{P: 99, ValueMs: 0}}}
		}, []string{"ITL was not measured: every ITL value is 0.00 ms"}},
		{"zero median", func(s *schema.Summary) {
			s.TTFT = &schema.Stats{MeanMs: schema.F(5), MedianMs: schema.F(0), Percentiles: []schema.Percentile{{P: 99, ValueMs: 9}}}
		}, []string{"TTFT median is 0.00 ms"}},
		{"percentiles out of order", func(s *schema.Summary) {
			s.TPOT = &schema.Stats{MedianMs: schema.F(10), Percentiles: []schema.Percentile{{P: 95, ValueMs: 12}, {P: 99, ValueMs: 11}}}
		}, []string{"TPOT p99 (11 ms) is below the p95 (12 ms)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := base()
			tt.mod(sum)
			w := Check(&schema.Result{Summary: sum, Load: schema.Load{Dataset: "sharegpt"}})
			if len(w) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", w, len(tt.want))
			}
			for i := range w {
				if !strings.Contains(w[i], tt.want[i]) {
					t.Errorf("warning %q, want %q", w[i], tt.want[i])
				}
			}
		})
	}
}

// TestParseCampaignErrors: unknown fields and dangling ids name file:line
// (and the field's path), worded as collect and render word them: all
// three read the file with collect/schema/campaignfile.
func TestParseCampaignErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown field", strings.Replace(testCampaign, "  - id: engine\n", "  - id: engine\n    colour: red\n", 1), `c.yaml:11: steps[0].colour: unknown field "colour" in a step`},
		{"bad baseline", strings.Replace(testCampaign, "baseline: vllm", "baseline: sglang", 1), `c.yaml:16: baseline: unknown experiment "sglang"`},
		// The line is the second use of the id, not the first.
		{"duplicate experiment", strings.Replace(testCampaign, "{id: fa,", "{id: vllm,", 1), `c.yaml:15: steps[0].experiments[2].id: duplicate experiment id "vllm"`},
		// A missing key has no line to point at.
		{"no id", strings.Replace(testCampaign, "id: demo\n", "", 1), "c.yaml: id: missing"},
		{"bad yaml", "id: [", "c.yaml:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCampaign("c.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCommandHelpers(t *testing.T) {
	tests := []struct{ cmd, engine, model string }{
		{"vllm serve Qwen/Qwen3-32B -tp 2", "vllm", "Qwen/Qwen3-32B"},
		{"VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Q -tp 4", "vllm", "Qwen/Q"},
		{"python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 8", "sglang", "Qwen/Qwen3-32B"},
		{"trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960", "trtllm", "Qwen/Qwen3-32B-FP8"},
		{"vllm serve \\\n  --model=Qwen/X \\\n  --foo", "vllm", "Qwen/X"},
		{"llama-server -m tiny.gguf --port 8080", "llamacpp", "tiny.gguf"},
		{"python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B -tp 2", "vllm", "Qwen/Qwen3-8B"},
		{"curl localhost", "", ""},
		// Containers: the engine from the inner command or the image, the
		// model from --model or the positional after vllm/vllm-openai.
		{"docker run --runtime nvidia --gpus all \\\n -v ~/.cache/huggingface:/root/.cache/huggingface \\\n -p 8000:8000 --ipc=host vllm/vllm-openai:v0.11.0 \\\n --model Qwen/Qwen3-8B -tp 2", "vllm", "Qwen/Qwen3-8B"},
		{"docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest Qwen/Qwen3-32B --max-model-len 8192", "vllm", "Qwen/Qwen3-32B"},
		{"sudo docker run -it --rm --gpus all --shm-size 32g -e HF_TOKEN=x lmsysorg/sglang:v0.5.4 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2", "sglang", "Qwen/Qwen3-8B"},
		{"podman run -d --name v -v /m:/m docker.io/vllm/vllm-openai vllm serve /m/Qwen3-8B", "vllm", "/m/Qwen3-8B"},
		{"docker run -d -p 5432:5432 postgres:16", "", ""},
	}
	for _, tt := range tests {
		if e, m := EngineOf(tt.cmd), ModelOf(tt.cmd); e != tt.engine || m != tt.model {
			t.Errorf("%q: engine %q model %q, want %q %q", tt.cmd, e, m, tt.engine, tt.model)
		}
		if got, want := ServingCommand(tt.cmd), tt.engine != ""; got != want {
			t.Errorf("%q: ServingCommand %v, want %v", tt.cmd, got, want)
		}
	}
}

// TestDockerServingCommand: a `docker run` of an engine image before an
// output is the output's serving command (continuation lines joined);
// a container that runs no engine is not.
func TestDockerServingCommand(t *testing.T) {
	block := "```\n" + cliBlockForDocker + "```\n"
	page := "```bash\ndocker run --gpus all -p 8000:8000 \\\n  lmsysorg/sglang:latest \\\n  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n```\n\n" + block +
		"```bash\ndocker run -d redis:7\n```\n\n" + block
	es := mustParse(t, "page.md", []byte(page))
	if len(es) != 2 {
		t.Fatalf("%d entries", len(es))
	}
	for i, e := range es {
		if e.CommandLine != 2 || !strings.Contains(e.Command, "sglang.launch_server") || !strings.HasPrefix(e.Command, "docker run") {
			t.Errorf("entry %d: command %q at line %d", i, e.Command, e.CommandLine)
		}
	}
}

const cliBlockForDocker = `============ Serving Benchmark Result ============
Successful requests:                     10
Benchmark duration (s):                  2.00
Total input tokens:                      1000
Total generated tokens:                  500
Request throughput (req/s):              5.00
Output token throughput (tok/s):         250.00
Total Token throughput (tok/s):          750.00
==================================================
`
