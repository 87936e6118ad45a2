package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateCommand runs perflab migrate on a folder: the report names
// every ambiguity as FILE:LINE, --strict fails and writes nothing, a plain
// run writes a project that perflab build renders.
func TestMigrateCommand(t *testing.T) {
	src := filepath.Join(t.TempDir(), "performance-lab")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"seed-002-qwen3-32b-h100.md", "variants/wrong-model.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "collect", "migrate", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(src, filepath.Base(f)), string(data))
	}
	out := filepath.Join(t.TempDir(), "lab")

	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"migrate", src, "--out", out, "--strict", "--quiet"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--strict") {
		t.Fatalf("--strict with ambiguities: err = %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("--strict failure wrote %s", out)
	}
	rep := stdout.String()
	for _, want := range []string{
		filepath.Join(src, "wrong-model.md") + ":65: the serving command names model Qwen/Qwen3-8B",
		filepath.Join(src, "seed-002-qwen3-32b-h100.md") + ":187: experiment fp8 runs sglang",
		"13 results",
		"2 pages (0 plain), 15 outputs → 15 results (0 unassigned), 3 ambiguities",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}

	stdout.Reset()
	if err := run(context.Background(), []string{"migrate", src, "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "output → experiment vllm, profile very-long [label-facts: label \"random 32K input\"") {
		t.Errorf("the report does not say how outputs were placed:\n%s", stdout.String())
	}
	for _, f := range []string{
		"content/seed-002-qwen3-32b-h100/index.md", "content/seed-002-qwen3-32b-h100/campaign.yaml",
		"results/seed-002-qwen3-32b-h100/vllm--sharegpt.json", "results/seed-002-qwen3-32b-h100/src/seed-002-qwen3-32b-h100.md",
		"content/wrong-model/index.md",
	} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	err = run(context.Background(), []string{"build", "--content", filepath.Join(out, "content"), "--results", filepath.Join(out, "results"), "--out", filepath.Join(out, "site")}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("build of the migrated project: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "site", "seed-002-qwen3-32b-h100", "index.html")); err != nil {
		t.Error(err)
	}
}

// TestMigratePlainPageAmbiguity: a page copied as plain that holds a
// result pasted as JSON lists it in the report, and --strict fails on it.
func TestMigratePlainPageAmbiguity(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "run.md"), "# Qwen3-8B\n\n```json\n"+
		`{"backend": "vllm", "model_id": "Qwen/Qwen3-8B", "num_prompts": 10, "completed": 10, "total_input_tokens": 5120, "total_output_tokens": 1280, "duration": 1.0, "request_throughput": 10.0, "output_throughput": 1280.0, "total_token_throughput": 6400.0}`+
		"\n```\n")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"migrate", "--strict", src, "--out", out}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "1 ambiguity") {
		t.Fatalf("err = %v", err)
	}
	want := filepath.Join(src, "run.md") + ":4: a benchmark result pasted as JSON"
	if !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "1 page (1 plain), 0 outputs → 0 results (0 unassigned), 1 ambiguity") {
		t.Errorf("report lacks %q:\n%s", want, stdout.String())
	}
}

// TestMigrateReportCounts: the page line counts in words that agree with
// the numbers ("1 step", "1 profile") and names unknown hardware plainly.
func TestMigrateReportCounts(t *testing.T) {
	var stdout, stderr bytes.Buffer
	page := filepath.Join("..", "..", "collect", "migrate", "testdata", "variants", "simple.md")
	if err := run(context.Background(), []string{"migrate", "--dry-run", "--quiet", page}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(campaign simple): 2 outputs → 2 results, 2 experiments in 1 step, 1 profile, 6 ambiguities\n",
		"  model meta-llama/Llama-3.1-8B-Instruct (variants meta-llama/Llama-3.1-8B-Instruct-Q4_K_M.gguf); 1× unknown; engines",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestMigrateNeverAborts: a page that cannot be migrated (a fence never
// closed) is reported and the others are written, exit status 0; with
// --strict the run fails and writes nothing.
func TestMigrateNeverAborts(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "a-broken.md"), "# Broken\n\n```bash\nvllm serve Qwen/Qwen3-8B\n")
	good, err := os.ReadFile(filepath.Join("..", "..", "collect", "migrate", "testdata", "variants", "simple.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "b-good.md"), string(good))
	out := filepath.Join(t.TempDir(), "lab")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"migrate", src, "--out", out, "--quiet"}, &stdout, &stderr); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stdout.String())
	}
	rep := stdout.String()
	for _, want := range []string{"a-broken.md:3: not migrated: ", "never closed", "page 1", "1 not migrated"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "content", "b-good", "index.md")); err != nil {
		t.Error(err)
	}
	out2 := filepath.Join(t.TempDir(), "lab")
	err = run(context.Background(), []string{"migrate", "--strict", src, "--out", out2}, &stdout, &stderr)
	if err == nil {
		t.Fatal("--strict with a page not migrated: no error")
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("--strict failure wrote %s", out2)
	}
}
