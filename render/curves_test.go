package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// sweepSite writes a site with one sweep campaign: experiments "fast"
// (wins at low load) and "wide" (wins at saturation) over concurrency 1,
// 8, 64, with reps runs per point; noise is the relative spread between
// repeats; body is the page's Markdown.
func sweepSite(t *testing.T, reps int, noise float64, body string) (content, results string) {
	t.Helper()
	dir := t.TempDir()
	content, results = filepath.Join(dir, "content"), filepath.Join(dir, "results")
	camp := `id: sw
model: {id: m/m, name: M}
hardware: {gpu: H100, count: 2}
slo: {ttft_p99: 500, tpot_p99: 20}
cost: {gpu_hour_usd: 3}
profiles:
  - {id: chat, name: Chat, dataset: random, input_len: 100, output_len: 10, num_prompts: 10, concurrency: [1, 8, 64], repeats: ` + fmt.Sprint(reps) + `}
steps:
  - id: s
    title: S
    experiments:
      - {id: wide, name: Wide, engine: mock}
      - {id: fast, name: Fast, engine: mock}
baseline: wide
optimized: fast
`
	if err := os.MkdirAll(filepath.Join(content, "sw"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"campaign.yaml": camp, "index.md": "---\ntitle: Sweep\ncampaign: campaign.yaml\n---\n" + body} {
		if err := os.WriteFile(filepath.Join(content, "sw", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// fast: TPOT 5 ms up to c8, then 30 ms (saturated, 4000 tok/s);
	// wide: TPOT 12 → 15 ms, 20000 tok/s at c64.
	type pt struct{ thr, tpot, ttft float64 }
	curves := map[string]map[int]pt{
		"fast": {1: {1000, 5, 50}, 8: {4000, 6, 100}, 64: {4000, 30, 2000}},
		"wide": {1: {400, 12, 60}, 8: {3000, 13, 120}, 64: {20000, 15, 400}},
	}
	for exp, pts := range curves {
		for c, p := range pts {
			for rep := range reps {
				f := 1 + noise*float64(rep%3-1) // -noise, 0, +noise
				res := &schema.Result{ID: fmt.Sprintf("%s-%d-%d", exp, c, rep), Campaign: "sw", Experiment: exp, Profile: "chat", Repeat: rep,
					Status: schema.StatusOK, Engine: schema.Engine{Name: "mock"}, Tool: schema.Tool{Name: "perflab bench"},
					Load: schema.Load{Dataset: "random", NumPrompts: 10, MaxConcurrency: c, Sweep: schema.SweepConcurrency},
					Summary: &schema.Summary{Completed: 10, DurationS: 1, TotalTokenThroughput: p.thr * f, OutputThroughput: p.thr * f / 11,
						TTFT: &schema.Stats{MeanMs: schema.F(p.ttft), MedianMs: schema.F(p.ttft), Percentiles: []schema.Percentile{{P: 99, ValueMs: p.ttft * 1.2}}},
						TPOT: &schema.Stats{MeanMs: schema.F(p.tpot), MedianMs: schema.F(p.tpot), Percentiles: []schema.Percentile{{P: 99, ValueMs: p.tpot * 1.1}}}}}
				name := fmt.Sprintf("%s--chat--c%d", exp, c)
				if rep > 0 {
					name += fmt.Sprintf("--r%d", rep)
				}
				if err := schema.WriteFile(filepath.Join(results, "sw", name+".json"), res); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return content, results
}

func buildPage(t *testing.T, content, results string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	return readFile(t, filepath.Join(out, "sw", "index.html"))
}

func TestSweepPageSkeleton(t *testing.T) {
	content, results := sweepSite(t, 4, 0.01, "")
	html := buildPage(t, content, results)
	for _, want := range []string{
		`id="chart-curve-`, `"name":"Pareto frontier"`, `id="chart-latency-curve-`, `SLO ttft_p99 ≤ 500 ms`, `SLO: TPOT p99 ≤ 20 ms, TTFT p99 ≤ 500 ms.`,
		// SLO: fast meets it up to c8 (4000/2 GPUs = 2000 per GPU), wide up
		// to c64 (10000 per GPU): wide wins, tested with 4+4 runs. The
		// repeats are ×0.99, 1, 1.01, 0.99: means ×0.9975, CV 0.96 %; the
		// cost is $3 / (3600 × 9975) × 10⁶ = $0.0835.
		`<strong>Wide</strong> gives the most throughput per GPU: 9,975.00 tok/s/GPU at concurrency 64, $0.084 per million tokens, +400.00% over Fast (1,995.00 at concurrency 8; p=0.029 n=4+4, Mann-Whitney U)`,
		// The comparison has a row per point with spread and the test.
		`Chat @ concurrency 64`, `± 1.0%`, `p=0.029 n=4+4`, `Mann-Whitney U test`,
		`sweep: 1, 8, 64`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Frontier: fast's c1 and c8 (most interactive), then wide's c64.
	if !strings.Contains(html, "held from the most interactive end by Fast, then Wide") {
		t.Errorf("frontier holders not named")
	}
	// curves.csv: one row per experiment and point, frontier marked.
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	csv := readFile(t, filepath.Join(out, "sw", "curves.csv"))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "experiment,profile,sweep,load,runs,skipped,total_tok_per_s_per_gpu") {
		t.Fatalf("curves.csv:\n%s", csv)
	}
	// wide at c64: 4 runs, 9975 tok/s/GPU, 1000/15 tok/s/user, on the frontier.
	if want := "wide,chat,max_concurrency,64,4,false,9975,"; !strings.Contains(csv, want) || !strings.HasSuffix(lines[3], ",true") {
		t.Errorf("curves.csv lacks %q or wide c64 is not on the frontier:\n%s", want, csv)
	}
}

// TestSLOLimitsKeepTheirUnit: the SLO table's limits at a load keep each
// value on the line of its unit (a narrow column wrapped "10.6" / "ms").
func TestSLOLimitsKeepTheirUnit(t *testing.T) {
	content, results := sweepSite(t, 4, 0.01, "")
	html := buildPage(t, content, results)
	cells := regexp.MustCompile(`<small>(✓|✗) [^<]*(<br>[^<]*)*</small>`).FindAllString(html, -1)
	if len(cells) == 0 {
		t.Fatal("no SLO limits cell on the sweep page")
	}
	for _, c := range cells {
		if regexp.MustCompile(`\d ms`).MatchString(c) || !strings.Contains(c, "\u00a0ms") {
			t.Errorf("limits cell %q: a value breakable from its unit", c)
		}
	}
}

// TestSweepComparisonHonesty: identical configurations compare as "~";
// three repeats per side are too few to test; one run says so.
func TestSweepComparisonHonesty(t *testing.T) {
	body := "```perflab\nblock: comparison\n```\n\n```perflab\nblock: slo\n```\n"
	content, results := sweepSite(t, 3, 0.02, body)
	html := buildPage(t, content, results)
	if !strings.Contains(html, "n=3+3: too few runs to test (≥4 each)") || strings.Contains(html, "~, p=") {
		t.Errorf("3+3 repeats: want \"too few runs to test\", not ~")
	}
	if !strings.Contains(html, "a difference of +400.00% that is not tested: n=3+3: too few runs to test (≥4 each)") {
		t.Errorf("SLO answer with 3+3 runs should say too few runs to test")
	}
	content, results = sweepSite(t, 1, 0, body)
	html = buildPage(t, content, results)
	if !strings.Contains(html, "1 run each") || !strings.Contains(html, "concurrency 8 <small>(1 run)</small>") || strings.Contains(html, "(1 runs)") {
		t.Errorf("1 run each missing")
	}
	// Two identical experiments with noisy repeats: within noise, "~".
	content, results = sweepSite(t, 5, 0.03, body)
	for _, f := range []string{"fast--chat--c64", "fast--chat--c64--r1", "fast--chat--c64--r2", "fast--chat--c64--r3", "fast--chat--c64--r4"} {
		wide := strings.Replace(f, "fast", "wide", 1)
		res, err := schema.ReadFile(filepath.Join(results, "sw", wide+".json"))
		if err != nil {
			t.Fatal(err)
		}
		fr, _ := schema.ReadFile(filepath.Join(results, "sw", f+".json"))
		res.Summary.TotalTokenThroughput = fr.Summary.TotalTokenThroughput * (1 + 0.001*float64(res.Repeat%2))
		if err := schema.WriteFile(filepath.Join(results, "sw", wide+".json"), res); err != nil {
			t.Fatal(err)
		}
	}
	html = buildPage(t, content, results)
	if !strings.Contains(html, `<span class="delta same">(~, p=`) {
		t.Errorf("identical configurations at c64 not marked ~")
	}
}

func TestSweepBlockErrors(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"block: curve\nprofile: nope", `unknown profile "nope"`},
		{"block: curve\nmetric: mean_ttft", `field metric: "mean_ttft" (total_token_throughput or output_throughput)`},
	} {
		content, results := sweepSite(t, 1, 0, "```perflab\n"+tc.block+"\n```\n")
		err := Build(context.Background(), Options{Content: content, Results: results, Out: filepath.Join(t.TempDir(), "o")})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.block, err, tc.want)
		}
	}
}

// TestSweepSkippedPoint: a point the early stop skipped is listed with its
// reason, kept out of the curves and marked skipped in curves.csv.
func TestSweepSkippedPoint(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	// The early stop skips a point the campaign defines.
	camp := filepath.Join(content, "sw", "campaign.yaml")
	if err := os.WriteFile(camp, []byte(strings.Replace(readFile(t, camp), "concurrency: [1, 8, 64]", "concurrency: [1, 8, 64, 128]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	sk := &schema.Result{ID: "fast-128", Campaign: "sw", Experiment: "fast", Profile: "chat", Status: schema.StatusSkipped,
		Error: "the sweep's early stop: at concurrency 64 throughput rose +0.0% over concurrency 8", Tool: schema.Tool{Name: "perflab bench"},
		Load: schema.Load{Dataset: "random", NumPrompts: 10, MaxConcurrency: 128, Sweep: schema.SweepConcurrency}}
	if err := schema.WriteFile(filepath.Join(results, "sw", "fast--chat--c128.json"), sk); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(out, "sw", "index.html"))
	if !strings.Contains(html, "skipped: the sweep&#39;s early stop: at concurrency 64") {
		t.Errorf("runs table lacks the skipped point's reason")
	}
	csv := readFile(t, filepath.Join(out, "sw", "curves.csv"))
	if !strings.Contains(csv, "fast,chat,max_concurrency,128,0,true,,,,,,,,,,false") {
		t.Errorf("curves.csv:\n%s", csv)
	}
	// The table cells of one run per profile show the highest point that ran.
	if !strings.Contains(html, `<th data-sort-type="number">Chat @ concurrency 64</th>`) {
		t.Errorf("point label should name concurrency 64, the highest point that ran")
	}
}

// TestSweepOneRunPerProfileSamePoint: the blocks that show one run per
// experiment and profile (step table, summary, bar chart) compare every
// experiment at the point their label names; one whose sweep stopped
// early there has no result at it, not its lower point's numbers.
func TestSweepOneRunPerProfileSamePoint(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	sk := &schema.Result{ID: "wide-64", Campaign: "sw", Experiment: "wide", Profile: "chat", Status: schema.StatusSkipped,
		Error: "the sweep's early stop: at concurrency 8 throughput rose +1.0% over concurrency 1", Tool: schema.Tool{Name: "perflab bench"},
		Load: schema.Load{Dataset: "random", NumPrompts: 10, MaxConcurrency: 64, Sweep: schema.SweepConcurrency}}
	if err := schema.WriteFile(filepath.Join(results, "sw", "wide--chat--c64.json"), sk); err != nil {
		t.Fatal(err)
	}
	html := buildPage(t, content, results)
	if !strings.Contains(html, `<th data-sort-type="number">Chat @ concurrency 64</th>`) {
		t.Fatalf("point label should name concurrency 64, the highest point that ran")
	}
	// Wide ran concurrency 8 at 3000 tok/s; that number must not stand
	// in the concurrency 64 column nor rank against Fast's 4000 there.
	if strings.Contains(html, "Wide (3,000.00 tok/s)") || strings.Contains(html, "Wide (1,500.00 tok/s") {
		t.Errorf("the step result ranks Wide's concurrency 8 against Fast's concurrency 64")
	}
	// It was skipped by the early stop, not forgotten: the result line and
	// the cell say so, with the reason.
	if !strings.Contains(html, "Fast (4,000.00 tok/s) &gt; Wide (skipped by the sweep&#39;s early stop: at concurrency 8 throughput rose &#43;1.0% over concurrency 1)") {
		t.Errorf("the step result should say Wide's concurrency 64 was skipped by the early stop, and why")
	}
	if strings.Contains(html, "Wide (not run)") || !strings.Contains(html, `<span class="missing">skipped (early stop)</span>`) {
		t.Errorf("the step table should mark Wide's cell skipped (early stop), not \"not run\"")
	}
}

// TestSweepOneRunPerProfileMeans: at a point with repeats, the step table,
// its result line and the summary show the mean over the repeats (the
// number the comparison table and the curves show), not the first run's.
func TestSweepOneRunPerProfileMeans(t *testing.T) {
	content, results := sweepSite(t, 4, 0.01, "")
	html := buildPage(t, content, results)
	// Repeats ×0.99, 1, 1.01, 0.99: the first run of wide at c64 is 19,800,
	// the mean 19,950; fast's 3,960 and 3,990.
	if strings.Contains(html, `<span class="v">19,800.00</span>`) { // the runs table lists every run, this one too
		t.Errorf("a one-run-per-profile block shows the first repeat (19,800.00), not the mean")
	}
	for _, want := range []string{"Wide (19,950.00 tok/s) &gt; Fast (3,990.00 tok/s)", "mean of 4 runs"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestSweepSkeletonEveryProfile: the generated page draws the curves and
// the SLO answer of every swept profile, not only the first.
func TestSweepSkeletonEveryProfile(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	camp := filepath.Join(content, "sw", "campaign.yaml")
	y := readFile(t, camp)
	y = strings.Replace(y, "steps:", "  - {id: long, name: Long, dataset: random, input_len: 1000, output_len: 10, num_prompts: 10, concurrency: [1, 8, 64]}\nsteps:", 1)
	if err := os.WriteFile(camp, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(results, "sw", "*--chat--*.json"))
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		res, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res.Profile, res.ID = "long", res.ID+"-long"
		if err := schema.WriteFile(strings.Replace(f, "--chat--", "--long--", 1), res); err != nil {
			t.Fatal(err)
		}
	}
	html := buildPage(t, content, results)
	for _, want := range []string{"interactivity (Chat)", "interactivity (Long)", "latency vs load (Chat)", "latency vs load (Long)",
		"<strong>SLO answer:</strong> On Chat: At the SLO", "<strong>SLO answer:</strong> On Long: At the SLO"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestSweepCaveatNamesPointAndRun: a caveat under the comparison names
// the point and the repeat it belongs to, not only the experiment and
// profile (every point and repeat of a sweep shares those).
func TestSweepCaveatNamesPointAndRun(t *testing.T) {
	content, results := sweepSite(t, 2, 0.01, "```perflab\nblock: comparison\n```\n")
	f := filepath.Join(results, "sw", "fast--chat--c8--r1.json")
	res, err := schema.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	res.Warnings = []string{"the client fell behind the schedule"}
	if err := schema.WriteFile(f, res); err != nil {
		t.Fatal(err)
	}
	html := buildPage(t, content, results)
	if !strings.Contains(html, "Fast / Chat @ concurrency 8 (run 2)") {
		t.Errorf("the caveat does not name its point and run")
	}
}

// TestSweepSLOFailedRequests: the slo block does not answer with a point
// whose requests failed, and says why.
func TestSweepSLOFailedRequests(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	// wide at c64 (the SLO's answer) lost 4 of its 10 requests.
	f := filepath.Join(results, "sw", "wide--chat--c64.json")
	res, err := schema.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	res.Summary.Completed, res.Summary.Failed = 6, 4
	if err := schema.WriteFile(f, res); err != nil {
		t.Fatal(err)
	}
	html := buildPage(t, content, results)
	// wide now meets it up to c8 (3000/2 = 1500 per GPU): fast (2000) wins.
	// One run each cannot show its lead: no winner is named, both numbers are.
	if !strings.Contains(html, "Fast reached 2,000.00 tok/s/GPU at concurrency 8 and Wide 1,500.00 at concurrency 8") {
		t.Errorf("a point with failed requests answered the SLO")
	}
	if !strings.Contains(html, "and none of its requests failed") {
		t.Errorf("legend lacks the failed-requests rule")
	}
	// A lone point with failures shows them among its checks.
	for _, c := range []int{1, 8} {
		f := filepath.Join(results, "sw", fmt.Sprintf("wide--chat--c%d.json", c))
		res, _ := schema.ReadFile(f)
		res.Summary.Completed, res.Summary.Failed = 7, 3
		if err := schema.WriteFile(f, res); err != nil {
			t.Fatal(err)
		}
	}
	html = buildPage(t, content, results)
	if !strings.Contains(html, "✗ 3 of 10 requests failed") {
		t.Errorf("the failed requests of the lowest point are not shown")
	}
}

// TestSweepLatencyCurveMixedKinds: a profile whose experiments were swept
// over different loads (an imported rate sweep beside a concurrency
// sweep) does not plot concurrencies on the request-rate axis.
func TestSweepLatencyCurveMixedKinds(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "```perflab\nblock: latency-curve\n```\n")
	files, _ := filepath.Glob(filepath.Join(results, "sw", "fast--*.json"))
	for _, f := range files {
		res, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res.Load.Sweep, res.Load.RequestRate, res.Load.MaxConcurrency = schema.SweepRate, float64(res.Load.MaxConcurrency)*10, 0
		if err := schema.WriteFile(f, res); err != nil {
			t.Fatal(err)
		}
	}
	html := buildPage(t, content, results)
	// The axis follows the first experiment (wide: concurrency); fast's
	// rates 10, 80, 640 must not be drawn on it.
	if !strings.Contains(html, "Points swept over another load than max concurrency are left out (Fast)") {
		t.Errorf("caption does not say Fast's points are left out")
	}
	if strings.Contains(html, `"value":[640,`) || strings.Contains(html, `[640,`) {
		t.Errorf("a rate of 640 req/s is drawn on the concurrency axis")
	}
}

// TestSweepRawEveryRepeat: the "Benchmark result" block under each
// experiment shows every repeat's raw output of the point it stands for,
// each labelled "run k of N", not run 1's alone under the point's name.
func TestSweepRawEveryRepeat(t *testing.T) {
	content, results := sweepSite(t, 3, 0.01, "```perflab\nblock: step\nstep: s\n```\n\n```perflab\nblock: raw\nexperiment: fast\nprofile: chat\n```\n")
	html := buildPage(t, content, results)
	for k := 1; k <= 3; k++ {
		if want := fmt.Sprintf(`<p class="raw-label">Chat @ concurrency 64, run %d of 3</p>`, k); strings.Count(html, want) != 2 { // Wide and Fast
			t.Errorf("step block: %d × %q, want 2", strings.Count(html, want), want)
		}
		if want := fmt.Sprintf(`<p class="raw-label">run %d of 3</p>`, k); strings.Count(html, want) != 1 {
			t.Errorf("raw block: %d × %q, want 1", strings.Count(html, want), want)
		}
	}
	// Each repeat's own numbers: fast at c64 is 4000 × 0.99, 1, 1.01.
	for _, want := range []string{"3960.00", "4000.00", "4040.00"} {
		if !strings.Contains(html, "Total token throughput (tok/s):          "+want) {
			t.Errorf("raw outputs lack fast's repeat with %s tok/s", want)
		}
	}
	// The skeleton's Other Benchmark Cases: baseline's and optimized's.
	content, results = sweepSite(t, 3, 0.01, "")
	html = buildPage(t, content, results)
	for k := 1; k <= 3; k++ {
		if want := fmt.Sprintf(`<p class="raw-label">run %d of 3</p>`, k); strings.Count(html, want) != 2 {
			t.Errorf("cases: %d × %q, want 2", strings.Count(html, want), want)
		}
	}
	// One run per point: no "run 1 of 1".
	content, results = sweepSite(t, 1, 0, "")
	if html := buildPage(t, content, results); strings.Contains(html, "of 1</p>") || !strings.Contains(html, `<p class="raw-label">Chat @ concurrency 64</p>`) {
		t.Errorf("one run per point: want the point's label alone")
	}
}

// TestSweepCaveatMarkers: a point whose runs have warnings is marked in
// the SLO table (a note reference and the note) and in the curves'
// tooltips, failed requests named.
func TestSweepCaveatMarkers(t *testing.T) {
	body := "```perflab\nblock: slo\n```\n\n```perflab\nblock: curve\n```\n\n```perflab\nblock: latency-curve\n```\n"
	content, results := sweepSite(t, 4, 0.01, body)
	edit := func(name string, f func(*schema.Result)) {
		t.Helper()
		file := filepath.Join(results, "sw", name+".json")
		res, err := schema.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f(res)
		if err := schema.WriteFile(file, res); err != nil {
			t.Fatal(err)
		}
	}
	// Wide's second run at c64 (its SLO answer) fell behind; two of Fast's
	// requests at c64 failed.
	lag := "the client fell behind the schedule: requests left up to 41.0 ms late (p99 30.2 ms, p50 0.40 ms); rates and latencies may be off"
	edit("wide--chat--c64--r1", func(r *schema.Result) { r.Warnings = append(r.Warnings, lag) })
	edit("fast--chat--c64--r2", func(r *schema.Result) { r.Summary.Completed, r.Summary.Failed = 8, 2 })
	html := buildPage(t, content, results)
	slo := html[strings.Index(html, `<table class="sortable slo">`):]
	slo = slo[:strings.Index(slo, "SLO answer")]
	for _, want := range []string{
		`concurrency 64 <small>(4 runs)</small><sup class="fn" title="see note 1 below">[1]</sup>`,
		`<strong>Wide / Chat @ concurrency 64 (run 2):</strong> ` + lag,
	} {
		if !strings.Contains(slo, want) {
			t.Errorf("SLO table lacks %q:\n%s", want, slo)
		}
	}
	for _, want := range []string{
		// The curve's and the latency curve's tooltips.
		`Wide @ concurrency 64 · `, `⚠ run 2: the client fell behind the schedule: requests left up to 41.0 ms late (p99 30.2 ms…`,
		`✗ 2 of 40 requests failed`,
		`says so in its tooltip with ⚠ or ✗`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(html, `✗ 2 of 40 requests failed`); n < 2 {
		t.Errorf("failed requests named in %d tooltips, want the curve's and the latency curve's", n)
	}
	// Without warnings, no marks.
	content, results = sweepSite(t, 4, 0.01, body)
	if html := buildPage(t, content, results); strings.Contains(html, "⚠ run") || strings.Contains(html, `class="fn"`) {
		t.Errorf("a sweep without warnings is marked")
	}
}

// TestSweepStaleResults: after repeats went down (4 → 2) and a point was
// taken out of the profile, the results the campaign no longer defines
// are left out of every block, and the page and the build say so.
func TestSweepStaleResults(t *testing.T) {
	content, results := sweepSite(t, 4, 0.01, "")
	camp := filepath.Join(content, "sw", "campaign.yaml")
	y := strings.Replace(readFile(t, camp), "repeats: 4}", "repeats: 2}", 1)
	y = strings.Replace(y, "concurrency: [1, 8, 64]", "concurrency: [1, 64]", 1)
	if err := os.WriteFile(camp, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	st, err := BuildStats(context.Background(), Options{Content: content, Results: results, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(out, "sw", "index.html"))
	// 2 experiments × (2 extra repeats at c1 and c64 + 4 runs at c8) = 16.
	for _, want := range []string{
		`<p class="admonition-title">16 results left out</p>`,
		`wide--chat--c64--r2.json</code>: it is run 3, but profile chat has repeats: 2`,
		`fast--chat--c8.json</code>: concurrency 8 is not among profile chat&#39;s points (1, 64)`,
		"n=2+2", "mean of 2 runs",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"n=4+4", "mean of 4 runs", "Chat @ concurrency 8", "(4 runs)"} {
		if strings.Contains(html, bad) {
			t.Errorf("page mixes in a result the campaign no longer defines: %q", bad)
		}
	}
	csv := readFile(t, filepath.Join(out, "sw", "curves.csv"))
	if strings.Contains(csv, ",8,") || !strings.Contains(csv, "wide,chat,max_concurrency,64,2,false,") {
		t.Errorf("curves.csv should have 2 runs per point at concurrency 1 and 64 only:\n%s", csv)
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "16 result(s)") || !strings.Contains(st.Warnings[0], "left out of /sw/") {
		t.Errorf("build warnings: %q", st.Warnings)
	}
	// Imported results (another tool's sweep and repeats) are kept as
	// their tool ran them.
	for _, f := range []string{"wide--chat--c64--r2", "fast--chat--c8"} {
		file := filepath.Join(results, "sw", f+".json")
		res, err := schema.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res.Tool.Name = "vllm bench serve"
		if err := schema.WriteFile(file, res); err != nil {
			t.Fatal(err)
		}
	}
	if st, err = BuildStats(context.Background(), Options{Content: content, Results: results, Out: out}); err != nil || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "14 result(s)") {
		t.Errorf("imported results should be kept: %v %q", err, st.Warnings)
	}
	// The campaign as collected: no warning.
	content, results = sweepSite(t, 4, 0.01, "")
	st, err = BuildStats(context.Background(), Options{Content: content, Results: results, Out: out})
	if err != nil || len(st.Warnings) > 0 || strings.Contains(readFile(t, filepath.Join(out, "sw", "index.html")), "left out</p>") {
		t.Errorf("a complete campaign warns: %v %q", err, st.Warnings)
	}
}
