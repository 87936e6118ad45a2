package benchrun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

func tinyTokenizer(t *testing.T) dataset.Tokenizer {
	t.Helper()
	tok, err := dataset.Load("../dataset/tokenizer/testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuild builds each dataset from its fields (no server: Offline) and
// checks what the run would send.
func TestBuild(t *testing.T) {
	custom := writeFile(t, "p.jsonl", `{"prompt": "one", "output_tokens": 3}
{"prompt": "two", "output_tokens": 4}
`)
	trace := writeFile(t, "t.jsonl", `{"timestamp": 0, "input_length": 20, "output_length": 2, "hash_ids": [1, 2]}
{"timestamp": 50, "input_length": 12, "output_length": 2, "hash_ids": [1]}
`)
	tests := []struct {
		name  string
		d     Dataset
		check func(t *testing.T, w *Workload)
	}{
		{"random", Dataset{NumPrompts: 4, RandomInputLen: 16, RandomOutputLen: 3, Seed: 1}, func(t *testing.T, w *Workload) {
			if len(w.Samples) != 4 || w.Samples[0].PromptLen != 16 || w.Samples[0].OutputLen != 3 || w.PromptIDs != nil || w.Times != nil {
				t.Fatalf("%+v", w)
			}
		}},
		// the ids of each prompt, as the tokenizer makes them
		{"random ids", Dataset{NumPrompts: 2, RandomInputLen: 16, RandomOutputLen: 3, PromptTokenIDs: true}, func(t *testing.T, w *Workload) {
			if len(w.PromptIDs) != 2 || len(w.PromptIDs[0]) == 0 {
				t.Fatalf("ids %v", w.PromptIDs)
			}
		}},
		{"custom", Dataset{Name: "custom", Path: custom, CustomOutputLen: -1, SkipChatTemplate: true, DisableShuffle: true}, func(t *testing.T, w *Workload) {
			if len(w.Samples) != 2 || w.Samples[0].Prompt != "one" || w.Samples[1].OutputLen != 4 {
				t.Fatalf("%+v", w.Samples)
			}
		}},
		{"prefix_repetition", Dataset{Name: "prefix_repetition", NumPrompts: 4, PrefixLen: 8, SuffixLen: 4, NumPrefixes: 2, PrefixOutputLen: 2}, func(t *testing.T, w *Workload) {
			if len(w.Samples) != 4 || w.Samples[0].PromptLen != 12 {
				t.Fatalf("%+v", w.Samples)
			}
		}},
		// self-timed: the trace's timestamps are the release times
		{"timed_trace", Dataset{Name: "timed_trace", Path: trace, TraceBlockTokens: 10, TraceSecMultiplier: 0.001, SelfTimed: true}, func(t *testing.T, w *Workload) {
			if len(w.Samples) != 2 || len(w.PromptIDs) != 2 || len(w.Times) != 2 || w.Times[1] != 0.05 {
				t.Fatalf("%+v", w)
			}
		}},
		{"timed_trace at the rate", Dataset{Name: "timed_trace", Path: trace, TraceBlockTokens: 10}, func(t *testing.T, w *Workload) {
			if w.Times != nil {
				t.Fatalf("times %v without SelfTimed", w.Times)
			}
		}},
		{"multi-turn", Dataset{NumPrompts: 2, RandomInputLen: 16, RandomOutputLen: 3, MultiTurn: &MultiTurn{MinTurns: 2, MaxTurns: 2}}, func(t *testing.T, w *Workload) {
			if len(w.Conversations) != 2 || len(w.Conversations[0].Turns) != 2 || w.Samples != nil {
				t.Fatalf("%+v", w)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{Dataset: tt.d, Tokenizer: tinyTokenizer(t), Offline: true}
			w, err := Build(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, w)
		})
	}
}

// TestBuildErrors: the user's input at fault comes back typed, so that
// perflab bench can exit 2 and collect name the profile.
func TestBuildErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    Dataset
		file bool // a *dataset.FileError, else a *dataset.SettingsError
	}{
		{"missing file", Dataset{Name: "sharegpt", Path: filepath.Join(t.TempDir(), "none.json"), NumPrompts: 1}, true},
		{"unknown dataset", Dataset{Name: "sonnet", NumPrompts: 1}, false},
		{"turns upside down", Dataset{NumPrompts: 1, RandomInputLen: 8, RandomOutputLen: 2, MultiTurn: &MultiTurn{MinTurns: 3, MaxTurns: 2}}, false},
	} {
		_, err := Build(context.Background(), &Options{Dataset: tt.d, Tokenizer: tinyTokenizer(t), Offline: true})
		fe, se := errors.As(err, new(*dataset.FileError)), errors.As(err, new(*dataset.SettingsError))
		if err == nil || fe != tt.file || se == tt.file || !strings.HasPrefix(err.Error(), "dataset") {
			t.Errorf("%s: %v (file error %v, settings error %v)", tt.name, err, fe, se)
		}
	}
}

// TestAligns: which runs check their prompts against the server.
func TestAligns(t *testing.T) {
	own := tinyTokenizer(t)
	server := dataset.NewServerTokenizer("http://127.0.0.1:1", "m", nil)
	for _, tt := range []struct {
		name string
		o    Options
		want bool
	}{
		{"random, own tokenizer", Options{Tokenizer: own}, true},
		{"prefix_repetition", Options{Tokenizer: own, Dataset: Dataset{Name: "prefix_repetition"}}, true},
		{"the server's own tokenizer", Options{Tokenizer: server}, false},
		{"no server (dry run)", Options{Tokenizer: own, Offline: true}, false},
		{"sharegpt (vLLM aligns only random and prefix_repetition)", Options{Tokenizer: own, Dataset: Dataset{Name: "sharegpt"}}, false},
		{"token ids", Options{Tokenizer: own, Dataset: Dataset{PromptTokenIDs: true}}, false},
		{"multi-turn", Options{Tokenizer: own, Dataset: Dataset{MultiTurn: &MultiTurn{}}}, false},
	} {
		if got := tt.o.Aligns(); got != tt.want {
			t.Errorf("%s: Aligns = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestConfigForcesIgnoreEOS: random and timed_trace send ignore_eos
// whatever the caller asked; the others as asked.
func TestConfigForcesIgnoreEOS(t *testing.T) {
	for name, want := range map[string]bool{"": true, "random": true, "timed_trace": true, "sharegpt": false, "custom": false, "prefix_repetition": false} {
		o := Options{Dataset: Dataset{Name: name}}
		if got := o.Config(&Workload{}).IgnoreEOS; got != want {
			t.Errorf("%q: ignore_eos %v, want %v", name, got, want)
		}
		o.Bench.IgnoreEOS = true
		if !o.Config(&Workload{}).IgnoreEOS {
			t.Errorf("%q: ignore_eos asked for and not sent", name)
		}
	}
}

// TestRunAgainstMock builds a random dataset with a tokenizer other than
// the mock's, aligns it to the mock's, measures it and describes it.
func TestRunAgainstMock(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "m", TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var log bytes.Buffer
	o := &Options{Bench: bench.Config{BaseURL: srv.URL, Model: "m", MaxConcurrency: 2},
		Dataset:   Dataset{NumPrompts: 6, RandomInputLen: 24, RandomOutputLen: 3, RandomPrefixLen: 2, Seed: 1},
		Tokenizer: tinyTokenizer(t), Log: &log}
	w, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if w.Aligned == 0 || !strings.Contains(log.String(), "re-aligning prompts") {
		t.Fatalf("not aligned (%d cut): %s", w.Aligned, log.String())
	}
	res, err := Run(context.Background(), o, w)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Completed != 6 || res.Summary.TotalOutputTokens != 18 {
		t.Fatalf("summary %+v", res.Summary)
	}
	want := schema.Load{Dataset: "random", InputLen: 24, OutputLen: 3, PrefixLen: 2}
	if l := res.Load; l.Dataset != want.Dataset || l.InputLen != want.InputLen || l.OutputLen != want.OutputLen ||
		l.PrefixLen != want.PrefixLen || !l.IgnoreEOS || l.NumPrompts != 6 || l.MaxConcurrency != 2 {
		t.Errorf("load %+v", l)
	}
	for _, r := range res.Requests {
		// the mock adds one BOS, and the text decoded from the cut ids may
		// encode a few tokens longer at the cut (vLLM cuts once too);
		// unaligned, the mock counts about 3× the tiny tokenizer's
		if r.UsagePromptTokens == nil || *r.UsagePromptTokens > r.PromptTokens+5 {
			t.Errorf("request %d: the server counted %d prompt tokens, the dataset %d", r.Index, *r.UsagePromptTokens, r.PromptTokens)
		}
	}
}

// TestDescribeRecordsWhatIsBuilt: a length left at zero (a campaign
// profile without the field) is recorded as the length the dataset is
// built with, as perflab bench records the flag's default.
func TestDescribeRecordsWhatIsBuilt(t *testing.T) {
	custom := writeFile(t, "p.jsonl", "{\"prompt\": \"one\"}\n{\"prompt\": \"two\"}\n")
	for _, tt := range []struct {
		name string
		d    Dataset
	}{
		{"random", Dataset{NumPrompts: 2}},
		{"prefix_repetition", Dataset{Name: "prefix_repetition", NumPrompts: 4, PrefixLen: 8, SuffixLen: 4, NumPrefixes: 2}},
		{"custom", Dataset{Name: "custom", Path: custom, SkipChatTemplate: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{Dataset: tt.d, Tokenizer: tinyTokenizer(t), Offline: true}
			w, err := Build(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			var l schema.Load
			o.Describe(&l)
			for i, s := range w.Samples {
				if s.OutputLen != l.OutputLen {
					t.Fatalf("sample %d asks for %d output tokens; the load records output_len %d", i, s.OutputLen, l.OutputLen)
				}
				if tt.d.name() != "custom" && s.PromptLen != l.InputLen {
					t.Fatalf("sample %d has %d prompt tokens; the load records input_len %d", i, s.PromptLen, l.InputLen)
				}
			}
		})
	}
}

// TestTurns: a random conversation's turns from the three settings as
// given, both commands' one rule.
func TestTurns(t *testing.T) {
	for _, tt := range []struct {
		m      MultiTurn
		lo, hi int
	}{
		{MultiTurn{}, 3, 3},
		{MultiTurn{NumTurns: 5}, 5, 5},
		{MultiTurn{NumTurns: 5, MinTurns: 2}, 2, 5},
		{MultiTurn{MaxTurns: 4}, 3, 4},
		{MultiTurn{NumTurns: 2, MinTurns: 3, MaxTurns: 6}, 3, 6},
	} {
		if lo, hi := tt.m.Turns(); lo != tt.lo || hi != tt.hi {
			t.Errorf("%+v: turns %d..%d, want %d..%d", tt.m, lo, hi, tt.lo, tt.hi)
		}
	}
	o := &Options{Dataset: Dataset{NumPrompts: 2, RandomInputLen: 16, RandomOutputLen: 2, MultiTurn: &MultiTurn{NumTurns: 4}},
		Tokenizer: tinyTokenizer(t), Offline: true}
	w, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range w.Conversations {
		if len(c.Turns) != 4 {
			t.Errorf("conversation %d has %d turns, want NumTurns 4", i, len(c.Turns))
		}
	}
}
