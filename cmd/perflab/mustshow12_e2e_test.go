package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMustShowPastedVLLMCommand is issue 12's first acceptance point with
// the real binaries: a `vllm bench serve` command line as pasted from a CI
// script (flags perflab ignores, vLLM's underscore spelling, a dotted
// --extra-body key, a YAML --config) runs against `perflab mock`, exits 0,
// prints one warning per ignored flag and the usual result block.
func TestMustShowPastedVLLMCommand(t *testing.T) {
	bin := buildPerflab(t)
	addr := startMockBinary(t, bin, "--ttft", "2ms", "--itl", "1ms", "--enable-prefix-caching")
	cfg := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(cfg, []byte("max_concurrency: 4\nseed: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields("bench --backend vllm --base-url http://" + addr + " --model mock --trust-remote-code --tokenizer-mode auto" +
		" --dataset-name random --random-input-len 64 --random-output-len 8 --num_prompts 40 --use-beam-search" +
		" --extra-body.min_tokens 8 --plot-timeline --timeline-itl-thresholds 25 50 --no-stream --config " + cfg)
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	for _, f := range []string{"--trust-remote-code", "--tokenizer-mode", "--use-beam-search", "--plot-timeline", "--timeline-itl-thresholds", "--no-stream"} {
		if n := strings.Count(stderr.String(), "perflab: warning: "+f+" has no effect here"); n != 1 {
			t.Errorf("%d warnings for %s, want 1:\n%s", n, f, stderr.String())
		}
	}
	for _, want := range []string{"Successful requests:                     40", "Maximum request concurrency:             4", "Total generated tokens:                  320"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
}
