package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollectUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no campaign", []string{"collect"}, 2, "want one campaign file"},
		{"two campaigns", []string{"collect", "a.yaml", "b.yaml"}, 2, "got 2"},
		{"bad shard", []string{"collect", "x.yaml", "--shard", "4/4"}, 2, "0 ≤ I < N"},
		{"bad shard unit", []string{"collect", "x.yaml", "--shard-by", "gpu"}, 2, "want experiment or run"},
		{"unknown flag", []string{"collect", "--frobnicate"}, 2, "flag provided but not defined"},
		{"force and retry", []string{"collect", "x.yaml", "--force", "--retry"}, 2, "give one of them"},
		{"missing file", []string{"collect", "nope.yaml", "--dry-run"}, 1, "nope.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tc.args, &out, &errb)
			if code := exitCode(err, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}

func TestCollectDryRunDemo(t *testing.T) {
	var out, errb bytes.Buffer
	// The report directory stands for its campaign.yaml; flags may follow
	// the campaign, as people type them.
	campaign := filepath.Join("..", "..", "content", "demo", "mock-h100")
	if err := run(context.Background(), []string{"collect", campaign, "--dry-run", "--results", t.TempDir()}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"serve: perflab mock --model perflab/mock-8b --preset vllm",
		"perflab bench --model perflab/mock-8b --backend openai --endpoint /v1/completions --dataset-name random --random-input-len 128",
		"12 runs to collect, 0 already done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCollectInvalidCampaign(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("id: x\nmodel: {id: m}\nprofiles: []\nsteps: []\nbaseline: a\noptimized: a\n"), 0o644)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"collect", "--dry-run", path}, &out, &errb)
	if code := exitCode(err, &errb); code != 1 || !strings.Contains(errb.String(), path+":3: profiles: missing") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// TestCollectGPUInfo: on a machine without an NVIDIA driver (CI) the
// sampler's view is a clear sentence on stderr and exit status 1 (a node
// check must be able to fail), not a crash; on a GPU node it is the
// inventory and one second of samples as JSON.
func TestCollectGPUInfo(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"collect", "--gpu-info"}, &out, &errb)
	code := exitCode(err, &errb)
	if code == 0 {
		if !strings.Contains(out.String(), `"gpu_count"`) {
			t.Fatalf("exit 0 without an inventory: %q", out.String())
		}
		t.Log(out.String())
		return
	}
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "gpu telemetry unavailable") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	t.Log(errb.String())

	// A campaign beside --gpu-info is a mistake, not silently ignored.
	errb.Reset()
	err = run(context.Background(), []string{"collect", "--gpu-info", "c.yaml"}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), "takes no campaign") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// TestCollectExitStatusUnexpectedCrash: a missing engine binary crashed
// every run and collect exited 0; a CI job could not tell. A run that
// crashes or fails unexpected is exit status 1, with the runs named; an
// experiment's expect: crashed (the demo's refused token budget) keeps
// the status 0.
func TestCollectExitStatusUnexpectedCrash(t *testing.T) {
	for _, tc := range []struct {
		expect string
		code   int
	}{{"", 1}, {"\n        expect: crashed", 0}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "c.yaml")
		os.WriteFile(path, []byte(`id: x
model: {id: m}
hardware: {gpu: CPU, count: 1}
profiles:
  - {id: p, dataset: random, input_len: 8, output_len: 2, num_prompts: 1}
steps:
  - id: s
    title: S
    experiments:
      - id: gone
        engine: llamacpp
        command: `+filepath.Join(dir, "llama-server")+` -m m.gguf -a m`+tc.expect+`
baseline: gone
optimized: gone
`), 0o644)
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"collect", path, "--results", filepath.Join(dir, "results")}, &out, &errb)
		code := exitCode(err, &errb)
		if code != tc.code {
			t.Errorf("expect %q: exit %d, want %d\n%s", tc.expect, code, tc.code, errb.String())
		}
		if tc.code == 1 && !strings.Contains(errb.String(), "1 run(s) crashed or failed that the campaign does not expect") {
			t.Errorf("stderr does not name the unexpected crash:\n%s", errb.String())
		}
	}
}
