package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/render/blocks"
)

// TestSummaryText: the vLLM text block written from a summary matches the
// layout of `vllm bench serve` byte for byte (testdata/summary.golden).
func TestSummaryText(t *testing.T) {
	res := fixtureResults()[0]
	got := blocks.SummaryText(res)
	golden := filepath.Join("testdata", "summary.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if len(l) != 50 && len(l) != 51 {
			t.Errorf("line %q is %d wide; vLLM's rows are 51 (40+1+10), rules 50", l, len(l))
		}
	}
}

// TestSummaryTextGuidellm: a guidellm run's TPOT is not printed under
// vLLM's "excl. 1st token" header.
func TestSummaryTextGuidellm(t *testing.T) {
	res := fixtureResults()[0]
	res.Tool.Name = "guidellm"
	got := blocks.SummaryText(res)
	if strings.Contains(got, "excl. 1st token") || !strings.Contains(got, "Time per Output Token (guidellm: incl. 1st token)") {
		t.Errorf("guidellm TPOT under the wrong header:\n%s", got)
	}
	if strings.Contains(got, "Peak output token throughput") {
		t.Errorf("guidellm's max printed as a 1-second peak:\n%s", got)
	}
}
