package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestImportLLMDExamples: perflab import reads llm-d-benchmark's README
// examples (v0.1 and v0.2). It said "no benchmark output found".
func TestImportLLMDExamples(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	ex := filepath.Join("..", "..", "collect", "llmd", "testdata", "llm-d-benchmark")
	err := run(context.Background(), []string{"import", filepath.Join(ex, "br_v0_1_example.yaml"), filepath.Join(ex, "br_v0_2_example.yaml"), "--into", dir}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 2 {
		t.Fatalf("files %v\n%s", files, stdout.String())
	}
	var seen []int
	for _, f := range files {
		r, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, r.Summary.Completed+r.Summary.Failed)
	}
	if !(seen[0] == 500 && seen[1] == 32 || seen[0] == 32 && seen[1] == 500) {
		t.Errorf("requests %v, want the examples' 32 and 500", seen)
	}
}

// TestExportImportRoundTrip: results exported as llm-d reports and
// imported back are the same results, every number kept.
func TestExportImportRoundTrip(t *testing.T) {
	src := filepath.Join(t.TempDir(), "results", "demo")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	block := filepath.Join(t.TempDir(), "out.txt")
	writeFile(t, block, cliBlock)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"import", block, "--into", src, "--engine", "vllm", "--model", "Qwen/Qwen3-32B"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	exp := t.TempDir()
	if err := run(context.Background(), []string{"export", filepath.Dir(src), "--out", exp}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	reports, _ := filepath.Glob(filepath.Join(exp, "*", "*.yaml"))
	if len(reports) != 1 || !strings.Contains(stdout.String(), "1 report (llm-d benchmark report v0.2)") {
		t.Fatalf("reports %v\n%s", reports, stdout.String())
	}
	back := t.TempDir()
	if err := run(context.Background(), []string{"import", exp, "--into", back}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	orig, _ := filepath.Glob(filepath.Join(src, "*.json"))
	got, _ := filepath.Glob(filepath.Join(back, "*.json"))
	if len(orig) != 1 || len(got) != 1 || filepath.Base(orig[0]) != filepath.Base(got[0]) {
		t.Fatalf("orig %v back %v", orig, got)
	}
	a, _ := schema.ReadFile(orig[0])
	b, _ := schema.ReadFile(got[0])
	ja, _ := json.Marshal(a.Summary)
	jb, _ := json.Marshal(b.Summary)
	if string(ja) != string(jb) || a.Engine.Name != b.Engine.Name || a.Model.ID != b.Model.ID {
		t.Errorf("round trip\n%s\n%s", ja, jb)
	}
}

// TestExportImportKeepsModel: the bundled demo results exported as llm-d
// reports and imported back keep their model whole: the served name (an
// FP8 experiment's perflab/mock-8b-FP8) and the tokenizer ("server") came
// back empty, the FP8 runs then reading as the base model's.
func TestExportImportKeepsModel(t *testing.T) {
	src := filepath.Join("..", "..", "results", "demo-mock-h100")
	exp, back := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"export", src, "--out", exp}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if err := run(context.Background(), []string{"import", exp, "--into", back}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	orig, _ := filepath.Glob(filepath.Join(src, "*.json"))
	served := 0
	for _, f := range orig {
		a, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(back, a.ID+".json"))
		if len(matches) != 1 {
			t.Fatalf("%s: imported back as %v", f, matches)
		}
		b, err := schema.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		if a.Model != b.Model {
			t.Errorf("%s: model %+v came back as %+v", filepath.Base(f), a.Model, b.Model)
		}
		if a.Model.Served != "" {
			served++
		}
	}
	if len(orig) == 0 || served == 0 {
		t.Fatalf("%d results, %d with a served name: the test checks nothing", len(orig), served)
	}
}
