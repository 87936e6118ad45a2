package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// startLlamaServer starts .cache/llama/llama-server (installed by
// .ci/install-20-llama-server.sh) on a free 127.0.0.1 port, stopped by PID
// at the end of the test; it skips loudly when it is not installed.
func startLlamaServer(t *testing.T) string {
	root, _ := filepath.Abs("../..")
	bin := filepath.Join(root, ".cache/llama/llama-server")
	model := filepath.Join(root, ".cache/llama/tiny-qwen.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("SKIP: perflab bench end-to-end: %s is not installed (run `bash .ci/install-20-llama-server.sh` or `make deps`)", p)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(bin, "-m", model, "-a", "tiny-qwen", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "-c", "4096", "-np", "4", "-t", "1")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("llama-server not healthy after 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBenchCommandEndToEnd runs `perflab bench` (in process) against
// llama.cpp's server the way a user would, with the server's tokenizer.
func TestBenchCommandEndToEnd(t *testing.T) {
	base := startLlamaServer(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", base, "--backend", "openai-chat",
		"--tokenizer", "server", "--random-input-len", "32", "--random-output-len", "16", "--num-prompts", "8",
		"--max-concurrency", "4", "--seed", "3", "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99",
		"--goodput", "ttft:10000", "tpot:10000", "--save-result", "--save-detailed", "--result-dir", dir,
		"--result-filename", "run.json", "--metadata", "gpu=none", "host=ci"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{"Serving Benchmark Result", "Successful requests:                     8", "Failed requests:                         0",
		"Maximum request concurrency:             4", "Request goodput (req/s):", "Total generated tokens:                  128", "P99 E2EL (ms):"} {
		if !strings.Contains(text, want) {
			t.Errorf("stdout lacks %q:\n%s", want, text)
		}
	}
	var vj map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &vj); err != nil {
		t.Fatalf("vLLM JSON: %v", err)
	}
	if vj["completed"] != 8.0 || vj["backend"] != "openai-chat" || vj["gpu"] != "none" || vj["total_output_tokens"] != 128.0 {
		t.Errorf("vLLM JSON: %v", vj)
	}
	res, err := schema.ReadFile(filepath.Join(dir, "run.perflab.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Requests) != 8 || res.Summary.Completed != 8 || res.Metadata["host"] != "ci" || res.RawOutput != text || res.Client == nil {
		t.Errorf("perflab JSON: %d requests, summary %+v, metadata %v", len(res.Requests), res.Summary, res.Metadata)
	}
	if res.Requests[0].GeneratedText == "" {
		t.Error("--save-detailed kept no generated text")
	}
}

// TestBenchCommandShareGPT runs `perflab bench` with a tokenizer.json
// (Qwen3's, the tiny model's own) and a ShareGPT file, writing only
// perflab's JSON.
func TestBenchCommandShareGPT(t *testing.T) {
	base := startLlamaServer(t)
	tokDir, _ := filepath.Abs("../../.cache/tokenizers/qwen3")
	if _, err := os.Stat(filepath.Join(tokDir, "tokenizer.json")); err != nil {
		t.Skipf("SKIP: %s is not installed (run `make deps`)", tokDir)
	}
	dir := t.TempDir()
	var convs []map[string]any
	for i := range 12 {
		convs = append(convs, map[string]any{"conversations": []map[string]string{
			{"from": "human", "value": "Tell me, in a few friendly sentences, why the sky looks blue on day " + strconv.Itoa(i) + "."},
			{"from": "gpt", "value": "Sunlight scatters off the air molecules, and blue light scatters the most, so the sky glows blue."},
		}})
	}
	data, _ := json.Marshal(convs)
	sg := filepath.Join(dir, "sharegpt.json")
	if err := os.WriteFile(sg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "res", "run.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", base, "--model", "tiny-qwen", "--tokenizer", tokDir,
		"--dataset-name", "sharegpt", "--dataset-path", sg, "--num-prompts", "5", "--sharegpt-output-len", "8",
		"--ignore-eos", "--request-rate", "50", "--burstiness", "2", "--output-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	res, err := schema.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Completed != 5 || res.Summary.TotalOutputTokens != 40 || res.Load.Dataset != "sharegpt" || res.Load.RequestRate != 50 {
		t.Fatalf("summary %+v load %+v", res.Summary, res.Load)
	}
	for _, r := range res.Requests {
		// the client-side Qwen3 count equals the server's (no BOS for Qwen)
		if r.UsagePromptTokens == nil || *r.UsagePromptTokens != r.PromptTokens {
			t.Errorf("request %d: dataset says %d prompt tokens, server %v", r.Index, r.PromptTokens, r.UsagePromptTokens)
		}
	}
	if !strings.Contains(stderr.String(), "Burstiness factor: 2.0 (Gamma distribution)") {
		t.Errorf("stderr %q", stderr.String())
	}
}
