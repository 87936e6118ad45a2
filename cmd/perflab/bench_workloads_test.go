package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

// workloadMock is a mock engine with a prefix cache and spec-decode
// counters, for the workload tests.
func workloadMock(t *testing.T) (*mock.Running, *mock.Server) {
	t.Helper()
	srv, err := mock.Start(context.Background(), mock.Config{
		TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond, Seed: 1,
		PrefixCache: &mock.PrefixCache{}, SpecDecode: &mock.SpecDecode{NumSpecTokens: 2, AcceptRate: 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, srv.Server
}

func runWorkload(t *testing.T, args ...string) (res *schema.Result, stdout, stderr string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.json")
	var o, e bytes.Buffer
	if err := run(context.Background(), append(append([]string{"bench"}, args...), "--output-json", out), &o, &e); err != nil {
		t.Fatalf("%v\n%s", err, e.String())
	}
	if _, err := os.Stat(out); err == nil {
		if res, err = schema.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	return res, o.String(), e.String()
}

// TestBenchWorkloadsAgainstMock: a pasted vLLM command with flags perflab
// ignores runs with one warning each; custom, prefix_repetition and
// multi-turn runs do what vLLM's definitions say, seen from the server.
func TestBenchWorkloadsAgainstMock(t *testing.T) {
	srv, eng := workloadMock(t)
	dir := t.TempDir()

	t.Run("custom, pasted with ignored flags", func(t *testing.T) {
		path := filepath.Join(dir, "prompts.jsonl")
		var lines []string
		for i := range 5 {
			lines = append(lines, fmt.Sprintf(`{"prompt": "question %d about the weather today", "output_tokens": %d}`, i, 3+i))
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, _, stderr := runWorkload(t, "--base-url", srv.URL, "--backend", "vllm", "--trust-remote-code", "--tokenizer-mode", "auto",
			"--dataset-name", "custom", "--dataset-path", path, "--custom-output-len", "-1", "--skip-chat-template",
			"--num_prompts", "5", "--ignore-eos", "--use-beam-search", "--seed", "1")
		for _, f := range []string{"--trust-remote-code", "--tokenizer-mode", "--use-beam-search"} {
			if strings.Count(stderr, f+" has no effect here") != 1 {
				t.Errorf("stderr lacks one warning for %s:\n%s", f, stderr)
			}
		}
		got := map[int]bool{}
		for _, r := range res.Requests {
			if !r.Success || r.OutputTokens != r.ExpectedOutputTokens {
				t.Fatalf("request %+v", r)
			}
			got[r.ExpectedOutputTokens] = true
		}
		if len(res.Requests) != 5 || len(got) != 5 { // each line's own output_tokens, 3..7
			t.Fatalf("%d requests, output lengths %v", len(res.Requests), got)
		}
	})

	t.Run("prefix_repetition hits the prefix cache", func(t *testing.T) {
		before := eng.Stats().CachedTokens
		res, stdout, _ := runWorkload(t, "--base-url", srv.URL, "--dataset-name", "prefix_repetition",
			"--prefix-repetition-prefix-len", "64", "--prefix-repetition-suffix-len", "8", "--prefix-repetition-num-prefixes", "2",
			"--prefix-repetition-output-len", "4", "--num-prompts", "8", "--max-concurrency", "1")
		if len(res.Requests) != 8 || res.Summary.Completed != 8 {
			t.Fatalf("%+v", res.Summary)
		}
		// 2 groups of 4: every prompt after the first of its group finds
		// the 64-token prefix (4 blocks of 16) cached
		if got := eng.Stats().CachedTokens - before; got < 6*64 {
			t.Fatalf("cached %d tokens, want at least 6×64", got)
		}
		if res.Summary.SpecDecode == nil || !strings.Contains(stdout, "Speculative Decoding") || !strings.Contains(stdout, "Acceptance rate (%):") {
			t.Fatalf("no spec-decode section:\n%s", stdout)
		}
		if sd := res.Summary.SpecDecode; sd.DraftTokens != 2*sd.Drafts || sd.AcceptedTokens+sd.Drafts < 8*4 {
			t.Fatalf("spec decode %+v", sd)
		}
	})

	t.Run("multi-turn random", func(t *testing.T) {
		st0 := eng.Stats()
		res, stdout, _ := runWorkload(t, "--base-url", srv.URL, "--multi-turn", "--multi-turn-num-turns", "3", "--num-prompts", "4",
			"--random-input-len", "40", "--per-turn-input-len", "10", "--random-output-len", "5", "--max-concurrency", "2")
		st := eng.Stats()
		if st.Sessions-st0.Sessions != 4 || st.SessionTurns-st0.SessionTurns != 12 || st.HistoryMismatches != st0.HistoryMismatches {
			t.Fatalf("server saw %d sessions, %d turns, %d broken histories", st.Sessions-st0.Sessions, st.SessionTurns-st0.SessionTurns, st.HistoryMismatches-st0.HistoryMismatches)
		}
		if len(res.Requests) != 12 || len(res.PerTurn) != 3 || res.Load.Conversations != 4 {
			t.Fatalf("%d requests, per turn %+v", len(res.Requests), res.PerTurn)
		}
		for _, pt := range res.PerTurn {
			if pt.Completed != 4 || pt.TTFT == nil || pt.E2EL == nil {
				t.Fatalf("turn %+v", pt)
			}
		}
		for _, r := range res.Requests {
			if r.Session == "" || r.Turn < 1 || r.Turn > 3 || r.GeneratedText != "" {
				t.Fatalf("record %+v", r)
			}
		}
		if !strings.Contains(stdout, "Multi-turn: latency by turn") {
			t.Fatalf("no per-turn table:\n%s", stdout)
		}
	})

	t.Run("multi-turn prefix sharing", func(t *testing.T) {
		// vllm-bench's prefix-ratio flags: every turn a single message
		// (the mock counts each later turn as lacking its history), the
		// shared parts found in the mock's prefix cache
		st0 := eng.Stats()
		res, _, _ := runWorkload(t, "--base-url", srv.URL, "--multi-turn", "--multi-turn-num-turns", "3", "--num-prompts", "4",
			"--random-input-len", "64", "--per-turn-input-len", "64", "--random-output-len", "4", "--max-concurrency", "2",
			"--multi-turn-prefix-global-ratio", "0.25", "--multi-turn-prefix-conversation-ratio", "0.5",
			"--save-result", "--result-dir", dir, "--result-filename", "prefix-sharing.json")
		st := eng.Stats()
		data, err := os.ReadFile(filepath.Join(dir, "prefix-sharing.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"prefix_global_ratio": 0.25`, `"prefix_conversation_ratio": 0.5`, `"prefix_unique_ratio": 0.25`, `"no_history_accumulation": true`} {
			if !strings.Contains(string(data), key) {
				t.Errorf("vLLM JSON lacks %s (vllm-bench's keys)", key)
			}
		}
		if st.Sessions-st0.Sessions != 4 || st.SessionTurns-st0.SessionTurns != 12 || st.HistoryMismatches-st0.HistoryMismatches != 8 {
			t.Fatalf("server saw %d sessions, %d turns, %d turns without history (want 4, 12, 8)", st.Sessions-st0.Sessions,
				st.SessionTurns-st0.SessionTurns, st.HistoryMismatches-st0.HistoryMismatches)
		}
		// 16 global tokens shared by all 12 turns, 32 more by a
		// conversation's 3: at least 11×16 + 4×2×32 = 432 cached tokens
		// (the mock caches whole blocks, so somewhat fewer may hit)
		if c := st.CachedTokens - st0.CachedTokens; c < 200 {
			t.Errorf("%d prompt tokens found in the prefix cache: the turns should share prefixes", c)
		}
		for _, r := range res.Requests {
			if r.PromptTokens > 66 {
				t.Fatalf("turn %d of %s: %d prompt tokens: a turn carries its own message only", r.Turn, r.Session, r.PromptTokens)
			}
		}
	})

	t.Run("multi-turn sharegpt", func(t *testing.T) {
		var convs []map[string]any
		for i := range 3 {
			var msgs []map[string]string
			for k := range 2 + i { // 2, 3 and 4 turns
				msgs = append(msgs, map[string]string{"from": "human", "value": fmt.Sprintf("conversation %d, question %d?", i, k)},
					map[string]string{"from": "gpt", "value": "a short answer of some words"})
			}
			convs = append(convs, map[string]any{"conversations": msgs})
		}
		convs = append(convs, map[string]any{"conversations": []map[string]string{{"from": "human", "value": "one turn only"}, {"from": "gpt", "value": "skipped"}}})
		data, _ := json.Marshal(convs)
		path := filepath.Join(dir, "sg.json")
		os.WriteFile(path, data, 0o644)
		st0 := eng.Stats()
		res, _, stderr := runWorkload(t, "--base-url", srv.URL, "--multi-turn", "--dataset-name", "sharegpt", "--dataset-path", path, "--num-prompts", "10")
		st := eng.Stats()
		if len(res.Requests) != 2+3+4 || st.Sessions-st0.Sessions != 3 || st.HistoryMismatches != st0.HistoryMismatches {
			t.Fatalf("%d requests, %d sessions", len(res.Requests), st.Sessions-st0.Sessions)
		}
		// 3 conversations for --num-prompts 10: said, not silent
		if !strings.Contains(stderr, "has only 3 conversations of 2 or more turns: 3 ran, not the 10 of --num-prompts") {
			t.Errorf("no warning that 3 of 10 conversations ran:\n%s", stderr)
		}
		if len(res.PerTurn) != 4 || res.PerTurn[3].Completed != 1 {
			t.Fatalf("per turn %+v", res.PerTurn)
		}
	})

	t.Run("timed_trace, self-timed, token ids", func(t *testing.T) {
		path := filepath.Join(dir, "trace.jsonl")
		os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 40, "output_length": 3, "hash_ids": [1, 2, 3]}
{"timestamp": 150, "input_length": 40, "output_length": 3, "hash_ids": [1, 2, 4]}
{"timestamp": 300, "input_length": 20, "output_length": 3, "hash_ids": [9, 2]}
`), 0o644)
		before := eng.Stats().CachedTokens
		res, _, stderr := runWorkload(t, "--base-url", srv.URL, "--dataset-name", "timed_trace", "--dataset-path", path,
			"--timed-trace-sec-multiplier", "0.001", "--timed-trace-chunk-hash-size", "16", "--ignore-eos")
		if res.Summary.Completed != 3 || res.Summary.TotalInputTokens != 100 || !strings.Contains(stderr, "self-timed") {
			t.Fatalf("%+v\n%s", res.Summary, stderr)
		}
		// sent no earlier than the trace says (a lower bound only: no timing assertion)
		for i, at := range []float64{0, 0.15, 0.3} {
			if res.Requests[i].ArrivalS < at {
				t.Fatalf("request %d left at %.3f s, before its timestamp %.3f s", i, res.Requests[i].ArrivalS, at)
			}
		}
		// the second request shares hash ids 1 and 2: 32 tokens cached
		if got := eng.Stats().CachedTokens - before; got < 32 {
			t.Fatalf("cached %d tokens, want the 32 of the shared blocks", got)
		}
		// --prompt-token-ids with a text dataset: same prompts, as ids
		res, _, _ = runWorkload(t, "--base-url", srv.URL, "--prompt-token-ids", "--random-input-len", "30", "--random-output-len", "3", "--num-prompts", "4")
		for _, r := range res.Requests {
			if r.UsagePromptTokens == nil || *r.UsagePromptTokens != r.PromptTokens {
				t.Fatalf("token ids: the server counted %v, the dataset %d", r.UsagePromptTokens, r.PromptTokens)
			}
		}
	})

	t.Run("dry run sends nothing", func(t *testing.T) {
		n := eng.Stats().Requests
		_, stdout, _ := runWorkload(t, "--base-url", srv.URL, "--model", "mock", "--dry-run", "--dataset-name", "prefix_repetition",
			"--prefix-repetition-prefix-len", "16", "--prefix-repetition-suffix-len", "4", "--num-prompts", "20")
		if eng.Stats().Requests != n {
			t.Fatal("--dry-run sent requests")
		}
		if !strings.Contains(stdout, "Requests:                               20") || !strings.Contains(stdout, "Input tokens min / mean / max:          20 / 20.00 / 20") {
			t.Fatalf("stats:\n%s", stdout)
		}
	})

	t.Run("config file, profile, ramp-up", func(t *testing.T) {
		cfg := filepath.Join(dir, "bench.yaml")
		os.WriteFile(cfg, []byte("num_prompts: 12\nrandom-input-len: 16\nrandom_output_len: 4\nprofile: true\nramp-up-strategy: linear\nramp_up_start_rps: 20\nramp_up_end_rps: 60\n"), 0o644)
		rd := filepath.Join(dir, "ramp")
		calls := eng.Stats().ProfileCalls
		res, _, stderr := runWorkload(t, "--base-url", srv.URL, "--config", cfg, "--ramp-up-end-rps", "80", "--save-result", "--result-dir", rd, "--extra-body.top_k", "3")
		if got := eng.Stats().ProfileCalls - calls; got != 2 || !strings.Contains(stderr, "Profiler started") {
			t.Fatalf("%d profile calls\n%s", got, stderr)
		}
		// the command line wins over the file
		var eb bytes.Buffer
		json.Compact(&eb, res.Load.ExtraBody)
		if res.Load.NumPrompts != 12 || res.Load.RampUpEndRPS != 80 || eb.String() != `{"top_k":3}` {
			t.Fatalf("load %+v", res.Load)
		}
		files, _ := filepath.Glob(filepath.Join(rd, "openai-ramp-up-linear-20qps-80qps-mock-*[0-9].json"))
		if len(files) != 1 {
			t.Fatalf("vLLM JSON not found: %v", files)
		}
		var v map[string]any
		data, _ := os.ReadFile(files[0])
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		ev, _ := v["rps_change_events"].([]any)
		if v["ramp_up_strategy"] != "linear" || v["ramp_up_start_rps"] != 20.0 || len(ev) < 2 || ev[0].(map[string]any)["rps"] != 20.0 {
			t.Fatalf("ramp-up keys: %v %v %v", v["ramp_up_strategy"], v["ramp_up_start_rps"], ev)
		}
	})
}

func TestBenchWorkloadUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--dataset-name", "custom"},                                   // needs --dataset-path
		{"--dataset-name", "prefix_repetition", "--dataset-path", "x"}, // reads no file
		{"--custom-output-len", "0"},
		{"--backend", "openai-chat", "--endpoint", "/v1/completions"}, // exited 1 after the header
		{"--backend", "vllm", "--endpoint", "/v1/models"},
		{"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "0", "--prefix-repetition-suffix-len", "0"},
		{"--random-input-len", "0"}, // the dataset would read 0 as 1024
		{"--random-output-len", "0"},
		{"--multi-turn", "--backend", "openai"},
		{"--multi-turn", "--dataset-name", "custom", "--dataset-path", "x"},
		{"--multi-turn-num-turns", "3"},             // needs --multi-turn
		{"--multi-turn-prefix-global-ratio", "0.2"}, // needs --multi-turn
		{"--multi-turn", "--multi-turn-prefix-global-ratio", "0.6", "--multi-turn-prefix-conversation-ratio", "0.4"}, // no own part left
		{"--multi-turn", "--multi-turn-prefix-conversation-ratio", "1.5"},
		{"--multi-turn", "--dataset-name", "sharegpt", "--dataset-path", "x", "--multi-turn-prefix-global-ratio", "0.2"}, // random only
		{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1"},
		{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--request-rate", "3"},
		{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "5"},
		{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "5"}, // sent its first request at once
		{"--self-timed"}, // only timed_trace has timestamps
		{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--chat-template-kwargs", `{"enable_thinking":false}`},
		{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--request-rate", "5"},
		{"--prompt-token-ids", "--backend", "openai-chat"},
		{"--multi-turn", "--sweep-request-rate", "1,2"},
		{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--sweep-request-rate", "1,2"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"bench", "--base-url", "http://127.0.0.1:1", "--model", "m"}, args...), &out, &errb)
		if code := exitCode(err, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (err %v)", args, code, err)
		}
	}
}

// TestBenchWorkloadsLlamaServer runs custom, prefix_repetition and
// multi-turn against llama.cpp's server with the tiny model (Qwen3's
// vocabulary, so Qwen3's tokenizer.json and chat template apply).
func TestBenchWorkloadsLlamaServer(t *testing.T) {
	base := startLlamaServer(t)
	tokDir, _ := filepath.Abs("../../.cache/tokenizers/qwen3")
	if _, err := os.Stat(filepath.Join(tokDir, "tokenizer.json")); err != nil {
		t.Skipf("SKIP: %s is not installed (run `make deps`)", tokDir)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.jsonl")
	os.WriteFile(path, []byte(`{"prompt": "What is the capital of India?"}
{"prompt": "What is the capital of Iran?"}
{"prompt": "What is the capital of China?"}
`), 0o644)

	t.Run("custom with the chat template", func(t *testing.T) {
		res, _, _ := runWorkload(t, "--base-url", base, "--model", "tiny-qwen", "--tokenizer", tokDir, "--dataset-name", "custom",
			"--dataset-path", path, "--custom-output-len", "6", "--ignore-eos", "--num-prompts", "3", "--trust-remote-code")
		if res.Summary.Completed != 3 || res.Summary.TotalOutputTokens != 18 {
			t.Fatalf("%+v", res.Summary)
		}
		for _, r := range res.Requests {
			// the templated prompt, counted as vLLM counts it (Qwen adds no
			// BOS), is what the server tokenized
			if r.UsagePromptTokens == nil || *r.UsagePromptTokens != r.PromptTokens {
				t.Errorf("request %d: dataset %d prompt tokens, server %v", r.Index, r.PromptTokens, r.UsagePromptTokens)
			}
		}
	})
	t.Run("prefix_repetition", func(t *testing.T) {
		res, _, _ := runWorkload(t, "--base-url", base, "--model", "tiny-qwen", "--tokenizer", tokDir, "--dataset-name", "prefix_repetition",
			"--prefix-repetition-prefix-len", "48", "--prefix-repetition-suffix-len", "16", "--prefix-repetition-num-prefixes", "2",
			"--prefix-repetition-output-len", "4", "--num-prompts", "6", "--max-concurrency", "2")
		if res.Summary.Completed != 6 || res.Summary.TotalOutputTokens != 24 || res.Summary.TotalInputTokens != 6*64 {
			t.Fatalf("%+v", res.Summary)
		}
	})
	t.Run("multi-turn", func(t *testing.T) {
		res, stdout, _ := runWorkload(t, "--base-url", base, "--model", "tiny-qwen", "--multi-turn", "--multi-turn-num-turns", "3",
			"--num-prompts", "3", "--random-input-len", "24", "--random-output-len", "6", "--max-concurrency", "3")
		if res.Summary.Completed != 9 || len(res.PerTurn) != 3 {
			t.Fatalf("%+v %+v", res.Summary, res.PerTurn)
		}
		// turn 3 carries turns 1 and 2 and their replies: the server saw more
		for _, r := range res.Requests {
			if r.Turn == 3 && (r.UsagePromptTokens == nil || *r.UsagePromptTokens < 2*24+2*6) {
				t.Fatalf("turn 3 prompt %v tokens: history missing", r.UsagePromptTokens)
			}
		}
		if !strings.Contains(stdout, "Multi-turn: latency by turn") {
			t.Fatal(stdout)
		}
	})
}

// TestBenchLogprobsBody: --logprobs N puts "logprobs": N in the
// completions body where vLLM's null stands; with the chat backend it
// warns, as vLLM's chat request sends none.
func TestBenchLogprobsBody(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost { // the /metrics scrapes
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(path, []byte("{\"prompt\": \"hello\"}\n"), 0o644)
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	common := []string{"--base-url", srv.URL, "--model", "m", "--tokenizer", tok, "--dataset-name", "custom", "--dataset-path", path,
		"--skip-chat-template", "--num-prompts", "1", "--logprobs", "5"}
	runWorkload(t, common...)
	if len(bodies) != 1 || !strings.Contains(bodies[0], `"max_tokens":256,"logprobs":5,"stream":true`) {
		t.Fatalf("body %q", bodies)
	}
	_, _, stderr := runWorkload(t, append(common, "--backend", "openai-chat")...)
	if !strings.Contains(stderr, "--logprobs has no effect with --backend openai-chat") || strings.Contains(bodies[1], "logprobs") {
		t.Fatalf("chat: %s\n%s", stderr, bodies[1])
	}
}

// TestBenchRampRatesWithoutStrategy: vLLM reads --ramp-up-start-rps and
// --ramp-up-end-rps only under --ramp-up-strategy, so a pasted line with
// the rates alone runs at --request-rate there; here too, with a warning,
// not exit 2.
func TestBenchRampRatesWithoutStrategy(t *testing.T) {
	var errb bytes.Buffer
	f, err := parseBenchFlags([]string{"--base-url", "http://127.0.0.1:1", "--model", "m", "--request-rate", "5",
		"--ramp-up-start-rps", "1", "--ramp-up-end-rps", "20"}, &errb)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.validate()
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if r.opt.Bench.RampUp != nil || r.opt.Bench.RequestRate != 5 {
		t.Fatalf("ramp %+v, rate %v: want no ramp-up at 5 req/s", r.opt.Bench.RampUp, r.opt.Bench.RequestRate)
	}
	n := 0
	for _, w := range f.warnings {
		if strings.Contains(w, "--ramp-up-start-rps and --ramp-up-end-rps have no effect without --ramp-up-strategy") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("warnings %q: want one about the ramp-up rates", f.warnings)
	}
}

// TestBenchWarmupsOutsideProfileAndSpecDecode: as in vLLM, --num-warmups
// requests go before the profiler starts and before the spec-decode
// counters are read, so the Speculative Decoding section covers the
// measured requests only: the same drafts with 4 warmups as with none
// (the mock's drafts depend on the seed and the prompt only).
func TestBenchWarmupsOutsideProfileAndSpecDecode(t *testing.T) {
	drafts := map[int]int64{}
	for _, warmups := range []int{0, 4} {
		eng, err := mock.New(mock.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond, Seed: 1,
			SpecDecode: &mock.SpecDecode{NumSpecTokens: 2, AcceptRate: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		served, atStart := 0, -1
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			switch r.URL.Path {
			case "/v1/completions":
				served++
			case "/start_profile":
				atStart = served
			}
			mu.Unlock()
			eng.ServeHTTP(w, r)
		}))
		res, _, stderr := runWorkload(t, "--base-url", srv.URL, "--random-input-len", "16", "--random-output-len", "12",
			"--num-prompts", "3", "--num-warmups", fmt.Sprint(warmups), "--profile")
		srv.Close()
		if atStart != warmups {
			t.Errorf("%d warmups: the profiler started after %d requests\n%s", warmups, atStart, stderr)
		}
		if res.Summary.SpecDecode == nil {
			t.Fatalf("%d warmups: no spec decode\n%s", warmups, stderr)
		}
		drafts[warmups] = res.Summary.SpecDecode.Drafts
	}
	if drafts[0] == 0 || drafts[4] != drafts[0] {
		t.Fatalf("drafts %d with 4 warmups, %d without: the warmups' drafts were counted", drafts[4], drafts[0])
	}
}

// TestBenchCustomBadLine: a malformed JSONL line is named by file and
// line, once ("bench: dataset custom: dataset: custom:" said it twice).
func TestBenchCustomBadLine(t *testing.T) {
	srv, _ := workloadMock(t)
	path := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(path, []byte("{\"prompt\": \"fine\"}\n{\"prompt\": \"cut\n"), 0o644)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", srv.URL, "--dataset-name", "custom", "--dataset-path", path,
		"--skip-chat-template", "--num-prompts", "2", "--dry-run"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "p.jsonl:2: not a JSON object") || strings.Count(err.Error(), "custom") != 1 {
		t.Fatalf("error %v", err)
	}
}

// TestBenchDryRunOffline: --dry-run with a tokenizer file builds the
// dataset with no server at all (no --model needed: nothing is sent).
func TestBenchDryRunOffline(t *testing.T) {
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", "http://127.0.0.1:1", "--tokenizer", tok,
		"--num-prompts", "3", "--random-input-len", "8", "--random-output-len", "2", "--dry-run"}, &out, &errb)
	if err != nil || !strings.Contains(out.String(), "Requests:                               3") {
		t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
	}
}

// TestBenchDatasetFileErrors: a dataset file that cannot be read or holds
// a bad line is a usage error (exit 2, before anything is sent), and the
// message names the file and line; a good file with an unreachable
// tokenizer is a failure (exit 1).
func TestBenchDatasetFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badLine := write("bad.jsonl", "{\"prompt\": \"ok\"}\n{\"prompt\": \n")
	noPrompt := write("noprompt.jsonl", "{\"prompt\": \"ok\"}\n{\"text\": \"x\"}\n")
	badJSON := write("bad.json", `[{"conversations": [`)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--dataset-name", "custom", "--dataset-path", filepath.Join(dir, "missing.jsonl"), "--skip-chat-template"}, 2, "missing.jsonl: no such file"},
		{[]string{"--dataset-name", "custom", "--dataset-path", badLine, "--skip-chat-template"}, 2, "bad.jsonl:2: not a JSON object"},
		{[]string{"--dataset-name", "custom", "--dataset-path", noPrompt, "--skip-chat-template"}, 2, `noprompt.jsonl:2: no "prompt" field`},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", badJSON}, 2, "bad.json"},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", filepath.Join(dir, "none.json"), "--multi-turn"}, 2, "none.json: no such file"},
		// the file is fine; the server's /tokenize is not there: exit 1
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", shareGPTFile(t, 3)}, 1, "tokenize"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"bench", "--base-url", "http://127.0.0.1:1", "--model", "m", "--num-prompts", "2"}, tt.args...), &out, &errb)
		if code := exitCode(err, &errb); code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, want %d with %q; stderr:\n%s", tt.args, code, tt.code, tt.want, errb.String())
		}
	}
}

// TestBenchDryRunMultiTurnHistory: a multi-turn dry run counts what each
// turn sends: turn 1 its 8-token message; turn 2 that, the 2-token reply
// and its 4-token message (14); turn 3 20. Two conversations: 84 in all
// (the messages alone are 32).
func TestBenchDryRunMultiTurnHistory(t *testing.T) {
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", "http://127.0.0.1:1", "--tokenizer", tok, "--multi-turn",
		"--multi-turn-num-turns", "3", "--random-input-len", "8", "--per-turn-input-len", "4", "--random-output-len", "2",
		"--num-prompts", "2", "--dry-run"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"Requests:                               6 ", "Total input tokens:                     84 ",
		"Input tokens min / mean / max:          8 / 14.00 / 20"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// TestBenchDryRunMultiTurnPrefixSharing: in prefix-sharing mode a turn
// sends its own message only, so the dry run counts each turn at its
// message's length (8 tokens, whatever the turn) and its note does not
// claim the history is sent.
func TestBenchDryRunMultiTurnPrefixSharing(t *testing.T) {
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", "http://127.0.0.1:1", "--tokenizer", tok, "--multi-turn",
		"--multi-turn-num-turns", "3", "--random-input-len", "8", "--per-turn-input-len", "8", "--random-output-len", "2",
		"--multi-turn-prefix-global-ratio", "0.25", "--multi-turn-prefix-conversation-ratio", "0.25",
		"--num-prompts", "2", "--dry-run"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if want := "Input tokens min / mean / max:          8 / 8.00 / 8"; !strings.Contains(out.String(), want) {
		t.Errorf("no %q in\n%s", want, out.String())
	}
	if strings.Contains(errb.String(), "whole history") || !strings.Contains(errb.String(), "sends no history") {
		t.Errorf("the dry run's note on what a turn sends:\n%s", errb.String())
	}
}

// TestBenchPrefixSharingNoRoomIsUsage: prefix ratios that leave the
// later turns no part of their own are found once the tokenizer is open
// (vllm-bench's config error), still before anything is sent: exit 2,
// as the ratio checks found from the flags alone.
func TestBenchPrefixSharingNoRoomIsUsage(t *testing.T) {
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", "http://127.0.0.1:1", "--tokenizer", tok, "--multi-turn",
		"--random-input-len", "10", "--per-turn-input-len", "5", "--multi-turn-prefix-global-ratio", "0.5",
		"--num-prompts", "2", "--dry-run"}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 || !strings.Contains(err.Error(), "raise --per-turn-input-len") {
		t.Errorf("exit %d, err %v, want 2 and the per-turn length named", code, err)
	}
}

// TestBenchAlignsPromptsToServer: with a tokenizer other than the
// server's, the random and prefix_repetition prompts are checked against
// the server's /tokenize and cut to their length (vLLM after 0.28), so the
// server sees no more tokens than the dataset counts; with the server's
// own tokenizer nothing is checked.
func TestBenchAlignsPromptsToServer(t *testing.T) {
	srv, _ := workloadMock(t)
	tok, _ := filepath.Abs("../../collect/dataset/tokenizer/testdata/tiny")
	for _, ds := range [][]string{
		{"--dataset-name", "random", "--random-input-len", "24", "--random-output-len", "2"},
		{"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "16", "--prefix-repetition-suffix-len", "8",
			"--prefix-repetition-num-prefixes", "2", "--prefix-repetition-output-len", "2"},
	} {
		res, _, stderr := runWorkload(t, append([]string{"--base-url", srv.URL, "--model", "mock", "--tokenizer", tok, "--num-prompts", "6"}, ds...)...)
		if !strings.Contains(stderr, "tokenizer mismatch (server=") || !strings.Contains(stderr, "re-aligning prompts.") {
			t.Fatalf("%s: no alignment:\n%s", ds[1], stderr)
		}
		for _, r := range res.Requests {
			// the mock adds one BOS on completions, and the text decoded
			// from the cut ids may encode a token or two longer at the cut
			// (vLLM cuts once too); unaligned, the mock counts 3× more (72 for 24)
			if r.UsagePromptTokens == nil || *r.UsagePromptTokens > r.PromptTokens+3 {
				t.Errorf("%s request %d: the server counted %d prompt tokens, the dataset %d", ds[1], r.Index, deref(r.UsagePromptTokens), r.PromptTokens)
			}
		}
	}
	_, _, stderr := runWorkload(t, "--base-url", srv.URL, "--model", "mock", "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2")
	if strings.Contains(stderr, "re-aligning") || strings.Contains(stderr, "/tokenize unavailable") {
		t.Errorf("the server's own tokenizer was checked against itself:\n%s", stderr)
	}
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
