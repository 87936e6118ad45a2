package render

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
)

// builtinMarker names an empty template that loadTemplates adds to the
// embedded templates only. Blocks written by Go code (below) are used
// only when it is present: a --templates directory (perflab serve) may
// change any block, and then html/template renders it.
const builtinMarker = "_perflab_builtin"

// builtin reports whether c renders with the embedded templates.
func (c *pageCtx) builtin() bool { return c.t.Lookup(builtinMarker) != nil }

// The hottest blocks of a report page are written by Go code: executing
// html/template calls a reflective escaper per action, and the runs
// table (one row of 11 actions per run) was the largest part of
// rendering the 1,000-report site. Each writer produces exactly the bytes
// that its template in templates/blocks.html produces (TestFastBlocks
// compares them on the bundled site, the corpus and the synthetic site);
// a change to one must be made to the other.

// escapeText appends s escaped as html/template escapes a string in text
// and in quoted attribute values: its replacement table (NUL, ", &, ',
// +, <, >), and nothing else.
func escapeText(b *bytes.Buffer, s string) { escapeWith(b, s, &attrEscapes) }

// htmlEscape appends s escaped as template.HTMLEscapeString escapes it
// (NUL, ", &, ', <, >: no "+").
func htmlEscape(b *bytes.Buffer, s string) { escapeWith(b, s, &htmlEscapes) }

// escapeTable maps a byte to its replacement's index in escapeRepl, 0
// for a byte written as it is: a table lookup per byte, where a switch
// over seven cases was a tenth of rendering a report (raw outputs are
// kilobytes with nothing to escape).
type escapeTable [256]uint8

var escapeRepl = [...]string{1: "\uFFFD", 2: "&#34;", 3: "&amp;", 4: "&#39;", 5: "&#43;", 6: "&lt;", 7: "&gt;"}

var htmlEscapes = escapeTable{0: 1, '"': 2, '&': 3, '\'': 4, '<': 6, '>': 7}

var attrEscapes = func() escapeTable {
	t := htmlEscapes
	t['+'] = 5
	return t
}()

func escapeWith(b *bytes.Buffer, s string, t *escapeTable) {
	last := 0
	for i := 0; i < len(s); i++ {
		k := t[s[i]]
		if k == 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(escapeRepl[k])
		last = i + 1
	}
	b.WriteString(s[last:])
}

// writeNoteRefs is the "noterefs" template.
func writeNoteRefs(b *bytes.Buffer, ids []int) {
	for _, id := range ids {
		n := strconv.Itoa(id)
		b.WriteString(`<sup class="fn" title="see note `)
		b.WriteString(n)
		b.WriteString(` below">[`)
		b.WriteString(n)
		b.WriteString(`]</sup>`)
	}
}

const runsHead = `<div class="table-wrap">
<table class="sortable runs">
<thead><tr><th>Experiment</th><th>Profile</th><th>Status</th><th data-sort-type="number">Succeeded</th><th data-sort-type="number">Total TPS</th><th data-sort-type="number">Output TPS</th><th data-sort-type="number">Mean TTFT (ms)</th><th data-sort-type="number">Mean TPOT (ms)</th><th data-sort-type="number">Mean ITL (ms)</th><th>Result file</th></tr></thead>
<tbody>`

// writeRuns is the "runs" template.
func (c *pageCtx) writeRuns(b *bytes.Buffer, v *runsView) error {
	b.WriteString(runsHead)
	for i := range v.Rows {
		r := &v.Rows[i]
		b.WriteString("\n<tr")
		if r.Bad {
			b.WriteString(` class="bad"`)
		}
		b.WriteString("><td>")
		escapeText(b, r.Experiment)
		b.WriteString("</td><td>")
		escapeText(b, r.Profile)
		b.WriteString("</td><td>")
		escapeText(b, r.Status)
		writeNoteRefs(b, r.NoteIDs)
		b.WriteString("</td>")
		for _, col := range [...]struct {
			key string
			val *string
		}{{"success", &r.Success}, {"total", &r.TotalTPS}, {"output", &r.OutputTPS}, {"ttft", &r.TTFT}, {"tpot", &r.TPOT}, {"itl", &r.ITL}} {
			b.WriteString(`<td class="num" data-sort="`)
			escapeText(b, r.Sort[col.key])
			b.WriteString(`">`)
			escapeText(b, *col.val)
			b.WriteString("</td>")
		}
		b.WriteString(`<td><code title="`)
		escapeText(b, r.Path)
		b.WriteString(`">`)
		b.WriteString(string(r.File)) // template.HTML: as is
		b.WriteString("</code></td></tr>")
	}
	if len(v.Rows) == 0 {
		b.WriteString("\n" + `<tr><td colspan="10" class="missing">No runs recorded yet.</td></tr>`)
	}
	b.WriteString("\n</tbody>\n</table>\n</div>\n")
	if len(v.Notes.List) > 0 {
		if err := c.t.ExecuteTemplate(b, "notes", v.Notes); err != nil {
			return fmt.Errorf("template notes: %w", err)
		}
	}
	b.WriteString("\n")
	return nil
}

// writeCell is the "cell" template.
func writeCell(b *bytes.Buffer, cl *cell) {
	b.WriteString(`<td class="num`)
	if cl.Bad {
		b.WriteString(" bad")
	}
	b.WriteString(`" data-sort="`)
	escapeText(b, cl.Sort)
	b.WriteString(`">`)
	if cl.Missing != "" {
		b.WriteString(`<span class="missing">`)
		escapeText(b, cl.Missing)
		b.WriteString("</span>")
	}
	for i := range cl.Lines {
		l := &cl.Lines[i]
		if i > 0 {
			b.WriteString("<br>")
		}
		b.WriteString(`<span class="ln"><span class="k">`)
		escapeText(b, l.Label)
		b.WriteString(`:</span> <span class="v">`)
		escapeText(b, l.Value)
		b.WriteString("</span>")
		if l.Spread != "" {
			b.WriteString(` <span class="v">`)
			escapeText(b, l.Spread)
			b.WriteString("</span>")
		}
		if l.Delta != "" {
			b.WriteString(` <span class="`)
			escapeText(b, l.DeltaClass)
			b.WriteString(`"`)
			if l.DeltaClass == "delta na" {
				b.WriteString(` title="not a fair comparison: a smaller share of this run's requests succeeded than of the reference's"`)
			}
			b.WriteString(">(")
			b.WriteString(string(l.Delta)) // template.HTML: as is
			b.WriteString(")</span>")
		}
		b.WriteString("</span>")
		if l.PerGPU != "" {
			b.WriteString(` <small class="pergpu">(`)
			escapeText(b, l.PerGPU)
			b.WriteString(")</small>")
		}
	}
	writeNoteRefs(b, cl.Notes)
	b.WriteString("</td>")
}

// writeRawBody is the "rawbody" template.
func writeRawBody(b *bytes.Buffer, d *rawDetails) {
	for i := range d.Raws {
		r := &d.Raws[i]
		if r.Label != "" {
			b.WriteString(`<p class="raw-label">`)
			escapeText(b, r.Label)
			b.WriteString("</p>")
		}
		if len(r.Caveats) > 0 {
			b.WriteString(`<ul class="caveats">`)
			for _, cv := range r.Caveats {
				b.WriteString("<li>⚠ ")
				escapeText(b, cv)
				b.WriteString("</li>")
			}
			b.WriteString("</ul>")
		}
		if r.Generated {
			b.WriteString(`<p class="raw-note">No raw output was recorded for this run; this block is written from its recorded summary in the <code>vllm bench serve</code> layout.</p>`)
		}
		b.WriteString("\n" + `<div class="highlight raw"><button class="copy" type="button" title="Copy to clipboard" aria-label="Copy to clipboard">Copy</button><pre><code>`)
		escapeText(b, r.Text)
		b.WriteString("</code></pre></div>")
	}
	if len(d.Raws) == 0 {
		b.WriteString(`<p class="missing">No result recorded.</p>`)
	}
}

const stepHead = "\n" + `<div class="table-wrap">
<table class="sortable step">
<thead><tr><th>Experiment</th><th>Engine</th><th data-sort-type="number">`

// writeStep is the "step" template.
func (c *pageCtx) writeStep(b *bytes.Buffer, v *stepView) error {
	b.WriteString(string(v.Heading))
	if len(v.Rows) > 0 {
		b.WriteString(stepHead)
		escapeText(b, v.Unit)
		b.WriteString("s</th>")
		for _, p := range v.Profiles {
			b.WriteString(`<th data-sort-type="number">`)
			escapeText(b, p)
			b.WriteString("</th>")
		}
		b.WriteString("</tr></thead>\n<tbody>")
		for i := range v.Rows {
			r := &v.Rows[i]
			b.WriteString("\n<tr")
			if r.Chosen {
				b.WriteString(` class="chosen"`)
			}
			b.WriteString("><td>")
			escapeText(b, r.Name)
			if r.Chosen {
				b.WriteString(` <span class="badge">chosen</span>`)
			}
			b.WriteString("</td><td>")
			escapeText(b, r.Engine)
			g := strconv.Itoa(r.GPUs)
			b.WriteString(`</td><td class="num" data-sort="`)
			b.WriteString(g)
			b.WriteString(`">`)
			b.WriteString(g)
			b.WriteString("</td>")
			for j := range r.Cells {
				writeCell(b, &r.Cells[j])
			}
			b.WriteString("</tr>")
		}
		b.WriteString("\n</tbody>\n</table>\n</div>\n" + `<p class="legend">Deltas compare with the configuration carried into this step: `)
		escapeText(b, v.Reference)
		b.WriteString(".")
		if v.Unfair {
			b.WriteString(` <span class="delta na">Struck out</span>: not a fair comparison, a smaller share of the run's requests succeeded than of the reference's.`)
		}
		if v.Judged {
			b.WriteString(judgedLegend)
		}
		b.WriteString("</p>\n")
		if len(v.Notes.List) > 0 {
			if err := c.t.ExecuteTemplate(b, "notes", v.Notes); err != nil {
				return fmt.Errorf("template notes: %w", err)
			}
		}
	}
	if v.Ranking != "" {
		b.WriteString(`<p class="ranking"><strong>Result:</strong> `)
		escapeText(b, v.Ranking)
		b.WriteString("</p>")
	}
	for i := range v.Experiments {
		e := &v.Experiments[i]
		b.WriteString("\n")
		b.WriteString(string(e.Heading))
		if e.Heading == "" {
			b.WriteString(`<p class="exp-name"><strong>`)
			escapeText(b, e.Name)
			b.WriteString("</strong>")
			if e.Chosen {
				b.WriteString(` <span class="badge">chosen</span>`)
			}
			b.WriteString("</p>")
		}
		if e.Note != "" {
			b.WriteString("<p>")
			escapeText(b, e.Note)
			b.WriteString("</p>")
		}
		b.WriteString("\n<details class=\"info\">\n<summary>Serving script</summary>\n")
		b.WriteString(string(e.Command))
		b.WriteString("</details>\n<details class=\"info\">\n<summary>")
		escapeText(b, e.Raw.Title)
		b.WriteString("</summary>\n")
		writeRawBody(b, &e.Raw)
		b.WriteString("\n</details>")
	}
	b.WriteString("\n")
	return nil
}

const (
	comparisonRuleA         = `<p class="rule"><strong>Per-GPU normalisation:</strong> the baseline uses `
	comparisonRuleB         = ` and the optimized configuration `
	comparisonRuleC         = `, so throughput deltas compare throughput per GPU (total ÷ GPU count); the totals are shown as measured. Latencies are compared as measured.</p>`
	comparisonLegendRepeats = `<p class="legend">Values are means over each point's repeated runs ± their coefficient of variation (CV = standard deviation ÷ mean). Deltas compare the means with the baseline's and are tested with the two-sided Mann-Whitney U test at α = 0.05 (benchstat's test): <span class="delta better">green</span> is a significant improvement, <span class="delta worse">red</span> a significant regression, <span class="delta same">~</span> a difference within noise (p &gt; 0.05), with (p=… n=old+new); <span class="delta untested">grey</span>: too few runs to test (the test needs at least 4 per side, or unequal counts such as 3+5, to reach p ≤ 0.05), or 1 run each.</p>`
	comparisonLegendSingle  = `<p class="legend">1 run each: deltas are relative to the baseline's single run and are not tested for noise. <span class="delta better">green</span> is better (higher throughput, lower latency), <span class="delta worse">red</span> is worse, <span class="delta same">~</span> unchanged at one decimal; <span class="delta na">struck out</span>: not a fair comparison, a smaller share of the run's requests succeeded.</p>`
)

// writeComparison is the "comparison" template.
func (c *pageCtx) writeComparison(b *bytes.Buffer, v *comparisonView) error {
	b.WriteString("<div class=\"table-wrap\">\n<table class=\"sortable comparison\">\n<thead><tr><th>Benchmark Case</th><th data-sort-type=\"number\">Baseline: ")
	escapeText(b, v.Baseline)
	if v.Normalized {
		b.WriteString(" (")
		escapeText(b, gpuCount(v.BaseGPUs))
		b.WriteString(")")
	}
	b.WriteString(`</th><th data-sort-type="number">Optimized: `)
	escapeText(b, v.Optimized)
	if v.Normalized {
		b.WriteString(" (")
		escapeText(b, gpuCount(v.OptGPUs))
		b.WriteString(")")
	}
	b.WriteString("</th></tr></thead>\n<tbody>")
	for i := range v.Rows {
		r := &v.Rows[i]
		b.WriteString("\n<tr><td><strong>")
		escapeText(b, r.Profile)
		b.WriteString("</strong>")
		if r.Description != "" {
			b.WriteString("<br><small>")
			escapeText(b, r.Description)
			b.WriteString("</small>")
		}
		b.WriteString("</td>")
		writeCell(b, &r.Base)
		writeCell(b, &r.Opt)
		b.WriteString("</tr>")
	}
	if len(v.Rows) == 0 {
		b.WriteString("\n" + `<tr><td colspan="3" class="missing">No results for the baseline or the optimized configuration yet.</td></tr>`)
	}
	b.WriteString("\n</tbody>\n</table>\n</div>")
	if v.Normalized {
		b.WriteString("\n" + comparisonRuleA)
		escapeText(b, gpuCount(v.BaseGPUs))
		b.WriteString(comparisonRuleB)
		escapeText(b, gpuCount(v.OptGPUs))
		b.WriteString(comparisonRuleC)
	}
	if v.Repeats {
		b.WriteString("\n" + comparisonLegendRepeats)
	} else {
		b.WriteString("\n" + comparisonLegendSingle)
	}
	b.WriteString("\n")
	if len(v.Notes.List) > 0 {
		if err := c.t.ExecuteTemplate(b, "notes", v.Notes); err != nil {
			return fmt.Errorf("template notes: %w", err)
		}
	}
	b.WriteString("\n")
	return nil
}

// writeCases is the "cases" template.
func (c *pageCtx) writeCases(b *bytes.Buffer, v *casesView) error {
	for i := range v.Cases {
		cv := &v.Cases[i]
		b.WriteString(string(cv.Heading))
		if cv.Description != "" {
			b.WriteString("<p><small>")
			escapeText(b, cv.Description)
			b.WriteString("</small></p>")
		}
		writeCaseSide(b, "Baseline", cv.BaseName, cv.BaseCommand, &cv.BaseRaw)
		writeCaseSide(b, "Optimized", cv.OptName, cv.OptCommand, &cv.OptRaw)
	}
	if len(v.Cases) == 0 {
		b.WriteString(`<p class="missing">No results yet.</p>`)
	}
	b.WriteString("\n")
	return nil
}

// writeCaseSide writes one side of a case: its serving script and its
// benchmark result, each in a collapsed details element.
func writeCaseSide(b *bytes.Buffer, side, name string, command template.HTML, raw *rawDetails) {
	b.WriteString("\n<details class=\"info\"><summary>")
	b.WriteString(side)
	b.WriteString(" serving script (")
	escapeText(b, name)
	b.WriteString(")</summary>\n")
	b.WriteString(string(command))
	b.WriteString("</details>\n<details class=\"info\"><summary>")
	escapeText(b, raw.Title)
	b.WriteString("</summary>\n")
	writeRawBody(b, raw)
	b.WriteString("</details>")
}

const naTitle = ` title="not a fair comparison: a smaller share of this run's requests succeeded than of the reference's"`

// writeSummaryDelta is a delta cell of the "summary" template.
func writeSummaryDelta(b *bytes.Buffer, d Delta) {
	b.WriteString(`<td class="num" data-sort="`)
	if d.OK {
		escapeText(b, strconv.FormatFloat(d.Pct, 'f', 4, 64))
	}
	b.WriteString(`">`)
	if d.OK {
		b.WriteString(`<span class="`)
		escapeText(b, d.Class())
		b.WriteString(`"`)
		if d.NA {
			b.WriteString(naTitle)
		}
		b.WriteString(">")
		b.WriteString(string(d.HTML()))
		b.WriteString("</span>")
	} else {
		b.WriteString("–")
	}
	b.WriteString("</td>")
}

// writeSummary is the "summary" template.
func (c *pageCtx) writeSummary(b *bytes.Buffer, v *summaryView) error {
	b.WriteString("<div class=\"table-wrap\">\n<table class=\"sortable summary\">\n" + `<thead><tr><th>Optimization Option</th><th>Configuration</th><th data-sort-type="number">`)
	escapeText(b, v.Metric.Label)
	if v.Normalized {
		b.WriteString(" per GPU")
	}
	b.WriteString(" (")
	escapeText(b, v.Profile)
	b.WriteString(`)</th><th data-sort-type="number">Incremental</th><th data-sort-type="number">Cumulative (vs baseline)</th></tr></thead>` + "\n<tbody>")
	for i := range v.Rows {
		r := &v.Rows[i]
		b.WriteString("\n<tr class=\"")
		if r.Bad {
			b.WriteString("bad ")
		}
		if r.Skipped {
			b.WriteString("skipped")
		}
		b.WriteString(`"><td>`)
		escapeText(b, r.Option)
		b.WriteString("</td><td>")
		escapeText(b, r.Chosen)
		if r.Remark != "" {
			b.WriteString("<br><small>")
			escapeText(b, r.Remark)
			b.WriteString("</small>")
		}
		b.WriteString(`</td><td class="num" data-sort="`)
		escapeText(b, r.Sort)
		b.WriteString(`">`)
		escapeText(b, r.Value)
		writeNoteRefs(b, r.NoteIDs)
		b.WriteString("</td>")
		writeSummaryDelta(b, r.Inc)
		writeSummaryDelta(b, r.Cum)
		b.WriteString("</tr>")
	}
	b.WriteString("\n</tbody>")
	if t := v.Total; t != nil {
		b.WriteString("\n<tfoot><tr><th>")
		escapeText(b, t.Option)
		b.WriteString("</th><td>")
		escapeText(b, t.Chosen)
		b.WriteString(`</td><td class="num">`)
		escapeText(b, t.Value)
		b.WriteString(`</td><td></td><td class="num"><span class="`)
		escapeText(b, t.Cum.Class())
		b.WriteString(`">`)
		b.WriteString(string(t.Cum.HTML()))
		b.WriteString("</span></td></tr></tfoot>")
	}
	b.WriteString("\n</table>\n</div>\n<p class=\"legend\">")
	escapeText(b, v.Metric.Name)
	b.WriteString(" on ")
	escapeText(b, v.Profile)
	if v.Normalized {
		b.WriteString(", per GPU because the configurations use different GPU counts")
	}
	b.WriteString(". Incremental: against the configuration carried forward from the previous step; cumulative: against the baseline.")
	if v.Unfair {
		b.WriteString(` <span class="delta na">Struck out</span>: not a fair comparison, a smaller share of the run's requests succeeded than of the reference's.`)
	}
	if v.Judged {
		b.WriteString(judgedLegend)
	}
	b.WriteString("</p>\n")
	if len(v.Notes.List) > 0 {
		if err := c.t.ExecuteTemplate(b, "notes", v.Notes); err != nil {
			return fmt.Errorf("template notes: %w", err)
		}
	}
	b.WriteString("\n")
	return nil
}

// judgedLegend is the legend's sentence for deltas the U test does not
// show (the step and summary templates' {{if .Judged}}).
const judgedLegend = ` <span class="delta untested">Grey</span>: a difference between means of repeats that the Mann-Whitney U test does not show (too few runs to test, or ~ within noise).`
