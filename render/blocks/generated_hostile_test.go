package blocks

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"math"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/bytediff"
)

// hostileStrings are values that an escaper written for one context gets
// wrong in another: markup and quote characters, what html/template
// filters in URLs ("javascript:"), ends of script and comment elements,
// template delimiters, NUL, invalid UTF-8, the JS line terminators,
// direction marks, non-characters, numbers' special spellings, empty and
// very long.
var hostileStrings = []string{
	"",
	"plain",
	"< > & ' \" ` = + % ;",
	`javascript:alert(1)`,
	` javascript:alert(1)`,
	`data:text/html,<script>alert(1)</script>`,
	`</script><script>alert("x")</script>`,
	`</style><style>*{color:red}</style>`,
	`<!-- comment --> -->`,
	`<![CDATA[x]]>`,
	`{{.}} {{template "notes" .}}`,
	"nul\x00byte\x00",
	"bad\xffutf8\xfe\xed\xa0\x80end",
	"line\u2028sep\u2029para",
	"rtl\u200fmark\u202eoverride\u202c",
	"\ufdd0\ufdef\ufff0\uffff\U0010ffff",
	"\t\r\n \x0b\x0c\x7f",
	"&amp;&lt;&#34;&#x27;",
	"a=b&c=d?e#f/g%20h+i",
	"http://example.com/?q=<x>&r='y'",
	"NaN", "+Inf", "-Inf", "-0", "1e21", "-0.0000",
	"Qwen/Qwen3-32B @ concurrency 8 (run 2)",
	"ünïcødé — µs ± 1.5%",
	strings.Repeat("long<&>\"'", 20000),
}

// hostileViews returns views of the Go-written blocks with every string
// field set to h, over their branches: empty tables, one row, several
// rows, missing values, deltas fair and struck out, normalised and not,
// notes and none.
func hostileViews(h string, k int) map[string][]any {
	nan, inf, negZero := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	pcts := []float64{nan, inf, -inf, negZero, 12.34567, -1e-9, 1e21, 5e-324}
	delta := func(i int) Delta {
		return Delta{Pct: pcts[(k+i)%len(pcts)], Sign: i%3 - 1, OK: i%4 != 3, NA: i%5 == 1}
	}
	notes := footnotes{List: []footnote{{Run: h, Items: []string{h}}, {Run: h + "2", Items: []string{h, "<b>" + h, ""}}}}
	cells := []cell{
		{Missing: h, Sort: ""},
		{Sort: h, Bad: true, Notes: []int{1, 22}, Lines: []cellLine{{Label: h, Value: h, Spread: h, PerGPU: h, Delta: template.HTML("+" + h), DeltaClass: h}}},
		{Sort: h, Lines: []cellLine{
			{Label: h, Value: h},
			{Label: "TTFT", Value: h, Delta: "-1.0%", DeltaClass: "delta na"},
			{Label: h, Value: "", PerGPU: h, Delta: "~", DeltaClass: "delta same"},
		}},
		{},
	}
	raws := rawDetails{Title: h, Raws: []rawView{
		{Label: h, Text: h, Generated: true, Caveats: []string{h, h + h}},
		{Text: h},
		{Label: "", Text: "", Caveats: []string{}},
	}}
	rows := []runRow{
		{Experiment: h, Profile: h, Status: h, Success: h, TotalTPS: h, OutputTPS: h, TTFT: h, TPOT: h, ITL: h,
			Sort: map[string]string{"success": h, "total": h, "output": h, "ttft": h, "tpot": h, "itl": h}, NoteIDs: []int{1}, Bad: true,
			File: breakable(h + "/x--y.json"), Path: h},
		{Experiment: h, Sort: map[string]string{"ttft": h}, NoteIDs: []int{-1, 0, 2}},
		{},
	}
	stepRows := []stepRow{
		{Name: h, Engine: h, GPUs: -3, Chosen: true, Cells: cells},
		{Name: h, Engine: "", GPUs: math.MaxInt64, Cells: cells[:1]},
	}
	exps := []expView{
		{Heading: "<h4 id=\"x\">" + template.HTML(template.HTMLEscapeString(h)) + "</h4>\n", Name: h, Note: h, Chosen: true, Command: template.HTML("<pre>" + template.HTMLEscapeString(h) + "</pre>"), Raw: raws},
		{Name: h, Chosen: true, Raw: rawDetails{Title: h}},
		{Name: h, Note: h, Raw: raws},
	}
	srows := []summaryRow{
		{Option: h, Chosen: h, Value: h, Sort: h, Inc: delta(0), Cum: delta(1), Remark: h, NoteIDs: []int{3}, Bad: true, Skipped: true},
		{Option: h, Chosen: h, Inc: delta(2), Cum: delta(3)},
		{Option: h, Value: h, Inc: delta(4), Cum: delta(5), Skipped: true},
		{Bad: true, Inc: delta(6), Cum: delta(7)},
	}
	total := &summaryRow{Option: h, Chosen: h, Value: h, Cum: delta(8)}
	metric := Metric{ID: h, Label: h, Name: h, Unit: h}
	cases := []caseView{
		{Heading: "<h4>x</h4>\n", Description: h, BaseName: h, OptName: h, BaseCommand: template.HTML(h), OptCommand: "", BaseRaw: raws, OptRaw: rawDetails{Title: h}},
		{BaseName: h, BaseRaw: rawDetails{Raws: raws.Raws[:1]}},
	}
	return map[string][]any{
		"runs": {
			&runsView{},
			&runsView{Rows: rows[:1], Notes: notes},
			&runsView{Rows: rows},
			&runsView{Rows: rows[1:], Notes: footnotes{List: notes.List[:1]}},
		},
		"step": {
			&stepView{},
			&stepView{Heading: template.HTML(h), Reference: h, Ranking: h},
			&stepView{Profiles: []string{h}, Reference: h, Rows: stepRows[:1], Notes: notes, Unfair: true},
			&stepView{Heading: "<h3>s</h3>", Profiles: []string{h, h, "p"}, Reference: h, Rows: stepRows, Ranking: h, Experiments: exps},
			&stepView{Experiments: exps[1:]},
		},
		"comparison": {
			&comparisonView{},
			&comparisonView{Baseline: h, Optimized: h, BaseGPUs: 1, OptGPUs: -2, Normalized: true, Notes: notes, Repeats: true},
			&comparisonView{Baseline: h, Optimized: h, Rows: []comparisonRow{{Profile: h, Description: h, Base: cells[0], Opt: cells[1]}}},
			&comparisonView{Baseline: h, Optimized: h, BaseGPUs: 8, OptGPUs: 1, Normalized: true, Repeats: k%2 == 0,
				Rows: []comparisonRow{{Profile: h, Base: cells[1], Opt: cells[2]}, {Description: h, Base: cells[3], Opt: cells[0]}}, Notes: footnotes{List: notes.List[:1]}},
		},
		"cases": {
			&casesView{},
			&casesView{Cases: cases[:1]},
			&casesView{Cases: cases},
		},
		"summary": {
			&summaryView{},
			&summaryView{Profile: h, Metric: metric, Rows: srows[:1]},
			&summaryView{Profile: h, Metric: metric, Normalized: true, Rows: srows, Total: total, Notes: notes, Unfair: true},
			&summaryView{Profile: h, Metric: metric, Total: &summaryRow{Cum: Delta{}}},
		},
	}
}

// TestGeneratedHostile renders blocks over hostile values both ways, by
// their generated writers and by html/template executing their templates
// in templates/blocks.html, and requires the same bytes: html/template
// escapes by the context each value lands in (text, attribute, URL,
// script, style), so a writer that escapes a value for the wrong context
// differs here on one of these strings.
func TestGeneratedHostile(t *testing.T) {
	tm, _, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, h := range hostileStrings {
		for name, views := range hostileViews(h, k) {
			for i, v := range views {
				compareGenerated(t, tm, name, v, fmt.Sprintf("view %d over %.40q", i, h))
				n++
			}
		}
	}
	t.Logf("%d block renderings compared", n)
}

// compareGenerated requires the generated writer of template name to
// write for v what html/template writes (not to hand it back).
func compareGenerated(t *testing.T, tm *template.Template, name string, v any, what string) {
	t.Helper()
	if tm.Lookup(builtinMarker) == nil {
		t.Fatal("the embedded templates lack the marker: the generated writers would not be used (run go generate ./render/blocks)")
	}
	var want, got bytes.Buffer
	if err := tm.ExecuteTemplate(&want, name, v); err != nil {
		t.Fatalf("%s %s: html/template: %v", name, what, err)
	}
	ok, err := writeGenerated(&got, name, v, execGenerated)
	if !ok {
		t.Fatalf("%s %s: no generated writer for %T", name, what, v)
	}
	if errors.Is(err, errFallback) {
		t.Fatalf("%s %s: the generated writer handed the template back to html/template", name, what)
	}
	if err != nil {
		t.Fatalf("%s %s: generated writer: %v", name, what, err)
	}
	if d := bytediff.At(got.String(), want.String(), 60); d != "" {
		t.Errorf("%s %s differs from html/template's %s", name, what, d)
	}
}

// TestEscapeTextContexts: escapeText against html/template in each
// context the Go-written blocks put a value in (element text, the title,
// class and data-sort attribute values, text inside <pre><code>,
// <summary>, <th> and <small>), over the hostile strings.
func TestEscapeTextContexts(t *testing.T) {
	ctxs := []string{
		`<p>{{.}}</p>`,
		`<td title="{{.}}">x</td>`,
		`<span class="{{.}}">x</span>`,
		`<td class="num" data-sort="{{.}}">x</td>`,
		`<pre><code>{{.}}</code></pre>`,
		`<details><summary>{{.}}</summary></details>`,
		`<th data-sort-type="number">Baseline: {{.}}</th>`,
		`<br><small>{{.}}</small>`,
	}
	for _, src := range ctxs {
		tm := template.Must(template.New("").Parse(src))
		pre, post, _ := strings.Cut(src, "{{.}}")
		for _, h := range hostileStrings {
			var want bytes.Buffer
			if err := tm.Execute(&want, h); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			got.WriteString(pre)
			escapeText(&got, h)
			got.WriteString(post)
			if got.String() != want.String() {
				t.Errorf("%s over %.40q:\n got %.200q\nwant %.200q", src, h, got.String(), want.String())
			}
		}
	}
}
