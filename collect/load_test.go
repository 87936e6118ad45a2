package collect

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const valid = `id: demo
model:
  id: Qwen/Qwen3-32B
  variants: [Qwen/Qwen3-32B-FP8]
hardware: {gpu: H100, count: 2}
profiles:
  - {id: sharegpt, name: ShareGPT, dataset: sharegpt, dataset_path: ShareGPT_V3_unfiltered_cleaned_split.json, num_prompts: 1000}
  - {id: long, name: Long Prompt, dataset: random, input_len: 4000, output_len: 200, num_prompts: 500, seed: 42}
steps:
  - id: engine
    title: Choosing the Inference Engine
    experiments:
      - {id: vllm, name: vLLM, engine: vllm, command: vllm serve Qwen/Qwen3-32B}
      - {id: sglang, name: SGLang, engine: sglang, command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B}
  - id: quant
    title: Quantization
    experiments:
      - {id: fp8, name: +FP8, engine: vllm, args: [--max-model-len, "32768"], profiles: [long]}
      - id: fp8-tp2
        name: TP2
        engine: vllm
        command: |
          # two GPUs
          vllm serve Qwen/Qwen3-32B-FP8 \
            -tp 2 --api-key sk-abcdefghijklmnopqrstuv
baseline: vllm
optimized: fp8-tp2
`

func TestParseErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown top-level field", "id: x\nmodle: {id: m}\n", `c.yaml:2: unknown field "modle" in the campaign`},
		{"unknown experiment field", strings.Replace(valid, "engine: sglang,", "engine: sglang, gpu: 2,", 1),
			`c.yaml:14: steps[0].experiments[1].gpu: unknown field "gpu" in an experiment`},
		{"wrong type", strings.Replace(valid, "num_prompts: 500", "num_prompts: many", 1),
			"c.yaml:8: profiles[1].num_prompts: cannot unmarshal !!str `many` into int"},
		{"wrong type in a block mapping", strings.Replace(valid, "        engine: vllm\n", "        engine: vllm\n        gpus: two\n", 1),
			"c.yaml:22: steps[1].experiments[1].gpus: cannot unmarshal !!str `two` into int"},
		{"malformed YAML", "id: [x\n", "c.yaml:"},
		// yaml.v3 reports its parser's errors one line early; the line is
		// the one holding the unclosed bracket.
		{"unclosed flow sequence", strings.Replace(valid, "variants: [Qwen/Qwen3-32B-FP8]", "variants: [Qwen/Qwen3-32B-FP8", 1),
			"c.yaml:4: did not find expected ',' or ']'"},
		{"unclosed flow mapping", strings.Replace(valid, "hardware: {gpu: H100, count: 2}", "hardware: {gpu: H100, count: 2", 1),
			"c.yaml:5: did not find expected ',' or '}'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	f, err := Parse("c.yaml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatalf("valid campaign: %v", err)
	}
	for _, tc := range []struct {
		name     string
		old, new string
		want     string
	}{
		{"duplicate experiment id", "id: sglang, name: SGLang", "id: vllm, name: SGLang",
			`c.yaml:14: steps[0].experiments[1].id: duplicate experiment id "vllm"`},
		{"duplicate profile id", "id: long, name: Long", "id: sharegpt, name: Long",
			`c.yaml:8: profiles[1].id: duplicate profile id "sharegpt"`},
		{"experiment names a missing profile", "profiles: [long]", "profiles: [longer]",
			`c.yaml:18: steps[1].experiments[0].profiles[0]: unknown profile "longer"`},
		{"baseline is not an experiment", "baseline: vllm", "baseline: vlm", `c.yaml:26: baseline: unknown experiment "vlm"`},
		{"command serves another model", "command: vllm serve Qwen/Qwen3-32B}", "command: vllm serve Qwen/Qwen3-8B}",
			"c.yaml:13: steps[0].experiments[0].command: does not serve the campaign's model Qwen/Qwen3-32B"},
		{"more GPUs than the hardware", "hardware: {gpu: H100, count: 2}", "hardware: {gpu: H100, count: 1}",
			"steps[1].experiments[1].command: asks for 2-way parallelism but the experiment has 1 GPUs"},
		{"experiment gpus above hardware", "id: vllm, name: vLLM, engine: vllm,", "id: vllm, name: vLLM, engine: vllm, gpus: 4,",
			"c.yaml:13: steps[0].experiments[0].gpus: uses 4 GPUs but the campaign's hardware has 2"},
		// An external endpoint's base_url is the server's root.
		{"external base_url with /v1", "{id: sglang, name: SGLang, engine: sglang, command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B}",
			"{id: sglang, name: GPUStack, engine: external, base_url: 'https://gpustack.example.com/v1/'}",
			"c.yaml:14: steps[0].experiments[1].base_url: https://gpustack.example.com/v1/: give the server's root, without /v1"},
		{"external base_url with a query", "{id: sglang, name: SGLang, engine: sglang, command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B}",
			"{id: sglang, name: GPUStack, engine: external, base_url: 'https://h.example.com?api_key=abc123'}",
			"c.yaml:14: steps[0].experiments[1].base_url: https://h.example.com?api_key=<redacted>: no query or fragment"},
		{"external base_url without a scheme", "{id: sglang, name: SGLang, engine: sglang, command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B}",
			"{id: sglang, name: GPUStack, engine: external, base_url: 'gpustack:8080'}",
			"base_url: gpustack:8080: want http://HOST:PORT"},
		{"unknown engine", "engine: sglang,", "engine: sglan,", `unknown engine "sglan" (known: vllm, sglang, trtllm, llamacpp, mock, external)`},
		{"command and args", "args: [--max-model-len, \"32768\"]", "command: vllm serve Qwen/Qwen3-32B, args: [-x]",
			"give either command"},
		{"shell syntax in a command", "command: vllm serve Qwen/Qwen3-32B}", "command: vllm serve Qwen/Qwen3-32B | tee x}",
			`shell syntax "|"`},
		{"random profile without lengths", "input_len: 4000, ", "", "c.yaml:8: profiles[1].input_len: must be > 0"},
		{"id not usable in a file name", "id: fp8, name", "id: FP8--x, name", `"FP8--x" is not a valid id`},
		{"no profiles", "profiles:\n  - {id: sharegpt", "profiles: []\nprofiles_gone:\n  - {id: sharegpt", ""}, // unknown field: a parse error (below)
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := strings.Replace(valid, tc.old, tc.new, 1)
			if y == valid {
				t.Fatalf("replacement %q not found", tc.old)
			}
			f, err := Parse("c.yaml", []byte(y))
			if err != nil {
				if tc.want == "" {
					return
				}
				t.Fatal(err)
			}
			err = f.Validate()
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	f, err := Parse("c.yaml", []byte("id: Bad Id\nmodel: {id: m}\nprofiles: []\nsteps: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	var fields []string
	for _, p := range ve.Problems {
		fields = append(fields, p.Field)
	}
	// Missing top-level keys have no line and come last.
	want := []string{"id", "profiles", "steps", "baseline", "optimized"}
	if strings.Join(fields, ",") != strings.Join(want, ",") {
		t.Fatalf("fields %v, want %v\n%v", fields, want, err)
	}
	for i := 1; i < len(ve.Problems); i++ {
		if ve.Problems[i].Line != 0 && ve.Problems[i].Line < ve.Problems[i-1].Line {
			t.Fatalf("not in line order: %v", err)
		}
	}
}

func TestPlanOrderAndKeys(t *testing.T) {
	f, err := Parse("c.yaml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(&f.Campaign, "results")
	var names []string
	for _, r := range p.Runs {
		names = append(names, r.Name)
	}
	// Steps in order, each experiment's profiles together; fp8 only on long.
	want := "vllm--sharegpt vllm--long sglang--sharegpt sglang--long fp8--long fp8-tp2--sharegpt fp8-tp2--long"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("order:\n got %s\nwant %s", got, want)
	}
	if p.Runs[0].Path != filepath.Join("results", "demo", "vllm--sharegpt.json") {
		t.Fatalf("path %s", p.Runs[0].Path)
	}
	keys := map[string]bool{}
	for _, r := range p.Runs {
		if len(r.Key) != 16 || keys[r.Key] {
			t.Fatalf("key %q not unique or not 16 hex", r.Key)
		}
		keys[r.Key] = true
	}
	// Display names do not change keys; flags do.
	c := f.Campaign
	k0 := RunKey(&c, &c.Steps[0].Experiments[0], &c.Profiles[0])
	c.Steps[0].Experiments[0].Name = "vLLM (renamed)"
	c.Profiles[0].Name = "Share GPT"
	if RunKey(&c, &c.Steps[0].Experiments[0], &c.Profiles[0]) != k0 {
		t.Fatal("a display name changed the key")
	}
	c.Steps[0].Experiments[0].Command += " --enable-prefix-caching"
	if RunKey(&c, &c.Steps[0].Experiments[0], &c.Profiles[0]) == k0 {
		t.Fatal("a new flag kept the key")
	}

	// Secrets do not: rotating a token repeats nothing, and the key (in
	// every result) is no offline oracle for guessing the secret.
	e := &c.Steps[1].Experiments[1] // its command holds --api-key sk-…
	e.Env = map[string]string{"HF_TOKEN": "hf-old-token-1", "VLLM_USE_V1": "1"}
	k1 := RunKey(&c, e, &c.Profiles[1])
	e.Command = strings.Replace(e.Command, "sk-abcdefghijklmnopqrstuv", "sk-rotated-0123456789xyz", 1)
	e.Env = map[string]string{"HF_TOKEN": "hf-new-token-2", "VLLM_USE_V1": "1"}
	if RunKey(&c, e, &c.Profiles[1]) != k1 {
		t.Fatal("a rotated secret changed the key")
	}
	e.Env["VLLM_USE_V1"] = "0"
	if RunKey(&c, e, &c.Profiles[1]) == k1 {
		t.Fatal("a changed environment variable kept the key")
	}
}

// manyRuns builds a plan of e experiments × p profiles.
func manyRuns(e, p int) *Plan {
	f, _ := Parse("c.yaml", []byte(valid))
	c := f.Campaign
	c.Steps = c.Steps[:1]
	base := c.Steps[0].Experiments[0]
	c.Steps[0].Experiments = nil
	for i := 0; i < e; i++ {
		x := base
		x.ID = "exp" + itoa(i)
		c.Steps[0].Experiments = append(c.Steps[0].Experiments, x)
	}
	prof := c.Profiles[1]
	c.Profiles = nil
	for i := 0; i < p; i++ {
		x := prof
		x.ID = "prof" + itoa(i)
		c.Profiles = append(c.Profiles, x)
	}
	return NewPlan(&c, "results")
}

func TestShardPartition(t *testing.T) {
	for _, byExp := range []bool{true, false} {
		for _, n := range []int{1, 2, 3, 7} {
			p := manyRuns(12, 5)
			owner := map[string]int{}
			for i := 0; i < n; i++ {
				for _, r := range p.Shard(i, n, byExp) {
					if prev, ok := owner[r.Name]; ok {
						t.Fatalf("n=%d byExp=%v: %s in shards %d and %d", n, byExp, r.Name, prev, i)
					}
					owner[r.Name] = i
				}
			}
			if len(owner) != len(p.Runs) {
				t.Fatalf("n=%d byExp=%v: shards cover %d of %d runs", n, byExp, len(owner), len(p.Runs))
			}
			if byExp {
				for _, r := range p.Runs { // an experiment is never split
					if owner[r.Name] != owner[r.Experiment.ID+"--prof0"] {
						t.Fatalf("experiment %s split across shards", r.Experiment.ID)
					}
				}
			}
			// Stable when runs are added: a bigger campaign keeps every
			// existing run in its shard.
			bigger := manyRuns(20, 8)
			for i := 0; i < n; i++ {
				for _, r := range bigger.Shard(i, n, byExp) {
					if prev, ok := owner[r.Name]; ok && prev != i {
						t.Fatalf("n=%d: adding runs moved %s from shard %d to %d", n, r.Name, prev, i)
					}
				}
			}
		}
	}
	// Balance, loosely: 7 shards of 100 experiments each get some.
	p := manyRuns(100, 1)
	for i := 0; i < 7; i++ {
		if got := len(p.Shard(i, 7, true)); got < 5 {
			t.Errorf("shard %d/7 has %d of 100 runs", i, got)
		}
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string][2]int{"0/1": {0, 1}, "3/4": {3, 4}} {
		i, n, err := ParseShard(in)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("ParseShard(%q) = %d %d %v", in, i, n, err)
		}
	}
	for _, bad := range []string{"4/4", "-1/4", "1", "a/b", "0/0"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestDryRunGolden(t *testing.T) {
	f, err := Parse("c.yaml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	// The plan checks the engines' programs on PATH: the same on every
	// machine, whatever it has installed.
	fakePath(t, "vllm", "python3")
	for _, tc := range []struct {
		golden string
		opt    Options
	}{
		{"dryrun.golden", Options{Results: "results"}},
		{"dryrun-shard.golden", Options{Results: "results", Shard: 1, Shards: 2}},
	} {
		var b strings.Builder
		if err := PrintPlan(&b, f, tc.opt); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.golden)
		if *update {
			os.WriteFile(path, []byte(b.String()), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s differs (go test -update to refresh):\n%s", tc.golden, b.String())
		}
		if strings.Contains(b.String(), "sk-abcdefghijklmnopqrstuv") {
			t.Error("the plan shows a secret")
		}
	}
}

// BenchmarkPlanShard lays out a campaign of 200 experiments × 50 profiles
// (10,000 runs) and takes shard 3 of 16.
func BenchmarkPlanShard(b *testing.B) {
	p := manyRuns(200, 50)
	c := p.Campaign
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plan := NewPlan(c, "results")
		if len(plan.Shard(3, 16, true)) == 0 {
			b.Fatal("empty shard")
		}
	}
}

// TestWarnings: legal but probably wrong commands are reported, with the
// file's line and a fix; correct ones are not.
func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, command string // the first experiment's command ("": as in valid)
		engine        string // the second experiment's engine ("": as in valid)
		want          string // "" for no warning
	}{
		{"plain commands", "", "", ""},
		// Shell rules (bash's too) take the double quotes of an unquoted
		// JSON value: vLLM would receive {method:mtp,…} and exit.
		{"JSON lost its quotes", `vllm serve Qwen/Qwen3-32B --speculative-config={"method":"mtp","num_speculative_tokens":4}`, "",
			`c.yaml:13: steps[0].experiments[0].command: the engine receives --speculative-config={method:mtp,num_speculative_tokens:4}, which is not JSON: ` +
				`a shell, like the collector, removes the double quotes; put the value in single quotes (--speculative-config='{"method":"mtp","num_speculative_tokens":4}')`},
		{"JSON in single quotes", `vllm serve Qwen/Qwen3-32B --speculative-config '{"method":"mtp"}'`, "", ""},
		{"JSON list", `vllm serve Qwen/Qwen3-32B --cuda-graph-sizes [1,2,4]`, "", ""},
		{"another engine's launcher", "", "vllm", "c.yaml:14: steps[0].experiments[1].command: launches sglang but engine is vllm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("c.yaml", []byte(valid))
			if err != nil {
				t.Fatal(err)
			}
			if tc.command != "" {
				f.Campaign.Steps[0].Experiments[0].Command = tc.command
			}
			if tc.engine != "" {
				f.Campaign.Steps[0].Experiments[1].Engine = tc.engine
			}
			ws := strings.Join(f.Warnings(), "\n")
			if tc.want == "" && ws != "" || !strings.Contains(ws, tc.want) {
				t.Fatalf("warnings:\n%s\nwant %q", ws, tc.want)
			}
		})
	}
}

// fakePath makes PATH a directory holding an executable for each name.
func fakePath(t *testing.T, names ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

// TestDryRunChecksCommands: a missing engine binary and a missing model
// file named in a command were not caught by --dry-run (both runs
// "todo"); the real run crashed both. The plan names them, and says when
// repeats are too few for the U test ever to decide.
func TestDryRunChecksCommands(t *testing.T) {
	fakePath(t, "vllm")
	dir := t.TempDir()
	model := filepath.Join(dir, "tiny.gguf")
	if err := os.WriteFile(model, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	y := `id: own
model: {id: tiny}
hardware: {gpu: 2-core VM, accelerator: cpu, count: 1}
profiles:
  - {id: chat, dataset: random, input_len: 16, output_len: 4, num_prompts: 3, concurrency: [1, 2], repeats: 3}
steps:
  - id: slots
    title: Slots
    experiments:
      - {id: np1, engine: llamacpp, command: llama-server -m ` + model + ` -a tiny -np 1}
      - {id: np2, engine: llamacpp, command: llama-server -m ./models/missing.gguf -a tiny -np 2}
      - {id: v, engine: vllm, command: vllm serve tiny --chat-template=` + dir + `/none.jinja}
baseline: np1
optimized: np2
`
	f, err := Parse("own.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := PrintPlan(&b, f, Options{Results: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	plan := b.String()
	for _, want := range []string{
		"missing: own.yaml:10: steps[0].experiments[0].command: experiment np1: program llama-server is not on PATH",
		"missing: own.yaml:11: steps[0].experiments[1].command: experiment np2: program llama-server is not on PATH",
		"missing: own.yaml:11: steps[0].experiments[1].command: experiment np2: the command names ./models/missing.gguf, which does not exist here",
		"missing: own.yaml:12: steps[0].experiments[2].command: experiment v: the command names " + dir + "/none.jinja, which does not exist here",
		"warning: own.yaml:5: profiles[0].repeats: 3 runs per configuration can never show a difference",
		"  1 step, 3 experiments, 1 profile, 18 runs\n", // not "1 steps"
		"experiment np1 (np1): engine llamacpp, 1 CPU, at http://127.0.0.1:<free port>",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	for _, not := range []string{"experiment np1: the command names", "experiment v: program"} {
		if strings.Contains(plan, not) {
			t.Errorf("plan says %q:\n%s", not, plan)
		}
	}
}
