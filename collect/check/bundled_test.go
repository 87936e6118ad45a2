package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestBundledClean checks the bundled content against the bundled
// results, as `perflab check` does from the repository root: no findings,
// and every report really loaded its results.
func TestBundledClean(t *testing.T) {
	files, err := Files([]string{"../../content"})
	if err != nil {
		t.Fatal(err)
	}
	reports := 0
	for _, f := range files {
		p, err := Load(f, "../../results")
		if err != nil {
			t.Fatal(err)
		}
		if p.Campaign != nil {
			reports++
			if len(p.Results) == 0 {
				t.Errorf("%s: no results loaded for campaign %s", f, p.Campaign.ID)
			}
		}
		for _, x := range Check(p) {
			t.Errorf("bundled page: %s", x)
		}
	}
	if reports < 4 {
		t.Errorf("checked %d report pages, want the 4 bundled reports", reports)
	}
}

// TestBundledPlanted plants numbers in the prose of a copy of a bundled
// report and sees the wrong ones reported, at their lines, and the right
// ones (taken from its results) pass.
func TestBundledPlanted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "content", "qwen3-32b", "h100")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	camp := mustRead(t, "../../content/qwen3-32b/h100/campaign.yaml")
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), camp, 0o644); err != nil {
		t.Fatal(err)
	}
	page := string(mustRead(t, "../../content/qwen3-32b/h100/index.md"))
	const anchor = "Achieve high throughput under high-concurrency request scenarios.\n"
	if !strings.Contains(page, anchor) {
		t.Fatalf("the bundled page lost its objective sentence %q", anchor)
	}
	planted := []struct {
		text string
		kind string // "" for a right number
	}{
		{"On ShareGPT, vLLM reaches 2400.00 tok/s.", KindNumber},
		{"On ShareGPT, vLLM reaches 2352.82 tok/s.", ""},
		{"Its mean TPOT on ShareGPT is 150.00 ms.", KindNumber},
		{"Its mean TPOT on ShareGPT is 88.09 ms.", ""},
		// Interactivity: 1000 / median TPOT (70.72 ms) = 14.14 tok/s/user.
		{"Each vLLM user sees 14.14 tok/s/user on ShareGPT.", ""},
		{"Each vLLM user sees 15.14 tok/s/user on ShareGPT.", KindNumber},
		{"Interactivity falls by 38.9% from vLLM to the optimized configuration on ShareGPT.", ""},
		{"Interactivity falls by 28.9% from vLLM to the optimized configuration on ShareGPT.", KindPercent},
		{"FP8 with chunked prefill raises the total throughput by 75.3% over the vLLM baseline.", KindPercent},
		{"FP8 with chunked prefill raises the total throughput by 82.1% over the vLLM baseline.", ""},
		{"TensorRT-LLM (2659.50 tok/s) is 13.0% faster than vLLM (2352.82 tok/s).", ""},
		{"FP8 with chunked prefill gives 1.82x the throughput of the vLLM baseline.", ""},
		{"FP8 with chunked prefill gives 2.82x the throughput of the vLLM baseline.", KindPercent},
		{"vLLM reaches 2.35k tok/s on ShareGPT.", ""},
		{"vLLM reaches 2.45k tok/s on ShareGPT.", KindNumber},
		{"TensorRT-LLM (2659.50 tok/s) is 31.0% faster than vLLM (2352.82 tok/s).", KindPercent},
		{"| Case | Baseline | Optimized |\n|---|---|---|\n| Very Long Prompt | Total TPS: 2771.81 | Total TPS: 4068.16 (+10.7%) |", KindPercent},
		// A difference of two runs written without them.
		{"TensorRT-LLM serves 306.68 tok/s more than vLLM on ShareGPT.", ""},
		{"TensorRT-LLM serves 360.68 tok/s more than vLLM on ShareGPT.", KindNumber},
		// A factor in a sentence of its own after a sentence comparing
		// other numbers: checked against the runs, not those numbers.
		{"vLLM reaches 2352.82 tok/s and SGLang 1690.84 tok/s on ShareGPT.\nThe optimized configuration has 1.82x the throughput of the vLLM baseline.", ""},
		{"vLLM reaches 2352.82 tok/s and SGLang 1690.84 tok/s on ShareGPT.\nThe optimized configuration has 1.92x the throughput of the vLLM baseline.", KindPercent},
	}
	var sb strings.Builder
	sb.WriteString(anchor)
	for _, p := range planted {
		sb.WriteString("\n" + p.text + "\n")
	}
	page = strings.Replace(page, anchor, sb.String(), 1)
	// The description is prose too (the site shows it).
	const desc = "description: vLLM, SGLang and TensorRT-LLM compared"
	if !strings.Contains(page, desc) {
		t.Fatalf("the bundled page lost its description %q", desc)
	}
	page = strings.Replace(page, desc, "description: TensorRT-LLM reaches 4300.00 tok/s; vLLM, SGLang and TensorRT-LLM compared", 1)
	planted = append(planted, struct {
		text string
		kind string
	}{"description: TensorRT-LLM reaches 4300.00 tok/s; vLLM, SGLang and TensorRT-LLM compared for Qwen3-32B on one H100, then FP8 quantization and chunked prefill in TensorRT-LLM.", KindNumber})
	file := filepath.Join(dir, "index.md")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(file, "../../results")
	if err != nil {
		t.Fatal(err)
	}
	if p.Campaign == nil || len(p.Results) != 13 {
		t.Fatalf("campaign %v, %d results; want the bundled campaign and its 13 results", p.Campaign != nil, len(p.Results))
	}
	got := map[int][]Finding{}
	for _, f := range Check(p) {
		got[f.Line] = append(got[f.Line], f)
	}
	lines := strings.Split(page, "\n")
	for _, pl := range planted {
		last := strings.Split(pl.text, "\n")
		ln := 0
		for i, l := range lines {
			if l == last[len(last)-1] {
				ln = i + 1
			}
		}
		fs := got[ln]
		delete(got, ln)
		switch {
		case pl.kind == "" && len(fs) > 0:
			t.Errorf("line %d %q: right number reported: %v", ln, pl.text, fs)
		case pl.kind != "" && (len(fs) != 1 || fs[0].Kind != pl.kind):
			t.Errorf("line %d %q: findings %v, want one %s finding", ln, pl.text, fs, pl.kind)
		}
	}
	for ln, fs := range got {
		t.Errorf("unexpected findings at line %d: %v", ln, fs)
	}
}

// TestCampaignSelfComparison: a campaign whose optimized experiment runs
// the baseline's configuration, found at the campaign's lines.
func TestCampaignSelfComparison(t *testing.T) {
	dir := t.TempDir()
	camp := `id: self
model: {id: Qwen/Qwen3-8B}
hardware: {gpu: H100, count: 1}
profiles:
  - {id: short, name: Short, dataset: random, input_len: 128, output_len: 4, num_prompts: 10}
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: vllm, name: vLLM, engine: vllm, command: vllm serve Qwen/Qwen3-8B}
      - {id: vllm-again, name: vLLM again, engine: vllm, command: "vllm serve  Qwen/Qwen3-8B"}
      - {id: sglang, name: SGLang, engine: sglang, args: [--tp-size, "1"]}
baseline: vllm
optimized: vllm-again
`
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(camp), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.md"), []byte("# Self\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, "index.md"), filepath.Join(dir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range Check(p) {
		if f.File != filepath.ToSlash(filepath.Join(dir, "campaign.yaml")) || f.Kind != KindSelf {
			t.Errorf("finding %v, want self-comparisons in the campaign file", f)
		}
		got = append(got, strings.TrimPrefix(f.String(), f.File))
	}
	want := []string{
		":11: experiments vllm and vllm-again of step engine run the same configuration (vllm serve Qwen/Qwen3-8B): comparing them compares a configuration with itself",
		":14: baseline vllm and optimized vllm-again run the same configuration (vllm serve Qwen/Qwen3-8B): the comparison is of a configuration with itself",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestResultModel: a bundled report whose vllm run served another model
// (its result edited) is reported at the experiment's campaign line.
func TestResultModel(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "content", "qwen3-32b", "h100")
	res := filepath.Join(root, "results", "qwen3-32b-h100")
	for _, d := range []string{dir, res} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"campaign.yaml", "index.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), mustRead(t, "../../content/qwen3-32b/h100/"+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob("../../results/qwen3-32b-h100/*.json")
	for _, f := range files {
		r, err := schema.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if r.Experiment == "vllm" && r.Profile == "sharegpt" {
			r.Engine.Command = "vllm serve Qwen/Qwen3-8B"
		}
		if err := schema.WriteFile(filepath.Join(res, filepath.Base(f)), r); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(filepath.Join(dir, "index.md"), filepath.Join(root, "results"))
	if err != nil {
		t.Fatal(err)
	}
	got := Check(p)
	if len(got) != 1 || got[0].Kind != KindModel || !strings.HasSuffix(got[0].File, "campaign.yaml") ||
		!strings.Contains(got[0].Message, "result vllm--sharegpt ran model Qwen/Qwen3-8B") {
		t.Fatalf("findings %v, want one model finding for vllm--sharegpt in the campaign", got)
	}
	camp := strings.Split(string(mustRead(t, filepath.Join(dir, "campaign.yaml"))), "\n")
	if l := camp[got[0].Line-1]; !strings.Contains(l, "id: vllm") {
		t.Errorf("finding at campaign line %d %q, want the vllm experiment's line", got[0].Line, l)
	}
}

// TestCampaignOfferedLoad: a report whose optimized run served the whole
// offered load has a gain bounded by it.
func TestCampaignOfferedLoad(t *testing.T) {
	camp := &schema.Campaign{ID: "load", Baseline: "a", Optimized: "b",
		Model:    schema.CampaignModel{ID: "Qwen/Qwen3-8B"},
		Profiles: []schema.Profile{{ID: "paced", RequestRate: 10}, {ID: "burst"}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{
			{ID: "a", Engine: "vllm", Command: "vllm serve Qwen/Qwen3-8B"},
			{ID: "b", Engine: "vllm", Command: "vllm serve Qwen/Qwen3-8B --max-num-seqs 512"}}}}}
	res := func(exp, prof string, reqPerS, tps float64) *schema.Result {
		return &schema.Result{Campaign: "load", Experiment: exp, Profile: prof, Status: schema.StatusOK,
			Summary: &schema.Summary{RequestThroughput: reqPerS, TotalTokenThroughput: tps}}
	}
	results := []*schema.Result{
		res("a", "paced", 8.1, 8100), res("b", "paced", 9.9, 9900), // b served the offered 10 req/s
		res("a", "burst", 8.1, 8100), res("b", "burst", 9.9, 9900), // no rate: unbounded
	}
	got := Check(Page{Name: "index.md", Text: []byte("# Load\n"), Campaign: camp, Results: results, CampaignFile: "campaign.yaml"})
	if len(got) != 1 || got[0].Kind != KindLoad || got[0].File != "campaign.yaml" ||
		!strings.Contains(got[0].Message, "profile paced is bounded by the offered load: b served 9.9 req/s of the 10 req/s offered") {
		t.Fatalf("findings %v, want one offered-load finding for profile paced", got)
	}
	results[1].Summary.RequestThroughput = 8.5 // under 90% of the offered load
	if got := Check(Page{Name: "index.md", Text: []byte("# Load\n"), Campaign: camp, Results: results, CampaignFile: "campaign.yaml"}); len(got) != 0 {
		t.Errorf("findings %v, want none below 90%% of the offered load", got)
	}
}

// TestRepeats: a report's prose may quote the median or the mean of a
// run's repeats.
func TestRepeats(t *testing.T) {
	camp := &schema.Campaign{ID: "rep", Baseline: "a", Optimized: "a",
		Model:    schema.CampaignModel{ID: "Qwen/Qwen3-8B"},
		Profiles: []schema.Profile{{ID: "p"}},
		Steps:    []schema.Step{{ID: "s", Experiments: []schema.Experiment{{ID: "a", Engine: "vllm", Command: "vllm serve Qwen/Qwen3-8B"}}}}}
	var results []*schema.Result
	for i, tps := range []float64{1000, 1100, 1300} {
		results = append(results, &schema.Result{Campaign: "rep", Experiment: "a", Profile: "p", Repeat: i, Status: schema.StatusOK,
			Summary: &schema.Summary{TotalTokenThroughput: tps, RequestThroughput: 1}})
	}
	page := "Over three repeats the median is 1100.00 tok/s and the mean 1133.33 tok/s; one run reached 1300.00 tok/s, none 1200.00 tok/s.\n"
	got := Check(Page{Name: "index.md", Text: []byte(page), Campaign: camp, Results: results})
	if len(got) != 1 || got[0].Kind != KindNumber || !strings.HasPrefix(got[0].Message, "1200.00 tok/s matches no result") {
		t.Fatalf("findings %v, want one for 1200.00 tok/s", got)
	}
}

// TestNotCollected: a report page whose campaign has no results yet (or
// --results names another folder) has no runs to compare its prose
// percentages with: none is reported.
func TestNotCollected(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), mustRead(t, "../../content/qwen3-32b/h100/campaign.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := "# Qwen3-32B\n\nFP8 with chunked prefill raises the total throughput by 75.3% over the vLLM baseline.\n"
	file := filepath.Join(dir, "index.md")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(file, filepath.Join(dir, "no-results"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Campaign == nil || len(p.Results) != 0 {
		t.Fatalf("campaign %v, %d results; want the campaign and no results", p.Campaign != nil, len(p.Results))
	}
	found, n := Run(p)
	if len(found) != 0 || n.Percentages != 0 {
		t.Errorf("findings %v, %d percentage(s) checked; want none without results", found, n.Percentages)
	}
}

// TestSweepPointComparedLikeForLike: a sentence's percentage between a
// sweep's point (profile chat-sweep at concurrency 64) and another
// experiment's run of the same workload at concurrency 64 filed under
// the plain profile (migrate's "<profile>-sweep" copy) is a change
// between two runs: no finding; a wrong percentage still is one.
func TestSweepPointComparedLikeForLike(t *testing.T) {
	camp := &schema.Campaign{ID: "sw", Baseline: "off", Optimized: "on",
		Model:    schema.CampaignModel{ID: "Qwen/Qwen3-8B"},
		Profiles: []schema.Profile{{ID: "chat", Dataset: "random", InputLen: 2048, OutputLen: 512, MaxConcurrency: 64}, {ID: "chat-sweep", Dataset: "random", InputLen: 2048, OutputLen: 512}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{
			{ID: "on", Engine: "vllm", Command: "vllm serve Qwen/Qwen3-8B"},
			{ID: "off", Engine: "vllm", Command: "vllm serve Qwen/Qwen3-8B --no-enable-prefix-caching"}}}}}
	res := func(exp, prof string, conc int, tps float64) *schema.Result {
		return &schema.Result{Campaign: "sw", Experiment: exp, Profile: prof, Status: schema.StatusOK,
			Load:    schema.Load{Dataset: "random", InputLen: 2048, OutputLen: 512, MaxConcurrency: conc},
			Summary: &schema.Summary{RequestThroughput: 1, OutputThroughput: tps}}
	}
	results := []*schema.Result{res("on", "chat-sweep", 1, 85.33), res("on", "chat-sweep", 64, 30427.95), res("off", "chat", 64, 27661.77)}
	for _, c := range []struct {
		pct  string
		want int
	}{{"10%", 0}, {"25%", 1}} {
		text := "# Sweep\n\nPrefix caching on is about " + c.pct + " faster at concurrency 64.\n"
		if got := Check(Page{Name: "index.md", Text: []byte(text), Campaign: camp, Results: results, CampaignFile: "campaign.yaml"}); len(got) != c.want {
			t.Errorf("%s: findings %v, want %d", c.pct, got, c.want)
		}
	}
}

// TestPartialRoundCarried: after a round that re-measured one engine
// (collect --new-round --only vllm), the page shows that round's vllm
// runs and every other run from round 1 (schema.Carry); check checks the
// page against the same results, so a number of another engine's run
// still matches and the page stays clean.
func TestPartialRoundCarried(t *testing.T) {
	root := t.TempDir()
	content := filepath.Join(root, "content", "demo", "mock-h100")
	results := filepath.Join(root, "results")
	camp := filepath.Join(results, "demo-mock-h100")
	for _, d := range []string{content, camp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sg, err := schema.ReadFile("../../results/demo-mock-h100/sglang--short.json")
	if err != nil {
		t.Fatal(err)
	}
	// A number of a run round 1 measured and the new round did not.
	page := string(mustRead(t, "../../content/demo/mock-h100/index.md")) + fmt.Sprintf("\nSGLang's total throughput on the short prompts is %.2f tok/s.\n", sg.Summary.TotalTokenThroughput)
	if err := os.WriteFile(filepath.Join(content, "index.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(content, "campaign.yaml"), mustRead(t, "../../content/demo/mock-h100/campaign.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../results/demo-mock-h100/*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("bundled results: %v %v", files, err)
	}
	rd, err := schema.CreateRound(camp, &schema.Round{ID: "2026-11-28", Start: "2099-01-01T00:00:00Z", Campaign: "demo-mock-h100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b := mustRead(t, f)
		if err := os.WriteFile(filepath.Join(camp, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(f), "vllm--") { // --only vllm, the same numbers
			if err := os.WriteFile(filepath.Join(rd.Dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	p, err := Load(filepath.Join(content, "index.md"), results)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) != len(files) {
		t.Errorf("%d results checked, want the page's %d (2 of round 2026-11-28, the others carried from round 1)", len(p.Results), len(files))
	}
	for _, x := range Check(p) {
		t.Errorf("partial round: %s", x)
	}
}
