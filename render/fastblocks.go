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
func escapeText(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case 0:
			r = "\uFFFD"
		case '"':
			r = "&#34;"
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '+':
			r = "&#43;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(r)
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
func (c *pageCtx) writeRuns(v *runsView) (template.HTML, error) {
	b := c.site.bufs.get()
	defer c.site.bufs.put(b)
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
			return "", fmt.Errorf("template notes: %w", err)
		}
	}
	b.WriteString("\n")
	return template.HTML(b.String()), nil
}
