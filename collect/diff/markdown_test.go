package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/perflab/perflab/collect/schema"
)

// TestMarkdownRendersAsTables renders a diff's Markdown as GitHub does
// (GFM): one table per metric with its five columns, a | in a run's name
// or a side's path shown as itself (not \|, not a column break).
func TestMarkdownRendersAsTables(t *testing.T) {
	a := result("", 0, 0, 1000, 10)
	a.Label, a.Load, a.Profile = "vllm|0.13", schema.Load{}, ""
	b := result("", 0, 0, 800, 13)
	b.Label, b.Load, b.Profile = "vllm|0.15", schema.Load{}, ""
	oldF, newF := NewSide("runs/old|a.json", []*schema.Result{a}), NewSide("runs/new`b.json", []*schema.Result{b})
	oldF.File, newF.File = true, true
	var md bytes.Buffer
	if err := Compare(oldF, newF, 0).WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	if n := strings.Count(h, "<table>"); n != len(Metrics) {
		t.Errorf("%d tables, want %d:\n%s\n%s", n, len(Metrics), md.String(), h)
	}
	if n := strings.Count(h, "<td>vllm|0.13 → vllm|0.15</td>"); n != len(Metrics) {
		t.Errorf("run name cell found %d times, want %d:\n%s", n, len(Metrics), h)
	}
	if !strings.Contains(h, "<code>runs/old|a.json</code>") || !strings.Contains(h, "<code>runs/new`b.json</code>") {
		t.Errorf("sides' paths not shown as they are:\n%s", h)
	}
	if strings.Contains(h, `\|`) {
		t.Errorf("a backslash shown before |:\n%s", h)
	}
}

// TestJSONFieldsDocumented: every field --format json writes, of the
// table, a row and a side's sample, is named in docs/diff.md, which CI
// scripts parsing it read.
func TestJSONFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/diff.md")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tab := Compare(side(rng, "old", 5, 0.01, 1, "a"), side(rng, "new", 5, 0.01, 1.2, "a"), 0)
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(top["rows"], &rows); err != nil || len(rows) == 0 {
		t.Fatalf("rows: %v", err)
	}
	var sample map[string]json.RawMessage
	if err := json.Unmarshal(rows[0]["old"], &sample); err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]json.RawMessage{top, rows[0], sample} {
		for k := range m {
			if !strings.Contains(string(doc), "`"+k+"`") {
				t.Errorf("JSON field %q is not in docs/diff.md", k)
			}
		}
	}
	for _, m := range Metrics {
		if !strings.Contains(string(doc), "`"+m.Key+"`") {
			t.Errorf("metric %q is not in docs/diff.md", m.Key)
		}
	}
}

// bigLab is a large lab's diff: 50 experiments with long names at two
// concurrencies, 6 repeats, 600 rows; experiments 0-4 got slower by 12 %
// in NEW, 5-7 faster by 12 %, the rest did not change.
func bigLab() *Table {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(name string, changed bool) Side {
		var rs []*schema.Result
		for e := 0; e < 50; e++ {
			exp := fmt.Sprintf("llama-3.1-70b-instruct-fp8-tp4-%02d", e)
			s := 1.0
			switch {
			case changed && e < 5:
				s = 1.12
			case changed && e < 8:
				s = 0.88
			}
			for _, c := range []int{4, 16} {
				for r := 0; r < 6; r++ {
					noise := 1 + 0.01*rng.NormFloat64()
					rs = append(rs, result(exp, c, r, 1000*float64(c)/s*noise, 10*s*noise))
				}
			}
		}
		return NewSide(name, rs)
	}
	return Compare(mk("results/lab@previous", false), mk("results/lab@latest", true), 0)
}

// TestMarkdownFitsComment: a 600-row diff whose Markdown would pass
// GitHub's 65,536 characters for a comment keeps under them by leaving
// out unchanged rows, says how many, and keeps every significant row.
func TestMarkdownFitsComment(t *testing.T) {
	tab := bigLab()
	if len(tab.Rows) != 600 {
		t.Fatalf("%d rows, want 600", len(tab.Rows))
	}
	if whole := tab.markdown(1 << 30); len(whole) < CommentLimit {
		t.Fatalf("the whole comment is %d bytes, under the limit: the test leaves nothing out", len(whole))
	}
	var buf bytes.Buffer
	if err := tab.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if len(md) >= CommentLimit {
		t.Fatalf("comment of %d bytes, GitHub takes at most %d", len(md), CommentLimit)
	}
	var sig, rest int
	for _, r := range tab.Rows {
		if !r.Significant {
			rest++
			continue
		}
		sig++
		d, note := r.DeltaText()
		if r.Regression {
			d = "**" + d + "** :warning:"
		}
		if line := fmt.Sprintf("| %s | %s | %s | %s | %s |\n", r.Run, sample(r.Old), sample(r.New), d, note); !strings.Contains(md, line) {
			t.Errorf("significant row left out: %q", line)
		}
	}
	if regs := len(tab.Regressions()); regs != 50 || sig != 80 {
		t.Fatalf("%d regressions, %d significant: want 50 and 80", regs, sig)
	}
	shown := strings.Count(md, " | ~ | ")
	m := regexp.MustCompile(`\n(\d+) unchanged or untested rows left out to keep this comment under GitHub's 65536 characters: ` + "`--format json`" + ` or ` + "`--format text`" + ` shows every row\.\n`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no note of the rows left out:\n%s", md[len(md)-2000:])
	}
	if left := m[1]; left != fmt.Sprint(rest-shown) || shown == 0 {
		t.Errorf("note says %s left out; %d of %d unchanged rows shown", left, shown, rest)
	}
	// As many as fit: one more would not.
	if len(md)+120 < CommentLimit {
		t.Errorf("comment of %d bytes: room for more rows", len(md))
	}
}

// TestMarkdownLeadsWithChanges: a pull-request comment reads, in order,
// the gate's verdict and the counts, the regressions, the improvements,
// then the unchanged rows collapsed; GitHub (GFM) renders every part as
// a table, those in <details> too (the blank line after <summary> ends
// the HTML block).
func TestMarkdownLeadsWithChanges(t *testing.T) {
	// Without --fail-on the verdict is what a gate would decide.
	var plain bytes.Buffer
	if err := bigLab().WriteMarkdown(&plain); err != nil || !strings.Contains(plain.String(), ":x: **a `--fail-on regression` gate would fail** (50 regressions)\n") {
		t.Errorf("ungated verdict: %v\n%s", err, plain.String()[:min(plain.Len(), 400)])
	}
	var buf bytes.Buffer
	tab := bigLab()
	tab.Gated = true
	if err := tab.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	order := []string{"**perflab diff**: `results/lab@previous` → `results/lab@latest`\n",
		":x: **gate `--fail-on regression`: fails** (50 regressions)\n",
		"50 regressions · 30 improvements · 520 unchanged (`~`) · 0 untested",
		"### Regressions (50)", ":warning:", "### Improvements (30)", "<details><summary>output throughput (tok/s, higher is better): ", "| ~ |", "</details>", "left out to keep this comment", "Benjamini-Hochberg over the 600 tested comparisons"}
	at := 0
	for _, s := range order {
		i := strings.Index(md[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order after byte %d:\n%s", s, at, md[:min(len(md), 3000)])
		}
		at += i + len(s)
	}
	if i, j := strings.LastIndex(md, ":warning:"), strings.Index(md, "### Improvements"); i > j {
		t.Errorf("a regression after the improvements")
	}
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	h := out.String()
	details := strings.Count(md, "<details>")
	// Regressions: 5 metrics (not TTFT); improvements: the same 5;
	// collapsed: a block per metric that fitted.
	if n := strings.Count(h, "<table>"); details == 0 || n != 5+5+details {
		t.Errorf("%d tables, want %d (%d in <details>)", n, 10+details, details)
	}
	if n := len(regexp.MustCompile(`(?s)<details><summary>[^<]*</summary>\s*<table>.*?</table>\s*</details>`).FindAllString(h, -1)); n != details {
		t.Errorf("%d of %d <details> blocks hold a rendered table:\n%s", n, details, h[strings.Index(h, "<details>"):][:1500])
	}
	if strings.Contains(h, "| --- |") || strings.Contains(h, "|---|") {
		t.Errorf("a table left as text")
	}
}
