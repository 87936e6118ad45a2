package collect

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// sweepCampaign is an external-endpoint campaign with one sweep profile;
// sweep is the profile's extra YAML (concurrency, repeats), slo the
// campaign's slo line ("" for none).
func sweepCampaign(t *testing.T, url, sweep, slo string) *File {
	t.Helper()
	y := `id: sw
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
` + slo + `
profiles:
  - {id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2` + sweep + `}
  - {id: one, name: One, dataset: random, input_len: 8, output_len: 2, num_prompts: 2, max_concurrency: 4}
steps:
  - id: s
    title: S
    experiments:
      - {id: ext, name: Ext, engine: external, base_url: ` + url + `/}
baseline: ext
optimized: ext
`
	f, err := Parse("sw.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

func modelsServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"fake/model"}]}`)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// saturatingRunner simulates an engine that saturates at concurrency 16:
// throughput 100 tok/s per stream up to 16 streams, flat after; P99 TTFT
// 100 ms × concurrency. It records the loads it ran.
type saturatingRunner struct {
	mu  sync.Mutex
	ran []string
}

func (s *saturatingRunner) run(ctx context.Context, tg Target) (*schema.Result, error) {
	p := tg.Run.Profile
	s.mu.Lock()
	s.ran = append(s.ran, tg.Run.Name)
	s.mu.Unlock()
	c := float64(p.MaxConcurrency)
	thr := 100 * min(c, 16)
	ttft := 100 * c
	return &schema.Result{Status: schema.StatusOK, Load: loadOf(tg.Campaign, p), Tool: schema.Tool{Name: ToolPerflab},
		Summary: &schema.Summary{Completed: 2, TotalTokenThroughput: thr, OutputThroughput: thr / 2,
			TTFT: &schema.Stats{Percentiles: []schema.Percentile{{P: 99, ValueMs: ttft}}}}}, nil
}

func TestPlanSweepNamesAndKeys(t *testing.T) {
	f := sweepCampaign(t, "http://127.0.0.1:1", ", concurrency: [16, 1, 4], repeats: 2", "")
	plan := NewPlan(&f.Campaign, "results")
	var names []string
	keys := map[string]bool{}
	for _, r := range plan.Runs {
		names = append(names, r.Name)
		if keys[r.Key] {
			t.Errorf("duplicate key %s at %s", r.Key, r.Name)
		}
		keys[r.Key] = true
	}
	want := "ext--p--c1 ext--p--c1--r1 ext--p--c4 ext--p--c4--r1 ext--p--c16 ext--p--c16--r1 ext--one"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("names:\n got %s\nwant %s", got, want)
	}
	// A profile at one load keeps the key it had before sweeps existed.
	one := plan.Runs[6]
	if one.Key != RunKey(&f.Campaign, one.Experiment, one.Source) {
		t.Errorf("non-sweep key changed")
	}
	if plan.Runs[2].Profile.MaxConcurrency != 4 || plan.Runs[2].Point != (schema.Point{Sweep: schema.SweepConcurrency, Value: 4}) {
		t.Errorf("point profile: %+v", plan.Runs[2])
	}
	// One run's command names its point; the profile's names the sweep.
	if cmd := BenchCommand(&f.Campaign, plan.Runs[3].Profile, "m", ""); !strings.Contains(cmd, "--max-concurrency 4") || strings.Contains(cmd, "--num-runs") || strings.Contains(cmd, "--sweep") {
		t.Errorf("point command: %s", cmd)
	}
	if cmd := BenchCommand(&f.Campaign, plan.Runs[3].Source, "m", ""); !strings.HasSuffix(cmd, "--sweep-max-concurrency 1,4,16 --num-runs 2") {
		t.Errorf("sweep command: %s", cmd)
	}
	// Sharding by run keeps a profile's sweep in one shard.
	for i := range 3 {
		n := 0
		for _, r := range plan.Shard(i, 3, false) {
			if r.Base == "ext--p" {
				n++
			}
		}
		if n != 0 && n != 6 {
			t.Errorf("shard %d has %d of the sweep's 6 runs", i, n)
		}
	}
	// Raising repeats keeps the runs already made; changing a point does not touch the others.
	f2 := sweepCampaign(t, "http://127.0.0.1:1", ", concurrency: [1, 4, 16, 64], repeats: 3", "")
	plan2 := NewPlan(&f2.Campaign, "results")
	old := map[string]string{}
	for _, r := range plan.Runs {
		old[r.Name] = r.Key
	}
	for _, r := range plan2.Runs {
		if k, ok := old[r.Name]; ok && k != r.Key {
			t.Errorf("%s: key changed from %s to %s", r.Name, k, r.Key)
		}
	}
	// Rates: inf last, slugs.
	f3 := sweepCampaign(t, "http://127.0.0.1:1", ", request_rate: [inf, 0.5, 10]", "")
	names = nil
	for _, r := range NewPlan(&f3.Campaign, "results").Runs {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, " "); got != "ext--p--rate0.5 ext--p--rate10 ext--p--rateinf ext--one" {
		t.Errorf("rate names: %s", got)
	}
}

func TestSweepValidation(t *testing.T) {
	for _, tc := range []struct{ sweep, want string }{
		{", concurrency: [1, 0]", "sw.yaml:7: profiles[0].concurrency[1]: a sweep point must be an integer ≥ 1"},
		{", max_concurrency: [4, 4]", "profiles[0].max_concurrency[1]: duplicate point 4"},
		{", request_rate: [1, -2]", "profiles[0].request_rate[1]: a sweep point must be a rate > 0 or inf"},
		{", request_rate: [1, 0, inf]", "profiles[0].request_rate[2]: duplicate point inf req/s (0 is inf: no rate limit)"},
		{", repeats: -1", "profiles[0].repeats: must be in [1, 100]"},
		{", concurrency: [1], max_concurrency: 2", "both concurrency and max_concurrency"},
		{", concurrency: [1], bogus: 2", `unknown field "bogus" in a profile`},
	} {
		y := `id: sw
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
slo: {ttft_p99: 100}
cost: {gpu_hour_usd: 0}
profiles:
  - {id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2` + tc.sweep + `}
steps: [{id: s, title: S, experiments: [{id: ext, name: Ext, engine: external, base_url: "http://127.0.0.1:1/"}]}]
baseline: ext
optimized: ext
`
		f, err := Parse("sw.yaml", []byte(y))
		if err == nil {
			err = f.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.sweep, err, tc.want)
		}
		if err != nil && f != nil && !strings.Contains(err.Error(), "cost.gpu_hour_usd: must be a price > 0") {
			t.Errorf("%s: cost not reported: %v", tc.sweep, err)
		}
	}
}

func TestCollectSweepEarlyStop(t *testing.T) {
	srv := modelsServer(t)
	f := sweepCampaign(t, srv.URL, ", concurrency: [1, 4, 16, 32, 64, 128]", "slo: {ttft_p99: 1000}")
	dir := t.TempDir()
	run := &saturatingRunner{}
	o := opts(t, dir, t.TempDir())
	o.Runner = run.run
	rep, err := Collect(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	// 16 → 32: throughput flat (< 5 %), P99 TTFT 3200 ms > 2 × 1000 ms:
	// 64 and 128 are skipped; 32 was run (it is the evidence).
	want := "ext--p--c1 ext--p--c4 ext--p--c16 ext--p--c32 ext--one"
	if got := strings.Join(run.ran, " "); got != want {
		t.Fatalf("ran %s, want %s", got, want)
	}
	if rep.Status[schema.StatusSkipped] != 2 {
		t.Errorf("report %+v", rep)
	}
	res, err := schema.ReadFile(filepath.Join(dir, "sw", "ext--p--c64.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != schema.StatusSkipped || !strings.Contains(res.Error, "tttft") && !strings.Contains(res.Error, "ttft_p99 is 3200 ms, 3.2× the SLO's 1000 ms") {
		t.Errorf("skipped record: %s %q", res.Status, res.Error)
	}
	c16, _ := schema.ReadFile(filepath.Join(dir, "sw", "ext--p--c16.json"))
	if c16.Load.Sweep != schema.SweepConcurrency || c16.Load.MaxConcurrency != 16 || c16.Label != "Ext / P @ concurrency 16" {
		t.Errorf("point result: %+v %q", c16.Load, c16.Label)
	}

	// The dry run shows the points and the skipped ones; --no-early-stop runs them.
	var buf bytes.Buffer
	if err := PrintPlan(&buf, f, Options{Results: dir}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# P (p) (sweep max_concurrency: 1, 4, 16, 32, 64, 128)", "slo: ttft_p99:1000; sweeps stop early",
		"ext--p--c64", "done (skipped)", "0 runs to collect, 7 already done"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("plan lacks %q:\n%s", s, buf.String())
		}
	}
	run.ran = nil
	o.NoEarlyStop = true
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(run.ran, " "); got != "ext--p--c64 ext--p--c128" {
		t.Errorf("--no-early-stop ran %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "sw", "ext--p--c128.json")); err != nil {
		t.Error(err)
	}
}

func TestCollectSweepWithoutSLONeverStops(t *testing.T) {
	srv := modelsServer(t)
	f := sweepCampaign(t, srv.URL, ", concurrency: [16, 32, 64, 128], repeats: 2", "")
	run := &saturatingRunner{}
	o := opts(t, t.TempDir(), t.TempDir())
	o.Runner = run.run
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	if len(run.ran) != 9 {
		t.Errorf("ran %v", run.ran)
	}
	// --only takes a profile's runs or one point.
	plan := NewPlan(&f.Campaign, "r")
	got, err := selectRuns(plan, Options{Only: []string{"ext--p--c32"}})
	if err != nil || len(got) != 2 || got[0].Name != "ext--p--c32" || got[1].Name != "ext--p--c32--r1" {
		t.Errorf("--only a point: %v %v", got, err)
	}
}

// TestCollectSweepEarlyStopRepeats: a point's repeats share its verdict,
// judged on the means of the points before it.
func TestCollectSweepEarlyStopRepeats(t *testing.T) {
	srv := modelsServer(t)
	f := sweepCampaign(t, srv.URL, ", concurrency: [4, 16, 32, 64], repeats: 2", "slo: {ttft_p99: 1000}")
	dir := t.TempDir()
	run := &saturatingRunner{}
	o := opts(t, dir, t.TempDir())
	o.Runner = run.run
	rep, err := Collect(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	want := "ext--p--c4 ext--p--c4--r1 ext--p--c16 ext--p--c16--r1 ext--p--c32 ext--p--c32--r1 ext--one"
	if got := strings.Join(run.ran, " "); got != want || rep.Status[schema.StatusSkipped] != 2 {
		t.Fatalf("ran %s (want %s), report %+v", got, want, rep)
	}
	for _, name := range []string{"ext--p--c64", "ext--p--c64--r1"} {
		if res, err := schema.ReadFile(filepath.Join(dir, "sw", name+".json")); err != nil || res.Status != schema.StatusSkipped || res.Repeat != strings.Count(name, "--r") {
			t.Errorf("%s: %v %+v", name, err, res)
		}
	}
}
