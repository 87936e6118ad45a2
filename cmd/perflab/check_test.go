package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/perflab/perflab/collect/schema"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommand runs perflab check on a seed page (findings, exit 1),
// on the bundled content (clean, exit 0) and with a bad flag (usage).
func TestCheckCommand(t *testing.T) {
	var out, errb bytes.Buffer
	seed := "../../collect/check/testdata/seed002.md"
	err := run(context.Background(), []string{"check", seed}, &out, &errb)
	if err == nil || errors.Is(err, errUsage) {
		t.Fatalf("check %s: error %v, want findings (exit 1)", seed, err)
	}
	if !strings.Contains(err.Error(), "2 finding(s) in 1 of 1 page(s)") {
		t.Errorf("error %q, want the count of findings", err)
	}
	want := seed + ":22: +10.7% is not the change from 2771.81 to 4068.16, which is +46.8%\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", out.String(), want)
	}

	out.Reset()
	errb.Reset()
	err = run(context.Background(), []string{"check", "--results", "../../results", "../../content"}, &out, &errb)
	if err != nil {
		t.Fatalf("check of the bundled content: %v\n%s", err, out.String())
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "no findings") {
		t.Errorf("stdout %q, stderr %q; want nothing and a clean summary", out.String(), errb.String())
	}

	err = run(context.Background(), []string{"check", "--nope"}, &out, &errb)
	if !errors.Is(err, errUsage) {
		t.Errorf("bad flag: %v, want a usage error", err)
	}
	err = run(context.Background(), []string{"check", filepath.Join(t.TempDir(), "missing.md")}, &out, &errb)
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "missing.md") {
		t.Errorf("missing file: %v, want an error naming it", err)
	}
	// A report page whose results are not under --results: said on stderr.
	errb.Reset()
	err = run(context.Background(), []string{"check", "--results", t.TempDir(), "../../content/qwen3-32b"}, &out, &errb)
	if err != nil || !strings.Contains(errb.String(), "no results of campaign qwen3-32b-h100 under") {
		t.Errorf("results elsewhere: %v, stderr %q; want a note naming the campaign", err, errb.String())
	}
	// A folder without Markdown pages (the seeds are .txt) is an error,
	// not a clean result.
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "seed.txt"), []byte("Total TPS: 1.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(context.Background(), []string{"check", empty}, &out, &errb)
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "no Markdown pages") || !strings.Contains(err.Error(), empty) {
		t.Errorf("folder without pages: %v, want an error naming it", err)
	}
}

// TestCheckMigrated: the three seed pages migrated by perflab migrate are
// report pages checked against their results, and keep the seeds' four
// findings (the original tables stay in collapsed blocks).
func TestCheckMigrated(t *testing.T) {
	src := filepath.Join(t.TempDir(), "performance-lab")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"seed000.md", "seed001.md", "seed002.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "collect", "check", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(src, f), string(data))
	}
	lab := filepath.Join(t.TempDir(), "lab")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--quiet", src, "--out", lab}, &out, &errb); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errb.String())
	}
	out.Reset()
	errb.Reset()
	err := run(context.Background(), []string{"check", filepath.Join(lab, "content"), "--results", filepath.Join(lab, "results")}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "4 finding(s) in 2 of 3 page(s)") {
		t.Fatalf("check of the migrated seeds: %v\n%s%s", err, out.String(), errb.String())
	}
	for _, want := range []string{
		"seed001/index.md:", "6095.37 tok/s matches no result of campaign seed001",
		"seed002/index.md:", "+10.7% is not the change from 2771.81 to 4068.16, which is +46.8%",
		"the serving command launches SGLang, but its section \"2. Quantization in TensorRT-LLM\" is about TensorRT-LLM",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("findings lack %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "read 3 pages with 0 benchmark outputs and 40 result files;") {
		t.Errorf("summary %q: want the 3 migrated reports and their 40 ok results", errb.String())
	}
}

// TestCheckUnreadable: a page whose campaign or results cannot be read is
// reported as FILE:LINE: what, the pages after it are still checked, the
// summary is printed, and the exit status is 3 (not 1, findings).
func TestCheckUnreadable(t *testing.T) {
	dir := t.TempDir()
	camp, err := os.ReadFile("../../content/demo/mock-h100/campaign.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// a/: a campaign with an unknown field (sorted before the seed page).
	writeFile(t, filepath.Join(dir, "a", "index.md"), "# A\n")
	writeFile(t, filepath.Join(dir, "a", "campaign.yaml"), strings.Replace(string(camp), "\nobjective:", "\nobjectiv:", 1))
	// b/: a good campaign whose results hold malformed JSON.
	writeFile(t, filepath.Join(dir, "b", "index.md"), "# B\n")
	writeFile(t, filepath.Join(dir, "b", "campaign.yaml"), string(camp))
	res := t.TempDir()
	if err := os.MkdirAll(filepath.Join(res, "demo-mock-h100"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(res, "demo-mock-h100", "x.json"), "{\n  \"schema_version\": 1,\n  \"id\": [\n")
	seed, err := os.ReadFile("../../collect/check/testdata/seed002.md")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "c.md"), string(seed))

	for _, tc := range []struct {
		name     string
		args     []string
		stderr   []string
		wantCode int
	}{
		{"bad campaign, findings after it", []string{dir, "--results", res}, []string{
			filepath.ToSlash(filepath.Join(dir, "a", "campaign.yaml")) + ":12: unknown field \"objectiv\" in the campaign",
			"(the campaign of " + filepath.ToSlash(filepath.Join(dir, "a", "index.md")) + ")",
			filepath.ToSlash(filepath.Join(res, "demo-mock-h100", "x.json")) + ":4:1: malformed JSON",
			"(the results of " + filepath.ToSlash(filepath.Join(dir, "b", "index.md")) + ")",
			"perflab check: read 3 pages (2 could not be read) with ",
		}, 3},
		{"findings only", []string{filepath.Join(dir, "c.md")}, []string{"perflab check: read 1 page with "}, 1},
		{"missing path", []string{filepath.Join(dir, "missing.md")}, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), append([]string{"check"}, tc.args...), &out, &errb)
			if got := exitCode(err, &errb); got != tc.wantCode {
				t.Errorf("exit status %d (%v), want %d", got, err, tc.wantCode)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errb.String())
				}
			}
			// The page after the unreadable ones is checked all the same.
			if want := ":22: +10.7% is not the change from 2771.81 to 4068.16"; tc.name != "missing path" && !strings.Contains(out.String(), want) {
				t.Errorf("stdout lacks %q:\n%s", want, out.String())
			}
		})
	}
}

// TestCheckCountsWhatItRead: the summary said "48 run(s)" for the sweep
// demo's 32 result files (it counted the means and medians it derives
// for each load point with repeats). It counts what a reader can count:
// the result files with numbers, and the load points with repeats.
func TestCheckCountsWhatItRead(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "results", "demo-mock-sweep", "*.json"))
	ok := 0
	for _, f := range files {
		if res, err := schema.ReadFile(f); err == nil && res.Status == schema.StatusOK {
			ok++
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"check", filepath.Join(root, "content", "demo", "mock-sweep"), "--results", filepath.Join(root, "results")}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	want := fmt.Sprintf("perflab check: read 1 page with 0 benchmark outputs and %d result files (8 load points with repeats, also compared through their means and medians);", ok)
	if ok != 32 || !strings.Contains(errb.String(), want) {
		t.Errorf("%d ok result files; summary:\n%s\nwant %q", ok, errb.String(), want)
	}
}

// TestCheckReportWithoutMarkdown: a report bundle with a campaign.yaml and
// no index.md (its page all generated, as the docs offer) is checked, not
// "no Markdown pages": its results against its campaign, clean with the
// demo's results, a finding for a result that ran another model.
func TestCheckReportWithoutMarkdown(t *testing.T) {
	dir := t.TempDir()
	content := filepath.Join(dir, "content", "demo", "mock-h100")
	if err := os.MkdirAll(content, 0o755); err != nil {
		t.Fatal(err)
	}
	camp, err := os.ReadFile("../../content/demo/mock-h100/campaign.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(content, "campaign.yaml"), camp, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"check", "--results", "../../results", filepath.Join(dir, "content")}, &out, &errb)
	if err != nil {
		t.Fatalf("check of a bundle without index.md: %v\nstdout %q\nstderr %q", err, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "read 1 page with 0 benchmark outputs and 10 result files") || !strings.Contains(errb.String(), "no findings") {
		t.Errorf("stderr %q, want the bundle read with its 10 ok results and no findings", errb.String())
	}

	// One result ran another model: found, and reported at the campaign.
	results := filepath.Join(dir, "results", "demo-mock-h100")
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob("../../results/demo-mock-h100/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("demo results: %v (%d)", err, len(names))
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(n) == "vllm--short.json" {
			data = bytes.ReplaceAll(data, []byte("--model perflab/mock-8b "), []byte("--model other/Llama-3.1-70B "))
		}
		if err := os.WriteFile(filepath.Join(results, filepath.Base(n)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	errb.Reset()
	err = run(context.Background(), []string{"check", "--results", filepath.Join(dir, "results"), filepath.Join(dir, "content")}, &out, &errb)
	if err == nil || !strings.Contains(out.String(), "campaign.yaml:") || !strings.Contains(out.String(), "result vllm--short ran model other/Llama-3.1-70B") {
		t.Errorf("a result of another model: error %v, stdout %q; want a finding at the campaign", err, out.String())
	}
}
