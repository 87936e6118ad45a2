package diff

import (
	"bytes"
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
