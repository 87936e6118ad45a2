package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

// TestBenchCommandFaults runs `perflab bench` against the simulated engine
// injecting HTTP 500s, stalls, cut streams and garbage events: the run
// ends, failures are counted with their errors, the report is written.
func TestBenchCommandFaults(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{
		TTFT: time.Millisecond, ITL: 200 * time.Microsecond, Seed: 4,
		Faults: mock.Faults{ErrorRate: 0.15, StallRate: 0.1, CutRate: 0.15, GarbageRate: 0.15},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run.json")
	var stdout, stderr bytes.Buffer
	// ShareGPT: the simulated engine's /tokenize sizes the prompts
	err = run(context.Background(), []string{"bench", "--base-url", srv.URL, "--dataset-name", "sharegpt",
		"--dataset-path", shareGPTFile(t, 40), "--sharegpt-output-len", "10", "--ignore-eos", "--num-prompts", "40", "--max-concurrency", "8", "--request-timeout", "300ms",
		"--output-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	res, err := schema.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range res.Requests {
		switch {
		case r.Success:
			kinds["ok"]++
		case strings.HasPrefix(r.Error, "HTTP 500"):
			kinds["500"]++
		case strings.Contains(r.Error, "request timeout"):
			kinds["timeout"]++
		case strings.Contains(r.Error, "stream cut"):
			kinds["cut"]++
		case strings.Contains(r.Error, "malformed JSON chunk"):
			kinds["garbage"]++
		default:
			t.Errorf("request %d: unexpected error %q", r.Index, r.Error)
		}
	}
	if len(res.Requests) != 40 || res.Summary.Failed != 40-kinds["ok"] || kinds["ok"] == 0 {
		t.Fatalf("%d records, summary failed %d, kinds %v", len(res.Requests), res.Summary.Failed, kinds)
	}
	for _, k := range []string{"500", "timeout", "cut", "garbage"} {
		if kinds[k] == 0 {
			t.Errorf("no %s failure among %v", k, kinds)
		}
	}
	if !strings.Contains(stdout.String(), "Failed requests during benchmark run detected") ||
		!strings.Contains(stdout.String(), "Serving Benchmark Result") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// TestBenchCommandInterrupt stops a run mid-way (Ctrl-C): exit status 1,
// the finished requests are reported and saved as an interrupted result.
func TestBenchCommandInterrupt(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{TTFT: time.Millisecond, ITL: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run.json")
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// 30 requests of 20 tokens, 2 at a time: ~6 s if not stopped
	err = run(ctx, []string{"bench", "--base-url", srv.URL, "--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 30),
		"--sharegpt-output-len", "20", "--ignore-eos", "--num-prompts", "30", "--max-concurrency", "2", "--output-json", out}, &stdout, &stderr)
	if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("exit %d, err %v", code, err)
	}
	res, rerr := schema.ReadFile(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if res.Status != schema.StatusInterrupted || len(res.Requests) == 0 || len(res.Requests) >= 30 {
		t.Fatalf("status %s with %d records", res.Status, len(res.Requests))
	}
	for _, r := range res.Requests {
		if !r.Success {
			t.Errorf("kept a request cut by the stop: %+v", r)
		}
	}
	if !strings.Contains(stdout.String(), "Serving Benchmark Result") {
		t.Errorf("no report for the finished requests:\n%s", stdout.String())
	}
}

// TestBenchCommandInterruptBeforeFirst stops a run before any request
// finished: exit status 1, no vLLM JSON (no numbers), but the perflab
// result is saved as interrupted, so that the stop is on record.
func TestBenchCommandInterruptBeforeFirst(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{TTFT: time.Millisecond, ITL: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// 4 requests of 100 tokens at 50 ms: none ends before the stop
	err = run(ctx, []string{"bench", "--base-url", srv.URL, "--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 4),
		"--sharegpt-output-len", "100", "--ignore-eos", "--num-prompts", "4", "--save-result", "--result-dir", dir,
		"--result-filename", "run.json"}, &stdout, &stderr)
	if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("exit %d, err %v\n%s", code, err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "run.json")); !os.IsNotExist(err) {
		t.Errorf("a vLLM JSON without numbers was written (stat: %v)", err)
	}
	res, err := schema.ReadFile(filepath.Join(dir, "run.perflab.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != schema.StatusInterrupted || len(res.Requests) != 0 || res.Summary != nil || len(res.Warnings) == 0 {
		t.Fatalf("status %s, %d records, summary %v, warnings %q", res.Status, len(res.Requests), res.Summary, res.Warnings)
	}
}

// shareGPTFile writes n ShareGPT conversations to a temporary file.
func shareGPTFile(t *testing.T, n int) string {
	var convs []map[string]any
	for i := range n {
		convs = append(convs, map[string]any{"conversations": []map[string]string{
			{"from": "human", "value": fmt.Sprintf("Question %d: why is the sky blue on a clear and sunny afternoon?", i)},
			{"from": "gpt", "value": "Because air molecules scatter short blue wavelengths of sunlight far more than red ones."},
		}})
	}
	data, err := json.Marshal(convs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sharegpt.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchCommandVLLMJSONHeader checks the header of the --save-result
// JSON against what vLLM writes for the same command line: tokenizer_id is
// --tokenizer, or the model id when the server tokenizes (vLLM: "args.tokenizer
// or model_id"), never the word "server".
func TestBenchCommandVLLMJSONHeader(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "org/tiny"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"bench", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
		"--random-output-len", "2", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["model_id"] != "org/tiny" || got["tokenizer_id"] != "org/tiny" || got["backend"] != "openai" || got["num_prompts"] != 2.0 {
		t.Errorf("header: model_id %v tokenizer_id %v backend %v num_prompts %v", got["model_id"], got["tokenizer_id"], got["backend"], got["num_prompts"])
	}
}

// authMock serves the simulated engine behind an API key, as `vllm serve
// --api-key` does: every route answers 401 without "Bearer key". It
// records the headers of the generation requests.
type authMock struct {
	h       http.Handler
	key     string
	mu      sync.Mutex
	headers []http.Header
	bodies  []string
	paths   map[string]int
}

func startAuthMock(t *testing.T, key string, cfg mock.Config) (*authMock, string) {
	h, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	a := &authMock{h: h, key: key, paths: map[string]int{}}
	srv := httptest.NewUnstartedServer(a)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return a, srv.URL
}

func (a *authMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.paths[r.URL.Path]++
	if strings.HasSuffix(r.URL.Path, "completions") {
		a.headers = append(a.headers, r.Header.Clone())
		body, _ := io.ReadAll(r.Body)
		a.bodies = append(a.bodies, string(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	a.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+a.key {
		http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	a.h.ServeHTTP(w, r)
}

// TestBenchCommandHeaders: OPENAI_API_KEY reaches the model list and the
// server tokenizer too (they failed with 401 before), --header reaches
// every benchmark request, and --request-id-prefix numbers x-request-id.
func TestBenchCommandHeaders(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sekret")
	a, url := startAuthMock(t, "sekret", mock.Config{})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", url, "--num-prompts", "3", "--random-input-len", "8",
		"--random-output-len", "2", "--header", "x-tenant=blue", "x-trace = 7", "--request-id-prefix", "run9-"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Successful requests:                     3 ") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	ids := map[string]bool{}
	for _, h := range a.headers {
		ids[h.Get("x-request-id")] = true
		if h.Get("X-Tenant") != "blue" || h.Get("X-Trace") != "7" {
			t.Errorf("headers %v", h)
		}
	}
	if !ids["run9-0"] || !ids["run9-2"] || len(ids) != 3 {
		t.Errorf("request ids %v", ids)
	}
	if a.paths["/v1/models"] == 0 || a.paths["/tokenize"] == 0 {
		t.Errorf("routes asked: %v", a.paths)
	}
}

func TestBenchHeaderUsage(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--header", "novalue"}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), "KEY=VALUE") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// TestBenchCommandSampling: vLLM's sampling flags and --extra-body reach
// the request body ({**sampling, **extra_body}, merged last), only when
// given, and the perflab result records them (and the --goodput SLOs its
// goodput counts against).
func TestBenchCommandSampling(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	a, url := startAuthMock(t, "k", mock.Config{})
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", url, "--backend", "openai-chat", "--num-prompts", "2",
		"--random-input-len", "8", "--random-output-len", "2", "--temperature", "0", "--top-k", "20", "--top-p", "0.95",
		"--extra-body", `{"top_p": 0.8, "chat_template_kwargs": {"enable_thinking": false}}`, "--goodput", "ttft:500", "e2el:900",
		"--output-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(a.bodies) != 2 {
		t.Fatalf("%d bodies", len(a.bodies))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(a.bodies[0]), &body); err != nil {
		t.Fatal(err)
	}
	// --extra-body's top_p wins over --top-p, as in vLLM
	if body["temperature"] != 0.0 || body["top_k"] != 20.0 || body["top_p"] != 0.8 || body["max_completion_tokens"] != 2.0 {
		t.Errorf("body %s", a.bodies[0])
	}
	if kw, _ := body["chat_template_kwargs"].(map[string]any); kw == nil || kw["enable_thinking"] != false {
		t.Errorf("body %s", a.bodies[0])
	}
	for _, absent := range []string{"min_p", "presence_penalty", "repetition_penalty"} {
		if _, ok := body[absent]; ok {
			t.Errorf("%s sent without its flag: %s", absent, a.bodies[0])
		}
	}
	res, err := schema.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Load.GoodputSLOMs; len(g) != 2 || g["ttft"] != 500 || g["e2el"] != 900 || res.Summary.RequestGoodput == nil {
		t.Errorf("goodput SLOs %v, goodput %v", g, res.Summary.RequestGoodput)
	}
	want := `{"top_p":0.8,"top_k":20,"temperature":0.0,"chat_template_kwargs":{"enable_thinking":false}}`
	var got bytes.Buffer
	if err := json.Compact(&got, res.Load.ExtraBody); err != nil || got.String() != want {
		t.Errorf("result extra_body %s (%v), want %s", res.Load.ExtraBody, err, want)
	}
}

func TestBenchSamplingUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--temperature", "hot"},
		{"--top-k", "1.5"},
		{"--extra-body", "[1]"},
		{"--extra-body", "{bad"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"bench"}, args...), &out, &errb)
		if code := exitCode(err, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (err %v)", args, code, err)
		}
	}
}

// TestBenchCommandServedModelName: behind vLLM's --served-model-name the
// name sent differs from the model id recorded. Without --model, vLLM
// sends /v1/models' id and records its root; with --model ID
// --served-model-name NAME it sends NAME and records ID. The simulated
// engine answers 404 to any other name, so success shows what was sent.
func TestBenchCommandServedModelName(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "org/Big", ServedModelNames: []string{"big"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, extra := range [][]string{nil, {"--model", "org/Big", "--served-model-name", "big"}} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"bench", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
			"--random-output-len", "2", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}, extra...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("%q: %v\n%s", extra, err, stderr.String())
		}
		data, err := os.ReadFile(filepath.Join(dir, "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if got["model_id"] != "org/Big" || got["completed"] != 2.0 {
			t.Errorf("%q: model_id %v, completed %v", extra, got["model_id"], got["completed"])
		}
		res, err := schema.ReadFile(filepath.Join(dir, "r.perflab.json"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Model.ID != "org/Big" || res.Model.Served != "big" {
			t.Errorf("%q: model %+v", extra, res.Model)
		}
	}
}

// TestBenchCommandShareGPTOrder: --disable-shuffle sends the conversations
// in file order and --no-oversample sends only those there are (vLLM's
// flags; both were refused before).
func TestBenchCommandShareGPTOrder(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	a, url := startAuthMock(t, "k", mock.Config{})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", url, "--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 4),
		"--num-prompts", "10", "--output-len", "2", "--disable-shuffle", "--no-oversample", "--request-id-prefix", "r"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(a.bodies) != 4 {
		t.Fatalf("%d requests, want the file's 4", len(a.bodies))
	}
	byIndex := map[int]string{}
	for k, b := range a.bodies {
		var i int
		if _, err := fmt.Sscanf(a.headers[k].Get("x-request-id"), "r%d", &i); err != nil {
			t.Fatal(err)
		}
		byIndex[i] = b
	}
	for i := range 4 {
		b := byIndex[i]
		var body struct {
			Prompt    string `json:"prompt"`
			MaxTokens int    `json:"max_tokens"`
		}
		if err := json.Unmarshal([]byte(b), &body); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(body.Prompt, fmt.Sprintf("Question %d:", i)) || body.MaxTokens != 2 {
			t.Errorf("request %d: prompt %q max_tokens %d", i, body.Prompt, body.MaxTokens)
		}
	}
}

// TestBenchCommandAppendResult: --append-result adds each run's vLLM JSON
// as one more line of the same file (vLLM: a newline before each appended
// record), and keeps each run's perflab result.
func TestBenchCommandAppendResult(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	for run1 := range 2 {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"bench", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
			"--random-output-len", "2", "--append-result", "--result-dir", dir, "--result-filename", "all.json",
			"--metadata", fmt.Sprintf("run=%d", run1)}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "all.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), data)
	}
	for i, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["run"] != fmt.Sprint(i) {
			t.Errorf("line %d: %v, run %v", i, err, rec["run"])
		}
	}
	// one perflab result per run, named after its line, even when both
	// runs end within the same second
	for i := 1; i <= 2; i++ {
		r, err := schema.ReadFile(filepath.Join(dir, fmt.Sprintf("all-%d.perflab.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Metadata["run"] != fmt.Sprint(i-1) {
			t.Errorf("all-%d.perflab.json has run %q", i, r.Metadata["run"])
		}
	}
}

// TestBenchCommandAllFailed: a run where every request failed (a server
// answering 500) prints the errors and the report, saves it, warns as
// vLLM does, and exits 1 so that a script notices.
func TestBenchCommandAllFailed(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Faults: mock.Faults{ErrorRate: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"bench", "--base-url", srv.URL, "--num-prompts", "3", "--random-input-len", "8",
		"--random-output-len", "2", "--output-json", out}, &stdout, &stderr)
	if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(err.Error(), "all 3 requests failed") {
		t.Fatalf("exit %d, err %v", code, err)
	}
	if !strings.Contains(stdout.String(), "Error 0: HTTP 500") || !strings.Contains(stdout.String(), "Failed requests:                         3") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "warning: all 3 requests failed (first error: HTTP 500") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	res, err := schema.ReadFile(out)
	if err != nil || res.Summary == nil || res.Summary.Failed != 3 {
		t.Fatalf("saved result: %v %+v", err, res)
	}
}

// TestBenchCommandReadyCheck: --ready-check-timeout-sec waits for an engine
// still loading (503) instead of failing at once on its model list, then
// sends vLLM's initial test request; the traffic lines come after the
// warmups, as vLLM prints them.
func TestBenchCommandReadyCheck(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{StartupDelay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"bench", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
		"--random-output-len", "2", "--ready-check-timeout-sec", "20", "--num-warmups", "1"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Successful requests:                     2 ") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	order := []string{"Model list is up.", "Starting initial single prompt test run...", "Waiting for endpoint to become up in 20 seconds",
		"Initial test run completed.", "Warming up with 1 requests...", "Warmup run completed.", "Starting main benchmark run...",
		"Traffic request rate: inf", "Burstiness factor: 1.0 (Poisson process)", "Maximum request concurrency: None"}
	at := 0
	for _, l := range order {
		i := strings.Index(stderr.String()[at:], l)
		if i < 0 {
			t.Fatalf("stderr lacks %q after byte %d (vLLM's order):\n%s", l, at, stderr.String())
		}
		at += i + len(l)
	}
}

// TestBenchCommandReadyCheckTimeout: a server that never answers the test
// request fails the command (exit 1, vLLM's message) after the timeout,
// sending no measured request.
func TestBenchCommandReadyCheckTimeout(t *testing.T) {
	var completions atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
		case "/tokenize":
			var body struct {
				Prompt string `json:"prompt"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": make([]int, len(strings.Fields(body.Prompt)))})
		default:
			completions.Add(1)
			http.Error(w, "engine loading", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := run(context.Background(), []string{"bench", "--base-url", srv.URL, "--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 3),
		"--num-prompts", "3", "--ready-check-timeout-sec", "1"}, &stdout, &stderr)
	if code := exitCode(err, &bytes.Buffer{}); code != 1 || !strings.Contains(err.Error(), "Initial test run failed") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("exit %d, err %v\n%s", code, err, stderr.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v with a 1 s timeout", d)
	}
	if n := completions.Load(); n != 1 {
		// 1 s timeout, a retry every 5 s: one test request, no measured one
		t.Errorf("%d completions sent, want the one test request", n)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// TestBenchCommandNoUsage: against a server that sends no usage, output
// tokens are counted with the tokenizer from the generated text, as vLLM
// does (here the server's /tokenize, one token per word: 3 words per event,
// so 6 tokens from 2 events), not as one token per event.
func TestBenchCommandNoUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
		case "/tokenize":
			var body struct {
				Prompt string `json:"prompt"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			ids := make([]int, len(strings.Fields(body.Prompt)))
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
		case "/v1/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"one two three \"}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"four five six\"}]}\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", srv.URL, "--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 3),
		"--num-prompts", "3", "--output-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Total generated tokens:                  18 ") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "tokenizing the generated text") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	res, err := schema.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Requests {
		if r.OutputTokens != 6 || !r.OutputCounted || r.GeneratedText != "" {
			t.Errorf("record %+v", r)
		}
	}
}

// TestTokenizeServerAPIKey: perflab tokenize --tokenizer server sends
// OPENAI_API_KEY as perflab bench does (an API-key server answered 401).
func TestTokenizeServerAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k2")
	_, url := startAuthMock(t, "k2", mock.Config{})
	var out, errb bytes.Buffer
	text := "four words right here"
	err := tokenizeMain(context.Background(), []string{"--tokenizer", "server", "--base-url", url, "--model", "mock"},
		strings.NewReader(text), &out, &errb)
	want, _ := mock.Tokenizer{}.Encode(text)
	if err != nil || out.String() != fmt.Sprintf("%d\n", len(want)) {
		t.Fatalf("out %q, err %v, want %d", out.String(), err, len(want))
	}
}

// TestTokenizeServerError: a server that refuses /tokenize (here 401 for a
// wrong key) is an error, not a count of 0.
func TestTokenizeServerError(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "wrong")
	_, url := startAuthMock(t, "k2", mock.Config{})
	var out, errb bytes.Buffer
	err := tokenizeMain(context.Background(), []string{"--tokenizer", "server", "--base-url", url, "--model", "mock"},
		strings.NewReader("four words right here"), &out, &errb)
	if err == nil || out.Len() != 0 {
		t.Fatalf("out %q, err %v, want an error and no output", out.String(), err)
	}
	if !strings.Contains(err.Error(), "tokenize") {
		t.Errorf("err %v does not name the stage", err)
	}
}
