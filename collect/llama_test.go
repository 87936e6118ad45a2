package collect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/schema"
)

// llamaServer finds llama.cpp's llama-server and the tiny model that
// .ci/install-20-llama-server.sh puts in .cache/llama/ (or the paths in
// PERFLAB_LLAMA_SERVER and PERFLAB_LLAMA_MODEL), and skips the test loudly
// when they are absent.
func llamaServer(t *testing.T) (server, model string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	server = filepath.Join(root, ".cache", "llama", "llama-server")
	model = filepath.Join(root, ".cache", "llama", "tiny-qwen.gguf")
	if s := os.Getenv("PERFLAB_LLAMA_SERVER"); s != "" {
		server = s
	}
	if m := os.Getenv("PERFLAB_LLAMA_MODEL"); m != "" {
		model = m
	}
	for _, p := range []string{server, model} {
		if _, err := os.Stat(p); err != nil {
			status, _ := os.ReadFile(filepath.Join(root, ".cache", "deps-status"))
			t.Skipf("SKIP (llama.cpp end-to-end): %s is missing; run `make deps` (.ci/install-20-llama-server.sh). deps status:\n%s", p, status)
		}
	}
	return server, model
}

// llamaCampaign writes a campaign of llama-server experiments: two with
// different server flags (slots, context) and, when crashAfter > 0, one
// behind a proxy that kills the server after that many requests.
func llamaCampaign(t *testing.T, server, model string, pidDir string, crashAfter int) *File {
	t.Helper()
	port := func() int {
		p, err := engine.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	exps := fmt.Sprintf(`
      - id: np1
        name: 1 slot
        engine: llamacpp
        command: %[1]s -m %[2]s -a tiny-qwen --host 127.0.0.1 --port %[3]d -c 1024 -np 1 -t 1
      - id: np4
        name: 4 slots
        engine: llamacpp
        command: %[1]s -m %[2]s -a tiny-qwen --host 127.0.0.1 --port %[4]d -c 4096 -np 4 -t 1 --metrics
`, server, model, port(), port())
	if crashAfter > 0 {
		exe, _ := os.Executable()
		exps += fmt.Sprintf(`      - id: crashing
        name: crashes mid-run
        engine: llamacpp
        command: %[1]s --port %[2]d --die-after %[3]d -- %[4]s -m %[5]s -a tiny-qwen --host 127.0.0.1 --port %[6]d -c 2048 -np 2 -t 1
        env: {FAKE_ENGINE: proxy, FAKE_ENGINE_PID_DIR: %[7]s}
`, exe, port(), crashAfter, server, model, port(), pidDir)
	}
	y := `id: llama-e2e
model: {id: tiny-qwen}
hardware: {gpu: none, count: 0}
bench: {backend: openai, tokenizer: server}
profiles:
  - {id: short, name: Short, dataset: random, input_len: 32, output_len: 8, num_prompts: 8, seed: 1, args: [--ignore-eos]}
  - {id: capped, name: Capped, dataset: random, input_len: 64, output_len: 16, num_prompts: 6, max_concurrency: 2, seed: 2, args: [--ignore-eos]}
steps:
  - id: slots
    title: Parallel slots
    experiments:` + exps + `
baseline: np1
optimized: np4
`
	f, err := Parse("llama.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLlamaServerEndToEnd collects a campaign against llama.cpp's
// llama-server, an engine nobody on this project wrote: two experiments
// with different server flags, two profiles each, then a third whose
// server dies in the middle of a benchmark.
func TestLlamaServerEndToEnd(t *testing.T) {
	server, model := llamaServer(t)
	pids, dir := t.TempDir(), t.TempDir()
	f := llamaCampaign(t, server, model, pids, 3)
	var log strings.Builder
	rep, err := Collect(context.Background(), f, Options{Results: dir, HealthTimeout: time.Minute, StopGrace: 5 * time.Second,
		Log: &log, Sampler: nil})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	res := readResults(t, filepath.Join(dir, "llama-e2e"))
	for _, name := range []string{"np1--short", "np1--capped", "np4--short", "np4--capped"} {
		r := res[name]
		if r == nil {
			t.Fatalf("no result %s", name)
		}
		if r.Status != schema.StatusOK || r.Summary == nil || r.Summary.Completed != r.Load.NumPrompts || r.Summary.Failed != 0 {
			var errs []string
			for _, q := range r.Requests {
				if !q.Success {
					errs = append(errs, fmt.Sprintf("request %d: HTTP %d: %s", q.Index, q.HTTPStatus, q.Error))
				}
			}
			t.Fatalf("%s: %s %q %+v\n%s", name, r.Status, r.Error, r.Summary, strings.Join(errs, "\n"))
		}
		// --ignore-eos: exactly output_len tokens per request, counted by the server.
		if r.Summary.TotalOutputTokens != r.Load.NumPrompts*r.Load.OutputLen {
			t.Errorf("%s: %d output tokens, want %d", name, r.Summary.TotalOutputTokens, r.Load.NumPrompts*r.Load.OutputLen)
		}
		if r.Engine.Name != "llamacpp" || r.Engine.Version == "" || r.Model.ID != "tiny-qwen" {
			t.Errorf("%s: engine %+v model %+v", name, r.Engine, r.Model)
		}
		if !strings.Contains(r.RawOutput, "Serving Benchmark Result") {
			t.Errorf("%s: raw output %q", name, r.RawOutput)
		}
	}
	if !strings.Contains(res["np4--short"].Engine.Command, "-np 4") || !strings.Contains(res["np1--short"].Engine.Command, "-np 1") {
		t.Errorf("commands: %q / %q", res["np1--short"].Engine.Command, res["np4--short"].Engine.Command)
	}
	// The capped profile never had more than 2 requests in flight.
	if m := res["np4--capped"].Summary.MaxConcurrentRequests; m != nil && *m > 2 {
		t.Errorf("capped profile peaked at %d concurrent requests", *m)
	}

	// The crashing experiment: both profiles crashed (the engine is
	// relaunched for the second and crashes again), with the log tail.
	for _, name := range []string{"crashing--short", "crashing--capped"} {
		r := res[name]
		if r == nil || r.Status != schema.StatusCrashed || !strings.Contains(r.LogTail, "illegal memory access") {
			t.Fatalf("%s: %+v", name, r)
		}
	}
	if rep.Status[schema.StatusOK] != 4 || rep.Status[schema.StatusCrashed] != 2 {
		t.Fatalf("report %+v", rep)
	}
	// No llama-server of this campaign is left (other tests may run
	// servers of the same model at the same time: match the ports too).
	var ports []string
	for _, e := range f.Campaign.Steps[0].Experiments {
		for _, m := range regexp.MustCompile(`--port (\d+)`).FindAllStringSubmatch(e.Command, -1) {
			ports = append(ports, "--port\x00"+m[1]+"\x00")
		}
	}
	if left := serversOf(model, ports); len(left) > 0 {
		t.Fatalf("llama-server processes left: %v", left)
	}
}

// serversOf lists running processes whose command line names path and
// one of ports (as NUL-separated argv words).
func serversOf(path string, ports []string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), path) {
			continue
		}
		mine := false
		for _, p := range ports {
			mine = mine || strings.Contains(string(b), p)
		}
		if !mine {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i > 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z") {
			continue
		}
		out = append(out, strings.ReplaceAll(string(b), "\x00", " ")+" [stat: "+strings.TrimSpace(s)+"]")
	}
	return out
}

// TestLlamaWithoutPortOnCPU: the campaign a newcomer writes from the
// README for llama.cpp on a CPU machine: no --port (the build's default
// is not the 8080 collect once assumed, and it waited ten silent
// minutes), hardware accelerator cpu. Collect gives the server a port,
// says what it waits for, and no run carries an NVML caveat.
func TestLlamaWithoutPortOnCPU(t *testing.T) {
	server, model := llamaServer(t)
	dir := t.TempDir()
	y := `id: llama-cpu
model: {id: tiny-qwen}
hardware: {gpu: 2-core VM, accelerator: cpu, count: 1}
bench: {backend: openai, tokenizer: server}
profiles:
  - {id: chat, name: Chat, dataset: random, input_len: 16, output_len: 4, num_prompts: 2, seed: 1, concurrency: [1, 2], args: [--ignore-eos]}
steps:
  - id: slots
    title: Parallel slots
    experiments:
      - {id: np2, name: 2 slots, engine: llamacpp, command: ` + server + ` -m ` + model + ` -a tiny-qwen -c 1024 -np 2 -t 1}
baseline: np2
optimized: np2
`
	f, err := Parse("llama-cpu.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	rep, err := Collect(context.Background(), f, Options{Results: dir, HealthTimeout: time.Minute, StopGrace: 5 * time.Second, Log: &log})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status[schema.StatusOK] != 2 || len(rep.Unexpected) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if !regexp.MustCompile(`np2: waiting for http://127\.0\.0\.1:\d+/health to answer`).MatchString(log.String()) {
		t.Error("the log does not say what collect waits for")
	}
	for name, r := range readResults(t, filepath.Join(dir, "llama-cpu")) {
		if !strings.Contains(r.Engine.Command, "-a tiny-qwen") || strings.Contains(r.Engine.Command, "--port") {
			t.Errorf("%s: recorded command %q (the campaign's, without the port collect added)", name, r.Engine.Command)
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "telemetry") {
				t.Errorf("%s: warning %q on a CPU campaign", name, w)
			}
		}
	}
}
