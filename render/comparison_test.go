package render

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// TestComparisonPerGPUBothSides: when the baseline and the optimized
// configuration use different GPU counts, the comparison shows the
// baseline's per-GPU throughput too (the 235B page showed "1,946.79 per
// GPU (+84.9%)" next to a baseline of 8,424.86 with no per-GPU figure to
// check the delta against).
func TestComparisonPerGPUBothSides(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	i := strings.Index(page, `<table class="sortable comparison">`)
	if i < 0 {
		t.Fatal("no comparison table")
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(table, " ")), " ")
	// Baseline vllm-base: 2 GPUs, 2,352.82 tok/s on ShareGPT.
	if !strings.Contains(text, "Total TPS: 2,352.82 (1,176.41 per GPU)") {
		t.Errorf("baseline cell lacks its per-GPU throughput:\n%s", text)
	}
}

// TestPartialSuccessDeltaNotColoured: a run that lost a larger share of its
// requests than its reference gets its delta struck out, not coloured as
// a gain or a loss (the Qwen3.5 MTP run, 516 of 1000, showed a green
// "+46.8%"); runs that succeed alike keep their colours.
func TestPartialSuccessDeltaNotColoured(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(opt.Out, "demo/h100/index.html"))
	// SGLang on ShareGPT: 516 of 1000 against vLLM's 1000 of 1000,
	// 1,690.84 vs 2,352.82 tok/s.
	if !regexp.MustCompile(`<span class="delta na"[^>]*>\(-28\.1%\)</span>`).MatchString(page) {
		t.Error("the partial SGLang run's throughput delta is not struck out")
	}
	if strings.Contains(page, `<span class="delta worse">(-28.1%)</span>`) {
		t.Error("the partial SGLang run's throughput delta is coloured")
	}
	if !strings.Contains(page, "Struck out</span>: not a fair comparison") {
		t.Error("the step's legend does not say what a struck-out delta is")
	}
	// FP8 succeeds fully: its gain keeps its colour.
	if !strings.Contains(page, `<span class="delta better">(+240.5%)</span>`) {
		t.Error("a fully successful run's delta lost its colour")
	}
}

// TestLessSuccessful: only a smaller share of successes makes a delta
// unfair; equal shares (every 235B run: 984 of 1000) compare as usual.
func TestLessSuccessful(t *testing.T) {
	run := func(done, failed, prompts int) *schema.Result {
		return &schema.Result{Load: schema.Load{NumPrompts: prompts}, Summary: &schema.Summary{Completed: done, Failed: failed}}
	}
	tests := []struct {
		name     string
		run, ref *schema.Result
		want     bool
	}{
		{"MTP 516 of 1000 vs 1000 of 1000", run(516, 0, 1000), run(1000, 0, 1000), true},
		{"both 984 of 1000", run(984, 0, 1000), run(984, 0, 1000), false},
		{"better share than the reference", run(1000, 0, 1000), run(984, 0, 1000), false},
		{"failures counted, no prompt count", run(90, 10, 0), run(100, 0, 0), true},
		{"reference without summary", run(516, 0, 1000), &schema.Result{}, false},
	}
	for _, tt := range tests {
		if got := site.LessSuccessful(tt.run, tt.ref); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
