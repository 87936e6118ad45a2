package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func TestSeriesFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep-max-concurrency", "1,x"}, `"x" is not a whole number`},
		{[]string{"--sweep-max-concurrency", "1,8", "--sweep-request-rate", "1"}, "sweep one at a time"},
		{[]string{"--sweep-request-rate", "1,0"}, "want a positive number or inf"},
		{[]string{"--sweep-max-concurrency", "4,4"}, "appears twice"},
		{[]string{"--num-runs", "0"}, "--num-runs 0"},
		{[]string{"--sweep-num-prompts-factor", "2"}, "needs --sweep-max-concurrency"},
		{[]string{"--sweep-request-rate", "1,2", "--sweep-num-prompts-factor", "2"}, "scales the prompts with the concurrency"},
		{[]string{"--slo-search", "max_concurrency"}, "needs --slo"},
		{[]string{"--slo-search", "tokens", "--slo", "ttft_p99:1"}, `--slo-search "tokens"`},
		{[]string{"--slo", "ttft_p99"}, "want KEY:MS"},
		{[]string{"--slo", "ttft_p99:1", "--slo-search", "rate", "--sweep-request-rate", "1"}, "chooses its own points"},
		{[]string{"--slo", "ttft_p99:1", "--slo-search", "rate", "--num-runs", "2"}, "drop --num-runs"},
		{[]string{"--steady-state-threshold", "0"}, "want a fraction in (0, 1]"},
		{[]string{"--steady-state-min-window", "NaN"}, "want a number of seconds >= 0"},
		{[]string{"--compare", "a.json"}, "two arguments"},
	} {
		_, err := parseBenchFlags(tc.args, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	f, err := parseBenchFlags([]string{"--slo", "ttft_p99:2000", "tpot_p99:50", "--compare", "a.json", "b*.json", "--num-runs", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.series.compare) != 2 || f.series.compare[1] != "b*.json" || f.series.sloLimits.String() != "tpot_p99:50 ttft_p99:2000" {
		t.Errorf("parsed %+v", f.series)
	}
}

// exhaustiveBest is the highest concurrency among the saved sweep points
// whose summary meets slo, and the one of those with the most output
// throughput (the table's "best within SLO": on a loaded machine
// throughput need not rise with concurrency).
func exhaustiveBest(t *testing.T, dir string, slo schema.SLO) (best, bestTput int, table map[int]float64) {
	t.Helper()
	table = map[int]float64{}
	tput := -1.0
	for _, r := range readResults(t, dir) {
		c := r.Load.MaxConcurrency
		v, _ := r.Summary.Value(schema.SLOKey{Metric: "tpot", Stat: "median"})
		table[c] = v
		if _, ok := slo.Check(r.Summary); ok {
			best = max(best, c)
			if r.Summary.OutputThroughput > tput {
				bestTput, tput = c, r.Summary.OutputThroughput
			}
		}
	}
	return best, bestTput, table
}

// TestSLOSearchAgreesWithSweep: on a mock whose decode step grows 2 ms per
// running sequence (TPOT ≈ 2 + 2c ms), the SLO search for median TPOT ≤
// 12.5 ms (measured here: c = 5 gives 11.8, c = 6 gives 13.4) and an exhaustive sweep of concurrency 1..10 give the same answer
// within one step; the search prints every probe and uses fewer runs.
func TestSLOSearchAgreesWithSweep(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--decode-step", "2ms", "--decode-step-per-seq", "2ms",
		"--decode-step-per-ktok", "0s", "--prefill-tok-per-s", "1000000")
	common := []string{"--base-url", url, "--model", "mock", "--random-input-len", "16", "--random-output-len", "8",
		"--sweep-num-prompts-factor", "4", "--slo", "tpot_median:12.5", "--no-steady-state"}
	slo := schema.SLO{"tpot_median": 12.5}

	dir := t.TempDir()
	var stdout bytes.Buffer
	var all []string
	for c := 1; c <= 10; c++ {
		all = append(all, strconv.Itoa(c))
	}
	err := run(context.Background(), append([]string{"bench", "--sweep-max-concurrency", strings.Join(all, ","), "--save-result", "--result-dir", dir}, common...), &stdout, io.Discard)
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	exhaustive, bestTput, tpots := exhaustiveBest(t, dir, slo)
	t.Logf("exhaustive: median TPOT by concurrency %v → best c=%d", tpots, exhaustive)
	if !strings.Contains(stdout.String(), fmt.Sprintf("Best within SLO tpot_median:12.5: c=%d ", bestTput)) {
		t.Errorf("the sweep table does not name c=%d (the most throughput within the SLO) as the best point within the SLO:\n%s", bestTput, stdout.String()[strings.Index(stdout.String(), "= Sweep"):])
	}

	stdout.Reset()
	if err := run(context.Background(), append([]string{"bench", "--slo-search", "max_concurrency"}, common...), &stdout, io.Discard); err != nil {
		t.Fatalf("search: %v", err)
	}
	out := stdout.String()
	m := regexp.MustCompile(`Answer: c=(\d+) .* after (\d+) probes`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no answer:\n%s", out)
	}
	found, _ := strconv.Atoi(m[1])
	probes, _ := strconv.Atoi(m[2])
	t.Logf("search: c=%d after %d probes\n%s", found, probes, out[strings.Index(out, "= SLO Search"):])
	if d := found - exhaustive; d < -1 || d > 1 {
		t.Errorf("search answer c=%d, exhaustive sweep c=%d: more than one step apart", found, exhaustive)
	}
	if exhaustive < 2 || exhaustive > 7 {
		t.Errorf("exhaustive answer c=%d: the mock's model (TPOT ≈ 2 + 2c ms) puts it near 5", exhaustive)
	}
	if n := strings.Count(out, "### SLO search probe"); n != probes || probes >= 10 || strings.Count(out, "\nSLO search probe ") != probes {
		t.Errorf("%d probe blocks, %d probes reported (an exhaustive sweep took 10)", n, probes)
	}
}

// lineWatcher cancels when a line containing match is written the n-th time.
type lineWatcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	match  string
	n      int
	cancel context.CancelFunc
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Count(w.buf.String(), w.match) >= w.n {
		w.cancel()
	}
	return len(p), nil
}

// TestSweepInterruptKeepsFinishedPoints: Ctrl-C (the context cancelled)
// while the second point runs keeps the first point's files, prints the
// table of the finished point and says how far the sweep got.
func TestSweepInterruptKeepsFinishedPoints(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "1ms", "--itl", "20ms")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &lineWatcher{match: "### Sweep point", n: 2, cancel: cancel}
	err := run(ctx, []string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "50",
		"--num-prompts", "8", "--sweep-max-concurrency", "8,4,2", "--save-result", "--result-dir", dir}, w, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "interrupted: 1 of 3 points finished") {
		t.Fatalf("error %v", err)
	}
	out := w.buf.String()
	if !regexp.MustCompile(`(?m)^\s+c=8\s+1\s`).MatchString(out) || strings.Contains(out, "c=4     1") {
		t.Errorf("the table should hold the finished c=8 only:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*concurrency8-*.json"))
	if len(files) != 2 {
		t.Errorf("finished point's files: %v", files)
	}
	for _, r := range readResults(t, dir) {
		if r.Load.MaxConcurrency == 8 && r.Status != schema.StatusOK {
			t.Errorf("finished point saved with status %s", r.Status)
		}
		if r.Load.MaxConcurrency == 4 && r.Status != schema.StatusInterrupted {
			t.Errorf("interrupted point saved with status %s", r.Status)
		}
	}
}

// TestRepeatsInterruptCountsRuns: Ctrl-C during the second of three
// repeats (no sweep) says how many runs finished, not "1 of 0 points".
func TestRepeatsInterruptCountsRuns(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "1ms", "--itl", "20ms")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &lineWatcher{match: "### run", n: 2, cancel: cancel}
	err := run(ctx, []string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "50",
		"--num-prompts", "4", "--max-concurrency", "4", "--num-runs", "3"}, w, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "interrupted: 1 of 3 runs finished") {
		t.Fatalf("error %v", err)
	}
}

// TestRepeatsCheckSLO: --slo with --num-runs (no sweep) checks every
// repeat, as it checks a single run; it was silently ignored.
func TestRepeatsCheckSLO(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "2ms", "--itl", "2ms")
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "8",
		"--num-prompts", "8", "--max-concurrency", "4", "--num-runs", "2", "--slo", "ttft_p99:10000"}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "SLO ttft_p99:10000: met\n"); n != 2 {
		t.Errorf("%d SLO checks, want one per repeat:\n%s", n, stdout.String())
	}
}

// TestRateSweepFiles: a request-rate sweep saves one vLLM JSON per point
// with its request_rate, marks the perflab results as rate points, and
// --append-result collects every point as a line of one file.
func TestRateSweepFiles(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "1ms", "--itl", "1ms")
	dir := t.TempDir()
	var stdout bytes.Buffer
	args := []string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "4",
		"--num-prompts", "10", "--sweep-request-rate", "50,inf", "--save-result", "--result-dir", dir}
	if err := run(context.Background(), args, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{`(?m)^\s+rate=50\s+1\s`, `(?m)^\s+rate=inf\s+1\s.*<- best throughput`} {
		if !regexp.MustCompile(row).MatchString(stdout.String()) {
			t.Errorf("table lacks %s:\n%s", row, stdout.String())
		}
	}
	rates := map[float64]bool{}
	for _, r := range readResults(t, dir) {
		if r.Load.Sweep != "request_rate" || r.Load.MaxConcurrency != 0 {
			t.Errorf("%s: load %+v", r.ID, r.Load)
		}
		rates[r.Load.RequestRate] = true
	}
	if !rates[50] || !rates[0] || len(rates) != 2 {
		t.Errorf("rates %v, want 50 and 0 (inf)", rates)
	}
	for pattern, want := range map[string]string{"openai-50.0qps-mock-*[0-9].json": `"request_rate": 50.0`, "openai-infqps-mock-*[0-9].json": `"request_rate": "inf"`} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(files) != 1 {
			t.Fatalf("%s: %v", pattern, files)
		}
		data, _ := os.ReadFile(files[0])
		if !strings.Contains(string(data), want) || !strings.Contains(string(data), `"steady_state": null`) {
			t.Errorf("%s lacks %s or a null steady_state", files[0], want)
		}
	}

	appendDir := t.TempDir()
	args = append(args[:len(args)-3], "--append-result", "--result-filename", "sweep.json", "--result-dir", appendDir)
	if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(appendDir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2 {
		t.Errorf("appended file has %d lines, want one per point", len(lines))
	}
}

// TestSingleRunSteadyStateAndSLO: a capped run at rate inf prints the
// steady-state section and saves it (JSON object, perflab summary);
// --no-steady-state leaves the section out and writes null; --slo on a
// single run prints the check limit by limit.
func TestSingleRunSteadyStateAndSLO(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "2ms", "--itl", "2ms")
	for _, tc := range []struct {
		extra  []string
		steady bool
	}{{nil, true}, {[]string{"--no-steady-state"}, false}} {
		dir := t.TempDir()
		var stdout bytes.Buffer
		args := append([]string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "16",
			"--num-prompts", "40", "--max-concurrency", "4", "--slo", "ttft_p99:10000 tpot_median:0.5", "--save-result", "--result-dir", dir}, tc.extra...)
		if err := run(context.Background(), args, &stdout, io.Discard); err != nil {
			t.Fatal(err)
		}
		out := stdout.String()
		if got := strings.Contains(out, "Steady-State Metrics") && strings.Contains(out, "In-flight threshold:                     4 (0.95 x 4)"); got != tc.steady {
			t.Errorf("%v: steady-state section printed %v, want %v:\n%s", tc.extra, got, tc.steady, out)
		}
		if !regexp.MustCompile(`(?m)^SLO tpot_median:0.5 ttft_p99:10000: broken\n  tpot_median: [\d.]+ > 0.5 ms\n  ttft_p99: [\d.]+ <= 10000 ms$`).MatchString(out) {
			t.Errorf("SLO check:\n%s", out)
		}
		res := readResults(t, dir)
		if len(res) != 1 || (res[0].Summary.SteadyState != nil) != tc.steady {
			t.Fatalf("%v: results %d, steady state %+v", tc.extra, len(res), res[0].Summary.SteadyState)
		}
		if _, ok := res[0].Summary.TTFT.Get(99); !ok {
			t.Error("P99 TTFT not computed")
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*[0-9].json"))
		data, _ := os.ReadFile(files[0])
		if null := strings.Contains(string(data), `"steady_state": null`); null == tc.steady {
			t.Errorf("%v: vLLM JSON steady_state null = %v", tc.extra, null)
		}
	}
}

// TestArtifactPathRelativeToResult: the perflab result's vllm-json
// artifact is relative to the result file's own folder even when
// --output-json puts it apart from --result-dir, so --compare over both
// folders counts the run once.
func TestArtifactPathRelativeToResult(t *testing.T) {
	url, _, _ := startMock(t, "--port", "0", "--ttft", "1ms", "--itl", "1ms")
	dir := t.TempDir()
	vdir, pdir := filepath.Join(dir, "vllm"), filepath.Join(dir, "perflab")
	err := run(context.Background(), []string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "8", "--random-output-len", "4",
		"--num-prompts", "4", "--save-result", "--result-dir", vdir, "--result-filename", "sub/r.json", "--output-json", filepath.Join(pdir, "r.json")}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	res, err := schema.ReadFile(filepath.Join(pdir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Artifacts) != 1 {
		t.Fatalf("artifacts %+v", res.Artifacts)
	}
	got := filepath.Join(pdir, filepath.FromSlash(res.Artifacts[0].Path))
	if want := filepath.Join(vdir, "sub", "r.json"); got != want {
		t.Errorf("artifact resolves to %s, want %s", got, want)
	}
	var out bytes.Buffer
	spec := filepath.Join(vdir, "sub", "*.json") + "," + filepath.Join(pdir, "*.json")
	if err := run(context.Background(), []string{"bench", "--compare", spec, spec}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(1 run from 1 file; 1 vLLM JSON counted through its perflab result)") {
		t.Errorf("run counted twice:\n%s", out.String())
	}
}
