package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/benchflags"
	"github.com/perflab/perflab/collect/benchrun"
)

func TestBenchFlags(t *testing.T) {
	f, err := parseBenchFlags([]string{"--goodput", "ttft:50", "tpot:10", "--goodput", "e2el:900",
		"--metadata", "gpu=h100", "note=two words", "--request-rate", "12.5", "--max-concurrency", "4", "--backend", "openai-chat"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.validate()
	if err != nil {
		t.Fatal(err)
	}
	g := r.opt.Bench.Metrics.Goodput
	if g["ttft"] != 50 || g["tpot"] != 10 || g["e2el"] != 900 || r.rate != 12.5 || r.opt.Bench.Metrics.RequestRate != 12.5 {
		t.Fatalf("goodput %v rate %v", g, r.rate)
	}
	if len(r.metadata) != 2 || r.metadata[1].Key != "note" || r.metadata[1].Value != "two words" {
		t.Fatalf("metadata %v: a value with a space must stay whole", r.metadata)
	}
	// the random dataset forces ignore_eos (vLLM), whatever the flags say
	if !r.opt.Config(&benchrun.Workload{}).IgnoreEOS || r.opt.Bench.BaseURL != "http://127.0.0.1:8000" || r.metadata[0].Key != "gpu" {
		t.Fatalf("cfg %+v metadata %v", r.opt.Bench, r.metadata)
	}
}

// TestBenchVLLMAliases: flags vLLM users type that map onto others.
func TestBenchVLLMAliases(t *testing.T) {
	f, err := parseBenchFlags([]string{"--input-len", "100", "--output-len", "7", "--request-rate", "Inf", "--disable-tqdm"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.validate()
	if err != nil {
		t.Fatal(err)
	}
	if f.randomInputLen != 100 || f.randomOutputLen != 7 || f.sharegptOutLen != 7 || !math.IsInf(r.rate, 1) || !f.disableTqdm {
		t.Fatalf("input %d output %d sharegpt %d rate %v tqdm %v", f.randomInputLen, f.randomOutputLen, f.sharegptOutLen, r.rate, f.disableTqdm)
	}
	// without the general flags the dataset flags keep their defaults
	f, err = parseBenchFlags([]string{"--random-output-len", "9"}, &bytes.Buffer{})
	if err != nil || f.randomInputLen != 1024 || f.randomOutputLen != 9 || f.sharegptOutLen != 0 {
		t.Fatalf("%v %+v", err, f)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"--request-rate", "-3"},
		{"--request-rate", "fast"},
		{"--backend", "tgi"},
		{"--dataset-name", "sharegpt"}, // needs --dataset-path
		{"--goodput", "ttft=5"},
		{"--percentile-metrics", "ttft,latency"},
		{"--metric-percentiles", "101"},
		{"--metadata", "novalue"},
		{"--num-prompts", "0"},
		{"--burstiness", "0"},
		{"--random-range-ratio", "1.5"},
		{"extra-arg"},
		{"--served-model-name", "x"}, // needs --model
		{"--dataset-path", "x.json"}, // the random dataset reads no file
		{"--stall-timeout", "5ms"},   // a typo for 5m: every stream would stall
		{"--stall-timeout", "-1s"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"bench"}, args...), &out, &errb)
		if code := exitCode(err, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (err %v)", args, code, err)
		}
		if out.Len() != 0 {
			t.Errorf("%q: wrote to stdout: %q", args, out.String())
		}
	}
}

func TestBenchUnreachableNeedsModel(t *testing.T) {
	// No --model and nothing listening: a plain failure (exit 1) naming the cause.
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", "http://127.0.0.1:1", "--num-prompts", "1"}, &out, &errb)
	if code := exitCode(err, &errb); code != 1 || !strings.Contains(errb.String(), "model list") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// TestBenchTableBindings: every flag the table says perflab acts on sets
// something, and nothing is bound that the table does not list as acted on.
func TestBenchTableBindings(t *testing.T) {
	binds := (&benchFlags{}).binds()
	for _, row := range benchTable {
		_, bound := binds[row.Name]
		acted := bound || readByValues[row.Name]
		if row.Action == benchflags.Act && !acted {
			t.Errorf("--%s: the table says perflab acts on it, but nothing reads it", row.Name)
		}
		if row.Action == benchflags.Warn && acted {
			t.Errorf("--%s: marked 'no effect here' but bound", row.Name)
		}
	}
	for name := range binds {
		if benchTable.Lookup(name) == nil {
			t.Errorf("--%s bound but not in the table", name)
		}
	}
}

// TestBenchPastedVLLMCommand: a command line as pasted from a vLLM page,
// with flags perflab ignores and vLLM's spellings, parses; each ignored
// flag is named once in the warnings.
func TestBenchPastedVLLMCommand(t *testing.T) {
	f, err := parseBenchFlags(strings.Fields("--backend vllm --model m --trust-remote-code --tokenizer-mode auto --num_prompts 12 "+
		"--dataset-name random --random-input-len 64 --use-beam-search --extra-body.top_k 5 --goodput ttft:50 tpot:10 --plot-timeline"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if f.numPrompts != 12 || f.randomInputLen != 64 || f.extraBody != `{"top_k":5}` || len(f.goodput) != 2 {
		t.Fatalf("%+v", f)
	}
	want := []string{"--trust-remote-code", "--tokenizer-mode", "--use-beam-search", "--plot-timeline"}
	if len(f.warnings) != len(want) {
		t.Fatalf("warnings %q", f.warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(f.warnings[i], w+" has no effect here") {
			t.Errorf("warning %d = %q, want %s …", i, f.warnings[i], w)
		}
	}
}

// TestTokenizerFromHFCache: a Hugging Face id that is not a path here is
// found in the local hub cache ($HF_HOME/hub, refs/main's snapshot), and
// a missing one fails naming the folders it looked in.
func TestTokenizerFromHFCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	repo := filepath.Join(home, "hub", "models--org--tiny")
	snap := filepath.Join(repo, "snapshots", "abc123")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "collect", "dataset", "tokenizer", "testdata", "tiny")
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		os.WriteFile(filepath.Join(snap, e.Name()), b, 0o644)
	}
	os.MkdirAll(filepath.Join(repo, "refs"), 0o755)
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("abc123\n"), 0o644)
	tok, err := openTokenizer("org/tiny", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := tok.Encode("hello"); err != nil || len(ids) == 0 {
		t.Fatalf("%v %v", ids, err)
	}
	_, err = openTokenizer("org/absent", "", "", nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "hub", "models--org--absent")) {
		t.Fatalf("error %v does not say where it looked", err)
	}
	// without HF_HOME, huggingface_hub's cache is under $XDG_CACHE_HOME
	// when that is set
	xdg := t.TempDir()
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", xdg)
	if err := os.MkdirAll(filepath.Join(xdg, "huggingface"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(home, "hub"), filepath.Join(xdg, "huggingface", "hub")); err != nil {
		t.Fatal(err)
	}
	if _, err := openTokenizer("org/tiny", "", "", nil); err != nil {
		t.Fatalf("$XDG_CACHE_HOME/huggingface/hub: %v", err)
	}
}
