package render

import (
	"bytes"
)

// The setup block's subsections (templates/blocks.html's setup-*
// templates) written by Go code, as fastblocks.go writes the runs and
// step tables: each report executed five small templates through
// html/template's reflective escapers. Every value lands in text or a
// quoted attribute value (escapeText); the commands are HTML already.
// TestFastBlocks compares whole sites built both ways; TestFastSetup
// compares hostile views.

// writeSetupSection writes the setup subsection template tmpl for v; it
// reports false for a name it does not know.
func writeSetupSection(b *bytes.Buffer, tmpl string, v *setupView) bool {
	switch tmpl {
	case "setup-model":
		b.WriteString("<p><code>")
		escapeText(b, v.ModelID)
		b.WriteString("</code>")
		if len(v.Variants) > 0 {
			b.WriteString(" (served variants: ")
			for i, s := range v.Variants {
				if i > 0 {
					b.WriteString(", ")
				}
				escapeText(b, s)
			}
			b.WriteString(")")
		}
		b.WriteString("</p>\n")
	case "setup-hardware":
		b.WriteString("<p>")
		escapeText(b, v.Hardware)
		b.WriteString(".</p>")
		if len(v.GPUs) > 0 {
			b.WriteString("\n<p>GPU inventory recorded with the results:</p>\n<ul>")
			for _, g := range v.GPUs {
				b.WriteString("<li>")
				escapeText(b, g)
				b.WriteString("</li>")
			}
			b.WriteString("</ul>")
		}
		b.WriteString("\n")
	case "setup-engines":
		b.WriteString("<ul>")
		for _, e := range v.Engines {
			b.WriteString("<li>")
			escapeText(b, e.Name)
			if e.Version != "" {
				b.WriteString(": ")
				escapeText(b, e.Version)
			}
			b.WriteString("</li>")
		}
		b.WriteString("</ul>\n")
	case "setup-profiles":
		b.WriteString(`<div class="table-wrap">
<table class="sortable profiles">
<thead><tr><th>Profile</th><th>Dataset</th><th>Input / output tokens</th><th data-sort-type="number">Prompts</th><th>Request rate (req/s)</th><th>Max concurrency</th><th>Seed</th></tr></thead>
<tbody>`)
		for _, p := range v.Profiles {
			b.WriteString("\n<tr><td>")
			escapeText(b, p.Name)
			b.WriteString("</td><td>")
			escapeText(b, p.Dataset)
			b.WriteString("</td><td>")
			escapeText(b, p.Tokens)
			b.WriteString(`</td><td class="num" data-sort="`)
			escapeText(b, p.Prompts)
			b.WriteString(`">`)
			escapeText(b, p.Prompts)
			b.WriteString("</td><td>")
			escapeText(b, p.Rate)
			b.WriteString("</td><td>")
			escapeText(b, p.Concurrency)
			b.WriteString("</td><td>")
			escapeText(b, p.Seed)
			b.WriteString("</td></tr>")
		}
		b.WriteString("\n</tbody>\n</table>\n</div>\n")
	case "setup-method":
		b.WriteString("<p>Measured with <strong>")
		escapeText(b, v.Tool)
		b.WriteString("</strong>.</p>\n<details class=\"info\"><summary>")
		if v.Rerun {
			b.WriteString("Commands to re-run each profile with perflab bench (the numbers on this page were measured with ")
			escapeText(b, v.Tool)
			b.WriteString(")")
		} else {
			b.WriteString("Benchmark commands, one per profile")
		}
		b.WriteString("</summary>\n")
		for _, c := range v.Commands {
			b.WriteString(`<p class="raw-label">`)
			escapeText(b, c.Profile)
			b.WriteString("</p>")
			b.WriteString(string(c.Code))
		}
		b.WriteString("</details>\n")
	default:
		return false
	}
	return true
}

// setupSection writes the setup subsection tmpl for v: by
// writeSetupSection with the embedded templates, else executed.
func (c *pageCtx) setupSection(w *bytes.Buffer, tmpl string, v *setupView) error {
	if c.builtin() && writeSetupSection(w, tmpl, v) {
		return nil
	}
	return c.execTo(w, tmpl, v)
}
