package render

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSetupNarrativeSubsection: a narrative subsection of the setup whose
// heading the setup block also generates ("### Benchmark Method" after
// the block, as on the Qwen3.5 page) is one section: one heading, the
// generated part first, then the narrative's text; a page with no block
// (the generated skeleton) merges the same way.
func TestSetupNarrativeSubsection(t *testing.T) {
	for _, tt := range []struct {
		name, md string
	}{
		{"placed block", "---\ntitle: Demo\n---\n\n## Experimental Setup\n\n```perflab\nblock: setup\n```\n\n### Benchmark Method\n\nThis project uses GPUStack's one-click benchmark.\n\n### Open-Source Replacement\n\nguidellm.\n\n## Experiment Results\n"},
		{"skeleton", "---\ntitle: Demo\n---\n\n## Experimental Setup\n\n### Benchmark Method\n\nThis project uses GPUStack's one-click benchmark.\n\n### Open-Source Replacement\n\nguidellm.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t)
			writeFile(t, filepath.Join(dir, "content/demo/h100/index.md"), tt.md)
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			if err := Build(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
			heads := regexp.MustCompile(`<h3 id="([^"]*)">Benchmark Method<`).FindAllStringSubmatch(page, -1)
			if len(heads) != 1 || heads[0][1] != "benchmark-method" {
				t.Fatalf("Benchmark Method headings %q, want one with id benchmark-method", heads)
			}
			i := strings.Index(page, `<h3 id="benchmark-method">`)
			gen := strings.Index(page[i:], "Measured with")
			prose := strings.Index(page[i:], "one-click benchmark")
			next := strings.Index(page[i:], `id="open-source-replacement"`)
			if gen < 0 || prose < 0 || next < 0 || !(gen < prose && prose < next) {
				t.Errorf("under Benchmark Method: generated at %d, narrative at %d, next heading at %d; want generated, then narrative, then the next heading", gen, prose, next)
			}
			// The other generated subsections keep their own headings.
			for _, id := range []string{"model", "hardware", "engine-version", "benchmark-profiles"} {
				if !strings.Contains(page, `<h3 id="`+id+`">`) {
					t.Errorf("generated subsection %s lost its heading", id)
				}
			}
		})
	}
}

// TestRunsFileBreakable: the runs table's result file is its name, which
// may wrap after "--" (one unbroken path squeezed the other columns).
func TestRunsFileBreakable(t *testing.T) {
	dir := copyFixture(t)
	writeFile(t, filepath.Join(dir, "content/demo/h100/index.md"), "---\ntitle: Demo\n---\n\n```perflab\nblock: runs\n```\n")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	// The name only (the directory is the same on every row), its path
	// in the title.
	if !strings.Contains(page, `<code title="demo-h100/vllm-base--sharegpt.json"><span class="nw">vllm-base--</span><wbr><span class="nw">sharegpt.json</span></code>`) {
		t.Error("the runs table's result file is not its name with break opportunities and its path as title")
	}
}

// TestStepColumnsShared: a step's table compares its experiments on the
// profiles at least two of them ran; a profile only one ran is not a
// column of "no result" for the others. A single-experiment step keeps
// every profile it ran.
func TestStepColumnsShared(t *testing.T) {
	dir := copyFixture(t)
	// SGLang now ran ShareGPT only; vLLM ran ShareGPT and Long Prompt.
	if err := os.Remove(filepath.Join(dir, "results/demo-h100/sglang-base--long.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "content/demo/h100/index.md"),
		"---\ntitle: Demo\n---\n\n```perflab\nblock: step\nstep: engine\n```\n\n```perflab\nblock: step\nstep: quant\n```\n")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	var heads []string
	for _, tbl := range strings.Split(page, `<table class="sortable step">`)[1:] {
		th := tbl[:strings.Index(tbl, "</thead>")]
		heads = append(heads, strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(th, " ")), " "))
	}
	want := []string{"Experiment Engine GPUs ShareGPT", "Experiment Engine GPUs ShareGPT Long Prompt"}
	if len(heads) != 2 || heads[0] != want[0] || heads[1] != want[1] {
		t.Errorf("step table headers %q, want %q", heads, want)
	}
}

// TestSetupRerunCommands: a campaign measured with another tool
// (guidellm, the Qwen3.5 page) gets perflab bench commands labelled as
// re-runs, not as the commands that produced its numbers; a vLLM bench
// campaign's commands are its benchmark commands.
func TestSetupRerunCommands(t *testing.T) {
	for _, tt := range []struct{ tool, want, not string }{
		{"guidellm", "Commands to re-run each profile with perflab bench (the numbers on this page were measured with guidellm)", "Benchmark commands, one per profile"},
		{"vllm bench serve", "Benchmark commands, one per profile", "Commands to re-run"},
	} {
		dir := copyFixture(t)
		camp := filepath.Join(dir, "content/demo/h100/campaign.yaml")
		b, err := os.ReadFile(camp)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, camp, strings.Replace(string(b), "  tool: vllm bench serve\n", "  tool: "+tt.tool+"\n", 1))
		// The fixture's ShareGPT runs record their command; the long
		// profile's command is written from the campaign.
		opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
		if err := Build(context.Background(), opt); err != nil {
			t.Fatal(err)
		}
		page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
		if !strings.Contains(page, tt.want) || strings.Contains(page, tt.not) {
			t.Errorf("tool %s: the commands are not labelled %q", tt.tool, tt.want)
		}
	}
}
