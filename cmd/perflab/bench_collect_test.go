package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/telemetry"
)

// promptLog is a proxy in front of a server that records the prompt of
// every benchmark request passing through it (a completion's prompt, a
// chat request's last message), so that two runs can be compared by what
// they sent.
type promptLog struct {
	mu      sync.Mutex
	prompts []string
}

func (l *promptLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.prompts
	l.prompts = nil
	slices.Sort(out) // the order requests arrive in is the scheduler's
	return out
}

func newPromptLog(t *testing.T, target string) (*promptLog, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	l := &promptLog{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "completions") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Prompt   json.RawMessage   `json:"prompt"`
				Messages []json.RawMessage `json:"messages"`
			}
			_ = json.Unmarshal(body, &req)
			p := string(req.Prompt)
			if n := len(req.Messages); n > 0 {
				p = string(req.Messages[n-1]) // earlier turns hold the server's replies
			}
			l.mu.Lock()
			l.prompts = append(l.prompts, p)
			l.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return l, srv.URL
}

// TestBenchAndCollectRunTheSameProfile runs each profile through both
// commands against perflab mock: `perflab collect` with the profile, and
// `perflab bench` with the flags collect says the profile stands for
// (collect.BenchArgs), the same tokenizer (not the server's, so the
// prompts are aligned to it on both paths). Both go through
// collect/benchrun: the server sees the same prompts, as many requests,
// and the results hold the same token totals and describe the same load;
// only the timings differ.
func TestBenchAndCollectRunTheSameProfile(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "fake/model", TTFT: time.Millisecond, ITL: 100 * time.Microsecond, Seed: 1,
		SpecDecode: &mock.SpecDecode{NumSpecTokens: 2, AcceptRate: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	log, base := newPromptLog(t, srv.URL)
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prompts := write("prompts.jsonl", `{"prompt": "What is the capital of India?", "output_tokens": 3}
{"prompt": "What is the capital of Iran?", "output_tokens": 4}
{"prompt": "What is the capital of China?", "output_tokens": 5}
`)
	trace := write("trace.jsonl", `{"timestamp": 0, "input_length": 20, "output_length": 2, "hash_ids": [1, 2]}
{"timestamp": 20, "input_length": 20, "output_length": 3, "hash_ids": [1, 3]}
{"timestamp": 40, "input_length": 12, "output_length": 2, "hash_ids": [1]}
`)
	for _, tt := range []struct{ name, backend, profile string }{
		// random: lengths drawn in a range, a shared prefix, a seed; the
		// prompts are aligned to the server's tokenizer (with this seed
		// the first prompt's count differs, which starts vLLM's check)
		{"random", "openai", `{id: p, name: P, dataset: random, input_len: 24, output_len: 3, range_ratio: 0.25, num_prompts: 8,
			seed: 1, max_concurrency: 2, args: [--random-prefix-len, "4"]}`},
		{"prefix_repetition", "openai", `{id: p, name: P, dataset: prefix_repetition, prefix_repetition_prefix_len: 16,
			prefix_repetition_suffix_len: 8, prefix_repetition_num_prefixes: 2, prefix_repetition_output_len: 2, num_prompts: 6}`},
		// custom does not force ignore_eos: the profile asks for it, so
		// that the mock's outputs reach their lengths on both runs
		{"custom", "openai", `{id: p, name: P, dataset: custom, dataset_path: ` + prompts + `, custom_output_len: -1,
			skip_chat_template: true, num_prompts: 3, args: [--ignore-eos]}`},
		{"timed_trace", "openai", `{id: p, name: P, dataset: timed_trace, dataset_path: ` + trace + `, timed_trace_chunk_hash_size: 10,
			timed_trace_sec_multiplier: 0.001, num_prompts: 3}`},
		{"multi-turn", "openai-chat", `{id: p, name: P, dataset: random, input_len: 24, output_len: 3, num_prompts: 3, seed: 3,
			multi_turn: true, multi_turn_num_turns: 2, per_turn_input_len: 8, multi_turn_concurrency: 2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench: {backend: ` + tt.backend + `, tokenizer: ` + tok + `}
profiles:
  - ` + tt.profile + `
steps:
  - id: s
    title: S
    experiments:
      - {id: m, name: Mock, engine: external, base_url: ` + base + `}
baseline: m
optimized: m
`
			f, err := collect.Parse("w.yaml", []byte(y))
			if err != nil {
				t.Fatal(err)
			}
			results := t.TempDir()
			opt := collect.Options{Results: results, Log: io.Discard,
				Sampler: &telemetry.Fake{Hardware: schema.Hardware{GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 1}}}
			if _, err := collect.Collect(context.Background(), f, opt); err != nil {
				t.Fatal(err)
			}
			viaCollect := readOne(t, filepath.Join(results, "w", "m--p.json"))
			sentByCollect := log.take()

			args := append(collect.BenchArgs(&f.Campaign, &f.Campaign.Profiles[0], "fake/model"),
				"--base-url", base, "--tokenizer", tok, "--ready-check-timeout-sec", "0")
			viaBench, _, stderr := runWorkload(t, args...)
			sentByBench := log.take()

			if len(sentByCollect) == 0 || !slices.Equal(sentByCollect, sentByBench) {
				t.Errorf("the server saw different prompts:\ncollect %q\nbench   %q", sentByCollect, sentByBench)
			}
			if aligned := strings.Contains(stderr, "re-aligning prompts"); aligned != (tt.name == "random" || tt.name == "prefix_repetition") {
				t.Errorf("bench aligned the prompts: %v\n%s", aligned, stderr)
			}
			if viaBench == nil {
				t.Fatalf("bench wrote no result:\n%s", stderr)
			}
			compareRuns(t, viaCollect, viaBench)
		})
	}
}

func readOne(t *testing.T, path string) *schema.Result {
	t.Helper()
	r, err := schema.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != schema.StatusOK || r.Summary == nil {
		t.Fatalf("%s: status %s, error %q", path, r.Status, r.Error)
	}
	return r
}

// compareRuns checks that two results of the same profile agree on what
// was sent and counted: the dataset and load recorded, the requests, the
// token totals, request by request, and that both read the server's
// spec-decode counters.
func compareRuns(t *testing.T, c, b *schema.Result) {
	t.Helper()
	type load struct {
		Dataset, DatasetPath, Backend, Endpoint string
		InputLen, OutputLen, PrefixLen          int
		RangeRatio                              float64
		NumPrompts, MaxConcurrency, Conv        int
		Seed                                    int64
		IgnoreEOS                               bool
	}
	of := func(l schema.Load) load {
		return load{l.Dataset, l.DatasetPath, l.Backend, l.Endpoint, l.InputLen, l.OutputLen, l.PrefixLen, l.RangeRatio,
			l.NumPrompts, l.MaxConcurrency, l.Conversations, l.Seed, l.IgnoreEOS}
	}
	if lc, lb := of(c.Load), of(b.Load); lc != lb {
		t.Errorf("load:\ncollect %+v\nbench   %+v", lc, lb)
	}
	sc, sb := c.Summary, b.Summary
	// the server's speculative-decoding counters, read around the run
	// (their values are the mock's draws)
	if sc.SpecDecode == nil || sb.SpecDecode == nil {
		t.Errorf("spec decode: collect %+v, bench %+v", sc.SpecDecode, sb.SpecDecode)
	}
	if sc.Completed != sb.Completed || sc.Failed != sb.Failed || sc.TotalInputTokens != sb.TotalInputTokens ||
		sc.TotalOutputTokens != sb.TotalOutputTokens {
		t.Errorf("summary: collect %d ok %d failed %d in %d out; bench %d ok %d failed %d in %d out",
			sc.Completed, sc.Failed, sc.TotalInputTokens, sc.TotalOutputTokens, sb.Completed, sb.Failed, sb.TotalInputTokens, sb.TotalOutputTokens)
	}
	// the same text block, numbers aside: vLLM's result block line by line
	if lc, lb := blockLabels(c.RawOutput), blockLabels(b.RawOutput); len(lc) < 10 || !slices.Equal(lc, lb) {
		t.Errorf("text block:\ncollect %q\nbench   %q", lc, lb)
	}
	if len(c.Requests) != len(b.Requests) {
		t.Fatalf("%d requests by collect, %d by bench", len(c.Requests), len(b.Requests))
	}
	tokens := func(rs []schema.Request) [][3]int {
		var out [][3]int
		for _, r := range rs {
			u := -1
			if r.UsagePromptTokens != nil {
				u = *r.UsagePromptTokens
			}
			out = append(out, [3]int{r.PromptTokens, u, r.OutputTokens})
		}
		slices.SortFunc(out, func(a, b [3]int) int { return slices.Compare(a[:], b[:]) })
		return out
	}
	if tc, tb := tokens(c.Requests), tokens(b.Requests); !slices.Equal(tc, tb) {
		t.Errorf("prompt, server-counted and output tokens per request:\ncollect %v\nbench   %v", tc, tb)
	}
}

// blockLabels are the lines of vLLM's result block in a text block,
// without their numbers.
func blockLabels(text string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(line, "Serving Benchmark Result"):
			in = true
		case in && strings.HasPrefix(line, "=========="):
			return out
		case in:
			out = append(out, strings.TrimRight(line, "0123456789.-+e "))
		}
	}
	return out
}
