package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const cliBlock = `# random 32K input
============ Serving Benchmark Result ============
Successful requests:                     100
Benchmark duration (s):                  1157.25
Total input tokens:                      3200000
Total generated tokens:                  7681
Request throughput (req/s):              0.09
Output token throughput (tok/s):         6.64
Peak output token throughput (tok/s):    24.00
Peak concurrent requests:                100.00
Total Token throughput (tok/s):          2771.81
---------------Time to First Token----------------
Mean TTFT (ms):                          585981.22
Median TTFT (ms):                        582757.65
P99 TTFT (ms):                           1144686.57
==================================================
`

const cliCampaign = `id: demo
model: {id: Qwen/Qwen3-32B}
hardware: {gpu: H100, count: 1}
profiles:
  - {id: very-long, name: Very Long Prompt, dataset: random, input_len: 32000, output_len: 100, num_prompts: 100}
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: vllm, name: vLLM, engine: vllm, command: vllm serve Qwen/Qwen3-32B}
baseline: vllm
optimized: vllm
`

// TestImportCommand runs perflab import end to end: flags after the file,
// a campaign, deterministic output, re-import overwriting.
func TestImportCommand(t *testing.T) {
	dir, src, camp := importFixture(t)
	into := filepath.Join(dir, "results", "demo")
	args := []string{"import", src, "--into", into, "--campaign-file", camp, "--experiment", "vllm", "--profile", "very-long"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	path := filepath.Join(into, "vllm--very-long.json")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "wrote "+path+" (ok, 1 warning(s))") || !strings.Contains(out.String(), "warning: total generated tokens 7681") {
		t.Fatalf("stdout:\n%s", out.String())
	}
	r, err := schema.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Campaign != "demo" || r.Summary.TotalTokenThroughput != 2771.81 || r.Label != "vLLM / Very Long Prompt (random 32K input)" {
		t.Fatalf("result %+v", r)
	}
	// importing again gives the identical file
	out.Reset()
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Fatal("two imports differ")
	}
	// no temporaries left behind
	entries, _ := os.ReadDir(into)
	if len(entries) != 1 {
		t.Fatalf("files in %s: %v", into, entries)
	}
}

// TestImportErrors: usage mistakes exit 2; bad input names file:line and
// writes nothing.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	writeFile(t, good, cliBlock)
	bad := filepath.Join(dir, "bad.txt")
	writeFile(t, bad, strings.Replace(cliBlock, "1157.25", "soon", 1))
	empty := filepath.Join(dir, "empty.md")
	writeFile(t, empty, "# nothing here\n")
	into := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"import", "--into", into}, 2, "no input file"},
		{"no into", []string{"import", good}, 2, "--into DIR is required"},
		{"bad flag", []string{"import", good, "--frobnicate"}, 2, "flag provided but not defined"},
		{"bad value", []string{"import", good, bad, "--into", into}, 1, bad + `:4: row "Benchmark duration (s):": value "soon" is not a number`},
		{"nothing found", []string{"import", empty, "--into", into}, 1, empty + ": no benchmark output found"},
		{"missing file", []string{"import", filepath.Join(dir, "nope.txt"), "--into", into}, 1, "no such file"},
		{"campaign file as id", []string{"import", good, "--into", into, "--campaign", "content/demo/campaign.yaml"}, 2, "--campaign content/demo/campaign.yaml looks like a file, not a campaign id: give the campaign's YAML with --campaign-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errb)
			if code := exitCode(err, &errb); code != tt.code || !strings.Contains(errb.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errb.String(), tt.code, tt.want)
			}
		})
	}
	// the good file given with the bad one was not written either
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Fatalf("output directory exists after a failed import: %v", err)
	}
}

// TestImportDryRunAndHelp: --dry-run parses and reports without writing;
// -h prints the usage and succeeds.
func TestImportDryRunAndHelp(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.txt")
	writeFile(t, src, cliBlock+"\n# random 4K input\n"+strings.Replace(cliBlock[strings.Index(cliBlock, "="):], "7681", "99790", 1))
	into := filepath.Join(dir, "out")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"import", "--dry-run", "--into", into, "--engine", "vllm", src}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	// the second block's token total no longer fits its throughput: flagged
	if !strings.Contains(out.String(), "a--random-32k-input (ok)") || !strings.Contains(out.String(), "a--random-4k-input (ok, 1 warning(s))") ||
		!strings.Contains(out.String(), "total token throughput 2771.81 tok/s differs by -2.8%") {
		t.Fatalf("stdout:\n%s", out.String())
	}
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Fatal("dry run wrote output")
	}
	out.Reset()
	errb.Reset()
	if err := run(context.Background(), []string{"import", "-h"}, &out, &errb); err != nil || !strings.Contains(errb.String(), "usage: perflab import") || !strings.Contains(errb.String(), "-campaign-file") {
		t.Fatalf("err %v, stderr:\n%s", err, errb.String())
	}
}

// TestImportBenchSaveResultFolder: a folder of perflab bench --save-result
// outputs holds each run twice, vLLM's JSON and perflab's own result
// beside it (X.perflab.json). Import reads the vLLM JSON and skips the
// perflab result, saying so; it used to stop at it ("missing field
// duration: not vLLM --save-result JSON"). Given alone, the perflab
// result is an error that says what it is.
func TestImportBenchSaveResultFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "old")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "openai-infqps-concurrency64-m-20250601-094510.json"), `{"backend": "vllm", "model_id": "m", "completed": 10, "duration": 2.0, "total_input_tokens": 100, "total_output_tokens": 200, "request_throughput": 5.0, "output_throughput": 100.0, "total_token_throughput": 150.0, "mean_ttft_ms": 20, "median_ttft_ms": 19, "mean_tpot_ms": 5, "median_tpot_ms": 5, "mean_itl_ms": 5, "median_itl_ms": 5}`)
	own := filepath.Join(src, "openai-infqps-concurrency64-m-20250601-094510.perflab.json")
	if err := schema.WriteFile(own, &schema.Result{ID: "bench-20250601-094510", Status: schema.StatusOK, Start: "2025-06-01T09:45:10Z"}); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(dir, "results", "demo")
	var out, errb bytes.Buffer
	args := []string{"import", "--into", into, "--experiment", "vllm", "--profile", "chat", "--round", "2025-06-01", src}
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "skipped "+own+": a perflab result") {
		t.Errorf("stderr does not say the perflab result was skipped:\n%s", errb.String())
	}
	files, err := filepath.Glob(filepath.Join(into, "rounds", "2025-06-01", "*.json"))
	if err != nil || len(files) != 2 { // the run and round.json
		t.Fatalf("round's files %v %v\nstdout:\n%s", files, err, out.String())
	}
	if r, err := schema.ReadFile(filepath.Join(into, "rounds", "2025-06-01", "vllm--chat.json")); err != nil || r.Summary.OutputThroughput != 100 {
		t.Fatalf("imported run: %+v %v", r, err)
	}
	errb.Reset()
	err = run(context.Background(), []string{"import", "--dry-run", own}, &bytes.Buffer{}, &errb)
	if code := exitCode(err, &errb); code != 1 || !strings.Contains(errb.String(), own+" is a perflab result") {
		t.Errorf("the perflab result alone: status %d, %s", code, errb.String())
	}
}

// TestImportIntoResultsRoot: --into given as collect's --results (the
// results root) put the runs, and with --round a rounds/ID/ directory,
// beside the campaigns, where no report reads them, without a word; it
// now warns, naming the directory the site reads. The campaign's own
// directory (with or without a trailing slash) gets no warning.
func TestImportIntoResultsRoot(t *testing.T) {
	dir, src, camp := importFixture(t)
	for _, c := range []struct {
		into string
		warn bool
	}{
		{filepath.Join(dir, "results"), true},
		{filepath.Join(dir, "results", "demo"), false},
		{filepath.Join(dir, "results", "demo") + "/", false},
	} {
		var errb bytes.Buffer
		args := []string{"import", "--dry-run", src, "--into", c.into, "--campaign-file", camp, "--experiment", "vllm", "--profile", "very-long", "--round", "v0.10"}
		if err := run(context.Background(), args, &bytes.Buffer{}, &errb); err != nil {
			t.Fatalf("%v\n%s", err, errb.String())
		}
		got := strings.Contains(errb.String(), "warning: --into "+c.into+": the site reads campaign demo's results from RESULTS/demo")
		if got != c.warn {
			t.Errorf("--into %s: warned %v, want %v\n%s", c.into, got, c.warn, errb.String())
		}
	}
}

// importFixture makes a scratch directory holding a vllm bench serve
// output (out.txt, cliBlock) and the campaign it belongs to
// (campaign.yaml, cliCampaign), for the import tests.
func importFixture(t *testing.T) (dir, src, camp string) {
	t.Helper()
	dir = t.TempDir()
	src, camp = filepath.Join(dir, "out.txt"), filepath.Join(dir, "campaign.yaml")
	writeFile(t, src, cliBlock)
	writeFile(t, camp, cliCampaign)
	return dir, src, camp
}
