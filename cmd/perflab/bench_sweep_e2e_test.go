package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// runBenchBinary runs `perflab bench ARGS` and returns its stdout.
func runBenchBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"bench"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perflab bench %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// readResults reads the perflab results under dir (*.perflab.json, else
// the --output-json files r-*.json), sorted by file name.
func readResults(t testing.TB, dir string) []*schema.Result {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.perflab.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(dir, "r-*.json"))
	}
	sort.Strings(files)
	var out []*schema.Result
	for _, f := range files {
		r, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestMustShowSweepRepeatsCompare is issue 9's bench acceptance, with the
// real binaries: against `perflab mock --preset vllm`,
// --sweep-max-concurrency 1,8,64 --save-result writes three points whose
// throughput rises and prints the sweep table; --num-runs 3 prints a CV
// per metric and saves every run; --compare of the saved files prints %
// deltas.
func TestMustShowSweepRepeatsCompare(t *testing.T) {
	bin := buildPerflab(t)
	addr := startMockBinary(t, bin, "--preset", "vllm")
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	common := []string{"--port", port, "--model", "mock", "--random-input-len", "64", "--random-output-len", "16"}

	sweepDir := filepath.Join(t.TempDir(), "sweep")
	out := runBenchBinary(t, bin, append(common, "--sweep-max-concurrency", "1,8,64", "--sweep-num-prompts-factor", "4",
		"--save-result", "--result-dir", sweepDir)...)
	t.Logf("sweep stdout (tail):\n%s", out[max(0, strings.Index(out, "= Sweep Summary")-10):])
	if n := strings.Count(out, "Serving Benchmark Result"); n != 3 {
		t.Errorf("%d result blocks, want one per point", n)
	}
	vllm, _ := filepath.Glob(filepath.Join(sweepDir, "*concurrency*-mock-*[0-9].json"))
	if len(vllm) != 3 {
		t.Fatalf("vLLM JSON files %v, want 3", vllm)
	}
	type point struct {
		MaxConcurrency int     `json:"max_concurrency"`
		NumPrompts     int     `json:"num_prompts"`
		Output         float64 `json:"output_throughput"`
		Completed      int     `json:"completed"`
	}
	var points []point
	for _, f := range vllm {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p point
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		points = append(points, p)
	}
	sort.Slice(points, func(i, j int) bool { return points[i].MaxConcurrency < points[j].MaxConcurrency })
	for i, want := range []int{1, 8, 64} {
		p := points[i]
		if p.MaxConcurrency != want || p.NumPrompts != 4*want || p.Completed != 4*want {
			t.Errorf("point %d: %+v, want concurrency %d with %d prompts", i, p, want, 4*want)
		}
		if i > 0 && !(p.Output > points[i-1].Output) {
			t.Errorf("throughput does not rise: c=%d %.1f tok/s after c=%d %.1f tok/s", want, p.Output, points[i-1].MaxConcurrency, points[i-1].Output)
		}
	}
	results := readResults(t, sweepDir)
	if len(results) != 3 {
		t.Fatalf("%d perflab results, want 3", len(results))
	}
	for _, r := range results {
		if r.Load.Sweep != "max_concurrency" || r.Summary == nil || r.Summary.SteadyState == nil && r.Load.MaxConcurrency > 1 {
			t.Errorf("%s: sweep %q, steady state %v", r.ID, r.Load.Sweep, r.Summary.SteadyState)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+c=64\s+1\s.*<- best throughput\s*$`).MatchString(out) {
		t.Errorf("the table does not mark c=64 as the best throughput:\n%s", out)
	}

	repDir := filepath.Join(t.TempDir(), "repeats")
	out = runBenchBinary(t, bin, append(common, "--max-concurrency", "8", "--num-prompts", "32", "--num-runs", "3",
		"--save-result", "--result-dir", repDir)...)
	if !strings.Contains(out, "Repeated Runs (n=3)") {
		t.Errorf("no repeats block:\n%s", out)
	}
	cv := regexp.MustCompile(`(?m)^Output token throughput \(tok/s\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%\s*$`)
	if m := cv.FindStringSubmatch(out); m == nil {
		t.Errorf("no output throughput row with mean, std, min, max and CV:\n%s", out)
	} else {
		t.Logf("repeats: output throughput mean %s, std %s, CV %s%%", m[1], m[2], m[5])
	}
	reps := readResults(t, repDir)
	if len(reps) != 3 {
		t.Fatalf("%d repeat results, want 3", len(reps))
	}
	for i, r := range reps {
		if r.Repeat != i || !strings.HasSuffix(r.ID, "-run"+string(rune('1'+i))) {
			t.Errorf("run %d: repeat %d id %s", i, r.Repeat, r.ID)
		}
	}

	// c=8 repeats against the c=64 sweep point: a large rise, 3+1 runs
	// (untested, said so).
	c64, _ := filepath.Glob(filepath.Join(sweepDir, "*concurrency64*.perflab.json"))
	out = runBenchBinary(t, bin, "--compare", filepath.Join(repDir, "*.json"), c64[0])
	t.Logf("compare:\n%s", out)
	delta := regexp.MustCompile(`(?m)^Output token throughput \(tok/s\)\s+[\d.]+ ± \d+%\s+[\d.]+\s+\+\d+\.\d\d%\s+\(n=3\+1: too few runs to test`)
	if !delta.MatchString(out) {
		t.Errorf("no %% delta for output throughput:\n%s", out)
	}
	if !strings.Contains(out, "old: "+filepath.Join(repDir, "*.json")+" (3 runs from 3 files; 3 vLLM JSON counted through its perflab result)") {
		t.Errorf("old side not described as 3 runs:\n%s", out)
	}
	// The vLLM JSON files alone (with their steady_state objects) read
	// as well, as does a comma-separated list.
	c8, _ := filepath.Glob(filepath.Join(sweepDir, "*concurrency8-*[0-9].json"))
	out = runBenchBinary(t, bin, "--compare", filepath.Join(repDir, "*-run[0-9].json"), c8[0]+","+c64[0])
	if !strings.Contains(out, "(3 runs from 3 files)") || !strings.Contains(out, "(2 runs from 2 files)") ||
		!regexp.MustCompile(`(?m)^Steady-state output throughput \(tok/s\)\s+[\d.]+ ± \d+%\s+[\d.]+ ± \d+%\s+[+-]\d+\.\d\d%`).MatchString(out) {
		t.Errorf("compare of vLLM JSON files:\n%s", out)
	}
}
