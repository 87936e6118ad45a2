package diff

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

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
