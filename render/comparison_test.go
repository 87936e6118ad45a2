package render

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
