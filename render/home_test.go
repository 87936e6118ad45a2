package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHomeBestIsRecommended: the home page's best throughput is the
// recommended configuration's, with its GPU count, even when another run
// (the baseline on more GPUs) reached a higher total: the 235B report was
// listed with its 8-GPU baseline as its best.
func TestHomeBestIsRecommended(t *testing.T) {
	dir := copyFixture(t)
	// The baseline's Long Prompt run now has the highest total of all.
	p := filepath.Join(dir, "results/demo-h100/vllm-base--long.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"total_token_throughput_tok_per_s": 2148.69`, `"total_token_throughput_tok_per_s": 9000`, 1)
	if s == string(b) {
		t.Fatal("fixture changed: no total throughput 2148.69 to replace")
	}
	writeFile(t, p, s)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	home := readFile(t, filepath.Join(opt.Out, "index.html"))
	if strings.Contains(home, "9,000.00 tok/s") {
		t.Error("the home page lists the baseline's run as the report's best throughput")
	}
	// The optimized configuration, FP8 on one GPU, on ShareGPT.
	if !strings.Contains(home, "4,005.62 tok/s<br><small>FP8 on one GPU on ShareGPT, 1 GPU</small>") {
		t.Errorf("the home page does not list the recommended configuration's best throughput with its GPU count")
	}
}
