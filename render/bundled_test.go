package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundledSite builds the repository's own content/ and results/ (the
// three GPUStack seed reports brought in by perflab import): every report
// page exists with its charts and computed tables, no `???`/`!!!` is left
// as text, and the numbers the seeds got wrong come out right.
func TestBundledSite(t *testing.T) {
	root := repoRoot(t)
	content := filepath.Join(root, "content")
	if _, err := os.Stat(content); err != nil {
		t.Skip("SKIP: no content/ in this checkout")
	}
	out := filepath.Join(t.TempDir(), "site")
	st, err := BuildStats(context.Background(), Options{Content: content, Results: filepath.Join(root, "results"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if st.Reports < 3 {
		t.Errorf("%d reports, want the three seed reports", st.Reports)
	}
	pages := map[string][]string{
		// The seed prints +10.7% for the Very Long Prompt; its own raw
		// outputs give +46.8%.
		"qwen3-32b/h100": {"(+46.8%)", "(+82.1%)"},
		// TP8 baseline vs TP4 optimized: compared per GPU (GPUStack's "x2").
		"qwen3-235b-a22b/h100": {"(+84.9%)", "Per-GPU normalisation:"},
		// Speculative decoding: 516 of 1000 requests; the peak output
		// throughput of guidellm is flagged, not shown as a fact.
		// guidellm's TPOT includes the first token: its cells say so.
		"qwen3.5-35b-a3b/h200": {"516 of 1000 requests succeeded", "(+9.7%)", "Mean TPOT incl. 1st token (ms)"},
	}
	for p, wants := range pages {
		b, err := os.ReadFile(filepath.Join(out, p, "index.html"))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		page := string(b)
		// vLLM's TPOT excludes the first token; a table cell that puts a
		// guidellm TPOT under vLLM's label (or the reverse) shows a number
		// under a definition it does not have. (Raw outputs stay verbatim.)
		guidellm := p == "qwen3.5-35b-a3b/h200"
		if got := strings.Contains(page, `<span class="k">Mean TPOT (ms):</span>`); got == guidellm {
			t.Errorf("%s: cells labelled with vLLM's \"Mean TPOT (ms)\" = %v on a page measured with guidellm = %v", p, got, guidellm)
		}
		for _, w := range append(wants, `class="chart"`, "<details", `<table class="sortable comparison">`) {
			if !strings.Contains(page, w) {
				t.Errorf("%s: missing %q", p, w)
			}
		}
		// Each step says its result once: a narrative "Result:" line
		// under the generated one read as a repetition.
		for _, sec := range strings.Split(page, "<h3")[1:] {
			if n := strings.Count(sec, "Result:"); n > 1 {
				t.Errorf("%s: %d \"Result:\" lines in the section %.80q", p, n, sec)
			}
		}
		// The 32B page's SGLang-command slip is explained once (it was in
		// the experiment's note, a caveat and a narrative note).
		if n := strings.Count(page, "kept as published"); n > 1 {
			t.Errorf("%s: \"kept as published\" %d times", p, n)
		}
		// Other Benchmark Cases shows the two serving commands its raw
		// outputs come from (the seeds' "Baseline/Optimized serving
		// script" or "Backend Parameters").
		if i := strings.Index(page, `id="other-benchmark-cases"`); i < 0 {
			t.Errorf("%s: no Other Benchmark Cases", p)
		} else if n := strings.Count(page[i:], `<div class="highlight language-bash">`); n < 2 {
			t.Errorf("%s: Other Benchmark Cases shows %d serving commands, want the baseline's and the optimized one's", p, n)
		}
		if m := markerLine.FindString(page); m != "" {
			t.Errorf("%s: admonition marker left as text: %q", p, m)
		}
		for _, f := range []string{"data.json", "data.csv"} {
			if _, err := os.Stat(filepath.Join(out, p, f)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
}
