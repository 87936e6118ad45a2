package collect

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

// TestCollectWorkloads runs a tiny campaign of each dataset and mode
// perflab bench has (custom, prefix_repetition, multi-turn, timed_trace,
// ramp-up) against perflab mock, with the profile fields named as bench's
// flags, and checks each from the server's side and in the result.
func TestCollectWorkloads(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "fake/model", TTFT: time.Millisecond,
		ITL: 100 * time.Microsecond, PrefixCache: &mock.PrefixCache{}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tok, _ := filepath.Abs("dataset/tokenizer/testdata/tiny")
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
{"timestamp": 50, "input_length": 20, "output_length": 2, "hash_ids": [1, 3]}
{"timestamp": 100, "input_length": 12, "output_length": 2, "hash_ids": [1]}
`)
	tests := []struct {
		name, backend, profile string
		check                  func(t *testing.T, r *schema.Result, before, after mock.Stats)
	}{
		{"custom", "openai", `{id: p, name: P, dataset: custom, dataset_path: ` + prompts + `, custom_output_len: -1, skip_chat_template: true, num_prompts: 3}`,
			func(t *testing.T, r *schema.Result, _, _ mock.Stats) {
				// -1: each line's output_tokens, 3 + 4 + 5
				if r.Summary.Completed != 3 || r.Summary.TotalOutputTokens != 12 {
					t.Fatalf("%+v", r.Summary)
				}
			}},
		{"prefix_repetition", "openai", `{id: p, name: P, dataset: prefix_repetition, prefix_repetition_prefix_len: 48, prefix_repetition_suffix_len: 8,
			prefix_repetition_num_prefixes: 2, prefix_repetition_output_len: 3, num_prompts: 8, max_concurrency: 1}`,
			func(t *testing.T, r *schema.Result, before, after mock.Stats) {
				if r.Summary.Completed != 8 || r.Summary.TotalOutputTokens != 24 || !strings.Contains(r.Load.Command, "--prefix-repetition-prefix-len 48") {
					t.Fatalf("%+v", r.Summary)
				}
				// 2 prefixes of 48 tokens, 4 prompts each, one at a time: the
				// last 3 of each group find their prefix cached
				if c := after.CachedTokens - before.CachedTokens; c < 2*3*32 {
					t.Errorf("%d prompt tokens cached: the prefixes should repeat", c)
				}
			}},
		{"multi-turn", "openai-chat", `{id: p, name: P, dataset: random, input_len: 24, output_len: 3, num_prompts: 3, multi_turn: true,
			multi_turn_num_turns: 2, per_turn_input_len: 8, multi_turn_concurrency: 2}`,
			func(t *testing.T, r *schema.Result, before, after mock.Stats) {
				if after.Sessions-before.Sessions != 3 || after.SessionTurns-before.SessionTurns != 6 || after.HistoryMismatches != before.HistoryMismatches {
					t.Fatalf("server: %d sessions, %d turns, %d broken histories", after.Sessions-before.Sessions,
						after.SessionTurns-before.SessionTurns, after.HistoryMismatches-before.HistoryMismatches)
				}
				if len(r.PerTurn) != 2 || r.Load.Conversations != 3 || r.Load.NumPrompts != 6 {
					t.Fatalf("per turn %d, load %+v", len(r.PerTurn), r.Load)
				}
			}},
		{"timed_trace", "openai", `{id: p, name: P, dataset: timed_trace, dataset_path: ` + trace + `, timed_trace_chunk_hash_size: 10,
			timed_trace_sec_multiplier: 0.001, num_prompts: 3}`,
			func(t *testing.T, r *schema.Result, _, _ mock.Stats) {
				if r.Summary.Completed != 3 || r.Summary.TotalOutputTokens != 6 {
					t.Fatalf("%+v", r.Summary)
				}
				// sent at the trace's timestamps: 0, 50 and 100 ms
				if a := r.Requests[2].ArrivalS - r.Requests[0].ArrivalS; a < 0.09 {
					t.Errorf("third request left %.3f s after the first, want 0.1", a)
				}
			}},
		{"ramp-up", "openai", `{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 12,
			ramp_up_strategy: linear, ramp_up_start_rps: 20, ramp_up_end_rps: 60}`,
			func(t *testing.T, r *schema.Result, _, _ mock.Stats) {
				if r.Summary.Completed != 12 || r.Load.RampUpStrategy != "linear" || r.Load.RampUpEndRPS != 60 ||
					len(r.Load.RPSChanges) < 2 || r.Load.RPSChanges[0].RPS != 20 {
					t.Fatalf("summary %+v load %+v", r.Summary, r.Load)
				}
			}},
	}
	for _, tt := range tests {
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
      - {id: m, name: Mock, engine: external, base_url: ` + srv.URL + `}
baseline: m
optimized: m
`
			f, err := Parse("w.yaml", []byte(y))
			if err != nil {
				t.Fatal(err)
			}
			o := opts(t, dir, t.TempDir())
			o.Runner = nil // perflab bench's runner
			results := t.TempDir()
			o.Results = results
			before := srv.Server.Stats()
			if _, err := Collect(context.Background(), f, o); err != nil {
				t.Fatal(err)
			}
			after := srv.Server.Stats()
			r := readResults(t, filepath.Join(results, "w"))["m--p"]
			if r == nil || r.Status != schema.StatusOK || r.Summary == nil {
				t.Fatalf("result %+v", r)
			}
			if !strings.Contains(r.Load.Command, "--dataset-name") {
				t.Errorf("command %q", r.Load.Command)
			}
			tt.check(t, r, before, after)
		})
	}
}

// TestValidateWorkloadFields: the profile fields named after bench's
// flags are checked where they stand, file:line and field.
func TestValidateWorkloadFields(t *testing.T) {
	tests := []struct{ profile, backend, want string }{
		{`{id: p, name: P, dataset: custom, num_prompts: 2}`, "openai", "w.yaml:5: profiles[0].dataset_path: missing"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, custom_output_len: 5}`, "openai",
			`profiles[0].custom_output_len: applies to the custom dataset only (this profile's is "random")`},
		{`{id: p, name: P, dataset: prefix_repetition, prefix_repetition_prefix_len: 0, prefix_repetition_suffix_len: 0, num_prompts: 2}`, "openai",
			"prefix_repetition_suffix_len: prefix and suffix lengths are both 0"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, multi_turn: true}`, "openai",
			"profiles[0].multi_turn: sends chat messages: the campaign's bench.backend must be openai-chat"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, per_turn_input_len: 4}`, "openai-chat",
			"profiles[0].per_turn_input_len: needs multi_turn: true"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, multi_turn: true, multi_turn_prefix_global_ratio: 0.5, multi_turn_prefix_conversation_ratio: 0.5}`, "openai-chat", "the two prefix ratios must sum below 1.0"},
		{`{id: p, name: P, dataset: timed_trace, dataset_path: t.jsonl, num_prompts: 2, request_rate: 4}`, "openai",
			"profiles[0].request_rate: timed_trace sends at the trace's timestamps"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, ramp_up_strategy: linear, ramp_up_end_rps: 5}`, "openai",
			"profiles[0].ramp_up_start_rps: must be ≥ 1"},
		{`{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, ramp_up_strategy: sine, ramp_up_start_rps: 1, ramp_up_end_rps: 5}`, "openai",
			`ramp_up_strategy: unknown strategy "sine"`},
		{`{id: p, name: P, dataset: sonnet, num_prompts: 2}`, "openai", `unknown dataset "sonnet" (random, sharegpt, custom, prefix_repetition, timed_trace)`},
		// lengths the dataset would not read (they were dropped without a word)
		{`{id: p, name: P, dataset: custom, dataset_path: p.jsonl, output_len: 30, num_prompts: 2}`, "openai",
			"profiles[0].output_len: not read by the custom dataset (its lengths: the prompts' own, output custom_output_len)"},
		{`{id: p, name: P, dataset: prefix_repetition, input_len: 512, num_prompts: 2}`, "openai",
			"profiles[0].input_len: not read by the prefix_repetition dataset (its lengths: prefix_repetition_prefix_len"},
		{`{id: p, name: P, dataset: timed_trace, dataset_path: t.jsonl, output_len: 8, num_prompts: 2}`, "openai",
			"profiles[0].output_len: not read by the timed_trace dataset (its lengths: each line's input_length and output_length)"},
	}
	for _, tt := range tests {
		y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench: {backend: ` + tt.backend + `}
profiles: [` + tt.profile + `]
steps: [{id: s, title: S, experiments: [{id: m, name: M, engine: external, base_url: "http://127.0.0.1:1/"}]}]
baseline: m
optimized: m
`
		f, err := Parse("w.yaml", []byte(y))
		if err == nil {
			err = f.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "w.yaml:5") {
			t.Errorf("%s:\n got %v\nwant w.yaml:5 … %q", tt.profile, err, tt.want)
		}
	}
}

// TestCollectAlignsPromptsToServer: a campaign whose bench.tokenizer is
// not the server's gets its random and prefix_repetition prompts checked
// against the server's /tokenize and cut to their length, as perflab
// bench does (collect/benchrun builds both): the server counts no more
// prompt tokens than the dataset, and the result says how many prompts
// were cut. Unaligned, the mock counts about 3× the tiny tokenizer's.
func TestCollectAlignsPromptsToServer(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "fake/model", TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tok, _ := filepath.Abs("dataset/tokenizer/testdata/tiny")
	y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench: {tokenizer: ` + tok + `}
profiles:
  - {id: r, name: R, dataset: random, input_len: 24, output_len: 2, num_prompts: 6}
  - {id: p, name: P, dataset: prefix_repetition, prefix_repetition_prefix_len: 16, prefix_repetition_suffix_len: 8,
     prefix_repetition_num_prefixes: 2, prefix_repetition_output_len: 2, num_prompts: 6}
steps:
  - id: s
    title: S
    experiments:
      - {id: m, name: Mock, engine: external, base_url: ` + srv.URL + `}
baseline: m
optimized: m
`
	f, err := Parse("w.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	o := opts(t, t.TempDir(), t.TempDir())
	o.Runner = nil // perflab bench's runner
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	results := readResults(t, filepath.Join(o.Results, "w"))
	for _, name := range []string{"m--r", "m--p"} {
		r := results[name]
		if r == nil || r.Status != schema.StatusOK || r.Summary == nil || r.Summary.Completed != 6 {
			t.Fatalf("%s: result %+v", name, r)
		}
		for _, q := range r.Requests {
			// the mock adds one BOS, and the text decoded from the cut ids
			// may encode a token or two longer at the cut (vLLM cuts once too)
			if q.UsagePromptTokens == nil || *q.UsagePromptTokens > q.PromptTokens+3 {
				got := -1
				if q.UsagePromptTokens != nil {
					got = *q.UsagePromptTokens
				}
				t.Errorf("%s request %d: the server counted %d prompt tokens, the dataset %d", name, q.Index, got, q.PromptTokens)
			}
		}
		cut := false
		for _, w := range r.Warnings {
			cut = cut || strings.Contains(w, "prompts were longer by the server's tokenizer than by "+tok)
		}
		if !cut {
			t.Errorf("%s: no warning of the cut prompts in %q", name, r.Warnings)
		}
	}
}
