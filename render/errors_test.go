package render

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// copyFixture copies testdata/site into a temporary directory so that a
// test can break it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(fixtureSite, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixtureSite, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

const blocksPage = "---\ntitle: T\ncampaign: ../h100/campaign.yaml\n---\n\n# Head\n\n"

// TestBuildErrors breaks one input at a time: the build fails with
// file:line and what is wrong, and the site built before is left intact.
// YAML and campaign errors are worded by collect/schema/campaignfile, as
// collect and import word them: the field name quoted, campaign problems
// as file:line: field.path: what.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		file string // relative to the fixture copy
		body string
		want string // substring of the error; the path is relative to the copy
	}{
		{"front matter never closed", "content/about.md", "---\ntitle: x\n\n# About\n",
			"content/about.md:1: front matter opened with --- is never closed"},
		// yaml reports line 2 of the front matter; the file line is 3.
		{"front matter malformed", "content/about.md", "---\ntitle: ok\n  bad: x\n---\n# About\n",
			"content/about.md:3: mapping values are not allowed"},
		// An unclosed bracket at the end of the front matter: its line,
		// not the closing ---.
		{"front matter unclosed bracket", "content/about.md", "---\ntitle: [x\n---\n# About\n",
			"content/about.md:2: did not find expected ',' or ']'"},
		{"front matter unknown key", "content/about.md", "---\ntitle: ok\nauthor: me\n---\n# About\n",
			"content/about.md:3: unknown field \"author\" in front matter (keys: title, description, campaign, weight, draft)"},
		{"front matter wrong type", "content/about.md", "---\nweight: heavy\n---\n# About\n",
			"content/about.md:2: cannot unmarshal"},
		{"campaign malformed yaml", "content/demo/h100/campaign.yaml", "id: x\nprofiles: [\n",
			"content/demo/h100/campaign.yaml:"},
		{"campaign unknown field", "content/demo/h100/campaign.yaml", "id: x\nmodle: {id: a}\n",
			"content/demo/h100/campaign.yaml:2: unknown field \"modle\" in the campaign"},
		{"campaign unknown nested field", "content/demo/h100/campaign.yaml",
			"id: x\nprofiles:\n  - id: p\n    name: P\n    num_promts: 5\n",
			"content/demo/h100/campaign.yaml:5: profiles[0].num_promts: unknown field \"num_promts\" in a profile"},
		{"campaign unknown baseline", "content/demo/h100/campaign.yaml",
			"id: demo-h100\nmodel: {id: m}\nhardware: {gpu: H100, count: 1}\nprofiles:\n  - {id: p, name: P, dataset: random, num_prompts: 1}\nsteps:\n  - id: s\n    title: S\n    experiments:\n      - {id: a, name: A, engine: vllm}\nbaseline: nope\noptimized: a\n",
			"content/demo/h100/campaign.yaml:11: baseline: unknown experiment \"nope\""},
		{"campaign duplicate experiment", "content/demo/h100/campaign.yaml",
			"id: demo-h100\nmodel: {id: m}\nhardware: {gpu: H100, count: 1}\nprofiles:\n  - {id: p, name: P, dataset: random, num_prompts: 1}\nsteps:\n  - id: s\n    title: S\n    experiments:\n      - {id: a, name: A, engine: vllm}\n      - {id: a, name: B, engine: vllm}\nbaseline: a\noptimized: a\n",
			"content/demo/h100/campaign.yaml:11: steps[0].experiments[1].id: duplicate experiment id \"a\""},
		{"unknown block type", "content/demo/blocks/index.md", blocksPage + "text\n\n```perflab\nblock: pie\n```\n",
			"content/demo/blocks/index.md:11: field block: unknown block type \"pie\""},
		// A block's error names the line of the field at fault, not the
		// fence's (the fence is line 8 here).
		{"block unknown experiment", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: command\nexperiment: vllm-fp16\n```\n",
			"content/demo/blocks/index.md:10: block command: field experiment: unknown experiment \"vllm-fp16\""},
		// Inside an admonition (the seeds' "Serving Command"): fence on
		// line 9, the field on line 11.
		{"nested block unknown experiment", "content/demo/blocks/index.md", blocksPage + "???+ tip \"Serving Command\"\n    ```perflab\n    block: command\n    experiment: nope\n    ```\n",
			"content/demo/blocks/index.md:11: block command: field experiment: unknown experiment \"nope\""},
		{"raw block without a result", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: raw\nexperiment: sglang-base\nprofile: nope\n```\n",
			"content/demo/blocks/index.md:11: block raw: field profile: unknown profile \"nope\""},
		// point: picks a sweep's load; a profile at one load has none.
		{"raw block unknown point", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: raw\nexperiment: sglang-base\nprofile: long\npoint: c8\n```\n",
			"content/demo/blocks/index.md:12: block raw: field point: experiment \"sglang-base\" has no result at point \"c8\" on profile \"long\" (no sweep points)"},
		{"block unknown field", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: chart\ncolour: red\n```\n",
			"content/demo/blocks/index.md:10: unknown field \"colour\" in perflab block (keys: block, metric, experiment, profile, step, title, point)"},
		// A misspelt key or block type gets a guess.
		{"block misspelt key", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: curve\nprofle: short\n```\n",
			"content/demo/blocks/index.md:10: unknown field \"profle\" in perflab block (keys: block, metric, experiment, profile, step, title, point) (did you mean profile?)"},
		{"block misspelt type", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: comparision\n```\n",
			"content/demo/blocks/index.md:9: field block: unknown block type \"comparision\" (did you mean comparison?)"},
		{"front matter misspelt key", "content/demo/blocks/index.md", "---\ntitel: T\n---\n# X\n",
			"content/demo/blocks/index.md:2: unknown field \"titel\" in front matter (keys: title, description, campaign, weight, draft) (did you mean title?)"},
		{"block malformed yaml", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: [chart\n```\n",
			"content/demo/blocks/index.md:"},
		{"block unknown metric", "content/demo/blocks/index.md", blocksPage + "```perflab\nblock: chart\nmetric: speed\n```\n",
			"content/demo/blocks/index.md:10: block chart: field metric: unknown metric \"speed\""},
		{"campaign file missing", "content/demo/blocks/index.md", "---\ntitle: T\ncampaign: ../nope/campaign.yaml\n---\n# X\n",
			"content/demo/blocks/index.md:3: field campaign: open "},
		{"block on a page without campaign", "content/about.md", "# About\n\n```perflab\nblock: runs\n```\n",
			"content/about.md:3: block \"runs\": this page has no campaign"},
		{"result of an unknown experiment", "results/demo-h100/ghost--sharegpt.json",
			`{"schema_version": 1, "id": "g", "campaign": "demo-h100", "experiment": "ghost", "profile": "sharegpt", "status": "ok", "engine": {"name": "vllm"}, "model": {"id": "m"}, "load": {"num_prompts": 1, "request_rate_per_s": 0, "seed": 0}, "tool": {"name": "x"}}`,
			"results/demo-h100/ghost--sharegpt.json:1: field experiment: \"ghost\" is not an experiment"},
		{"result malformed json", "results/demo-h100/vllm-base--long.json", "{\"schema_version\": 1,\n\"id\": }",
			"results/demo-h100/vllm-base--long.json:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t)
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			if err := Build(context.Background(), opt); err != nil {
				t.Fatalf("the unbroken fixture does not build: %v", err)
			}
			before := treeOf(t, opt.Out)
			writeFile(t, filepath.Join(dir, tt.file), tt.body)
			err := Build(context.Background(), opt)
			if err == nil {
				t.Fatalf("build succeeded; want an error containing %q", tt.want)
			}
			msg := strings.ReplaceAll(err.Error(), filepath.ToSlash(dir)+"/", "")
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error:\n  %s\nwant it to contain:\n  %s", msg, tt.want)
			}
			// Atomic: the old site is intact and no temporary is left.
			after := treeOf(t, opt.Out)
			if len(after) != len(before) {
				t.Errorf("site has %d files after the failed build, %d before", len(after), len(before))
			}
			for p, b := range before {
				if string(after[p]) != string(b) {
					t.Errorf("%s changed by a failed build", p)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".site") {
					t.Errorf("temporary %s left behind", e.Name())
				}
			}
		})
	}
}

// TestSwapReplacesSite: a successful rebuild replaces the old site whole
// (a page removed from content disappears from the site); beside it
// only the site it replaced is left, kept for the next build
// (output.RetainedDir).
func TestSwapReplacesSite(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "content/about.md")); err != nil {
		t.Fatal(err)
	}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opt.Out, "about/index.html")); !os.IsNotExist(err) {
		t.Errorf("about/index.html survived the rebuild: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "site" && e.Name() != "content" && e.Name() != "results" && e.Name() != ".cache" && e.Name() != ".site.prev" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestEmptyContent: with no content at all the build still writes a home
// page (README's first command on a fresh clone).
func TestEmptyContent(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	st, err := BuildStats(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 1 {
		t.Errorf("%d pages, want the home page only", st.Pages)
	}
	home := readFile(t, filepath.Join(opt.Out, "index.html"))
	if !strings.Contains(home, "No reports yet") {
		t.Error("home page does not say there are no reports yet")
	}
}

// TestSummarySteps: incremental deltas compare with the configuration
// carried forward, cumulative ones with the baseline; a step that carries
// nothing forward is shown with its best try and the reason, and the
// total ignores it.
func TestSummarySteps(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "content/demo/h100/campaign.yaml")
	b, err := os.ReadFile(camp)
	if err != nil {
		t.Fatal(err)
	}
	// Step 2 carries nothing forward now. (Without chosen:, the step
	// holding the optimized experiment would choose it: the campaign
	// recommends the baseline here.)
	s := strings.Replace(string(b), "    chosen: vllm-fp8\n", "", 1)
	writeFile(t, camp, strings.Replace(s, "optimized: vllm-fp8", "optimized: vllm-base", 1))
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	i := strings.Index(page, `<table class="sortable summary">`)
	table := page[i : i+strings.Index(page[i:], "</table>")]
	text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(table, " ")
	text = strings.Join(strings.Fields(text), " ")
	for _, want := range []string{
		// The FP8 try runs on 1 GPU, the baseline on 2: per GPU throughout.
		"Total TPS per GPU (ShareGPT)",
		"Baseline vLLM 1,176.41 – –",
		// Engine selection keeps the baseline: unchanged.
		"Choosing the Inference Engine vLLM the baseline is kept 1,176.41 ~ ~",
		"Quantization in vLLM FP8 on one GPU not carried forward 4,005.62 [1] +240.5% +240.5%",
		"Total (vs baseline) vLLM 1,176.41 ~",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

// TestCampaignWithoutNarrative: a bundle holding only campaign.yaml is a
// report made of the generated skeleton.
func TestCampaignWithoutNarrative(t *testing.T) {
	dir := copyFixture(t)
	if err := os.Remove(filepath.Join(dir, "content/demo/h100/index.md")); err != nil {
		t.Fatal(err)
	}
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	st, err := BuildStats(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reports != 2 {
		t.Errorf("%d reports, want 2", st.Reports)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	for _, want := range []string{"<h1>Optimizing Qwen3-32B Throughput on NVIDIA H100 GPUs</h1>", `id="summary-of-optimization-options"`} {
		if !strings.Contains(page, want) {
			t.Errorf("missing %q", want)
		}
	}
}

// TestLatencyObjective: a latency campaign leads with latency, lower is
// better, and is listed under "Optimizing Latency".
func TestLatencyObjective(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "content/demo/h100/campaign.yaml")
	b, err := os.ReadFile(camp)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, camp, strings.Replace(string(b), "objective: throughput", "objective: latency", 1))
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	for _, want := range []string{
		// The fixture has no end-to-end latency: TTFT leads, not a derived E2E.
		`<span class="k">Mean TTFT (ms):</span> <span class="v">45,000.20</span> <span class="delta better">(-42.4%)</span>`,
		`Optimizing Latency`,
		`Mean time to first token on ShareGPT: vLLM (78,118.74 ms) &lt; SGLang (115,690.30 ms`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(page, "E2E latency (ms):") {
		t.Error("an end-to-end latency was printed though no run recorded one")
	}
}
