package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/perflab/perflab/render/markdown"
)

// Skeleton writes GPUStack's report skeleton (reference/gpustack-perflab.md
// §2) from the data, placing narrative sections whose heading matches a
// skeleton section in it and the others after the Conclusion.
func Skeleton(w *bytes.Buffer, c *Ctx, conv *markdown.Converter, doc *markdown.Document) error {
	k := &skeletonWriter{w: w, c: c, conv: conv, doc: doc, byTitle: map[string]*section{}, used: map[*section]bool{}}
	pre, secs := splitSections(doc)
	for _, sec := range secs {
		key := strings.ToLower(sec.title)
		if _, dup := k.byTitle[key]; !dup {
			k.byTitle[key] = sec
		}
	}
	if err := k.renderNodes(pre); err != nil {
		return err
	}
	r := c.rep
	if len(r.All) == 0 {
		fmt.Fprintf(w, `<div class="admonition warning"><p class="admonition-title">No results yet</p><p>No results were found for campaign <code>%s</code> in <code>%s/</code>. Run <code>perflab collect %s</code> or <code>perflab import</code>, then build again.</p></div>`+"\n",
			template.HTMLEscapeString(r.Campaign.ID), template.HTMLEscapeString(r.ResultsDir), template.HTMLEscapeString(r.CampaignFile))
	}
	for _, part := range []func() error{k.conclusion, func() error { return k.others(secs) }, k.objective, k.setup, k.results} {
		if err := part(); err != nil {
			return err
		}
	}
	return nil
}

// skeletonWriter writes one report's skeleton.
type skeletonWriter struct {
	w       *bytes.Buffer
	c       *Ctx
	conv    *markdown.Converter
	doc     *markdown.Document
	byTitle map[string]*section // the narrative's sections by lower-case title
	used    map[*section]bool
}

func (k *skeletonWriter) renderNodes(nodes []ast.Node) error {
	for _, n := range nodes {
		if err := k.conv.Render(k.w, k.doc, n); err != nil {
			return fmt.Errorf("render: %w", err)
		}
	}
	return nil
}

// open writes a skeleton section's heading (the narrative's own when it
// has the section) and returns the narrative nodes to place in it.
func (k *skeletonWriter) open(title string) ([]ast.Node, error) {
	sec := k.byTitle[strings.ToLower(title)]
	if sec == nil {
		k.c.headingTo(k.w, 2, title)
		return nil, nil
	}
	k.used[sec] = true
	if err := k.conv.Render(k.w, k.doc, sec.heading); err != nil {
		return nil, err
	}
	return sec.nodes, nil
}

// conclusion writes the Conclusion: the headline chart, the sweeps'
// curves, the recommended command and the comparison.
func (k *skeletonWriter) conclusion() error {
	w, c, r := k.w, k.c, k.c.rep
	nodes, err := k.open("Conclusion")
	if err != nil {
		return err
	}
	if r.HasSingleRuns() {
		m, _ := c.primary()
		if err := c.chart(w, m, ""); err != nil {
			return err
		}
	}
	// Sweeps: the curves and the SLO answer (sweep.go).
	if err := c.sweepSkeleton(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "<p>Recommended configuration for optimizing %s of %s on %s:</p>\n",
		template.HTMLEscapeString(r.Objective()), template.HTMLEscapeString(r.ModelName()), template.HTMLEscapeString(r.HardwareLabel()))
	if err := c.command(w, r.Optimized(), "Serving Command"); err != nil {
		return err
	}
	if len(r.All) > 0 {
		w.WriteString("<p>Comparison of benchmark results before and after optimization:</p>\n")
		if err := c.comparison(w); err != nil {
			return err
		}
		// Latency next to throughput: a gain in tokens per second can cost
		// time per token.
		if r.HasSingleRuns() {
			if err := c.latencyChart(w, ""); err != nil {
				return err
			}
		}
	}
	return k.renderNodes(nodes)
}

// others writes the narrative sections the skeleton has no place for.
func (k *skeletonWriter) others(secs []*section) error {
	skeletonTitles := map[string]bool{"conclusion": true, "optimization objective": true, "experimental setup": true,
		"experiment results": true, "summary of optimization options": true, "other benchmark cases": true, "all runs": true,
		"history": len(k.c.rep.Rounds) >= 2}
	for _, sec := range secs {
		if skeletonTitles[strings.ToLower(sec.title)] || k.used[sec] {
			continue
		}
		k.used[sec] = true
		if err := k.conv.Render(k.w, k.doc, sec.heading); err != nil {
			return err
		}
		if err := k.renderNodes(sec.nodes); err != nil {
			return err
		}
	}
	return nil
}

// objective writes the Optimization Objective (when stated).
func (k *skeletonWriter) objective() error {
	r := k.c.rep
	if r.Campaign.ObjectiveStatement == "" && k.byTitle["optimization objective"] == nil {
		return nil
	}
	nodes, err := k.open("Optimization Objective")
	if err != nil {
		return err
	}
	if r.Campaign.ObjectiveStatement != "" && len(nodes) == 0 {
		fmt.Fprintf(k.w, "<p>%s</p>\n", template.HTMLEscapeString(r.Campaign.ObjectiveStatement))
	}
	return k.renderNodes(nodes)
}

// setup writes the Experimental Setup, the narrative's subsections
// among the generated ones.
func (k *skeletonWriter) setup() error {
	nodes, err := k.open("Experimental Setup")
	if err != nil {
		return err
	}
	var prose map[string]*ast.Heading
	if sec := k.byTitle["experimental setup"]; sec != nil && sec.heading.NextSibling() != nil {
		prose = setupProse(k.doc, sec.heading.NextSibling())
	}
	if err := k.c.setup(k.w, prose); err != nil {
		return err
	}
	if len(prose) > 0 {
		// setup placed generated parts among the section's nodes.
		nodes = nodes[:0:0]
		for n := k.byTitle["experimental setup"].heading.NextSibling(); n != nil; n = n.NextSibling() {
			if h, ok := n.(*ast.Heading); ok && h.Level <= 2 {
				break
			}
			nodes = append(nodes, n)
		}
	}
	return k.renderNodes(nodes)
}

// results writes Experiment Results (narrative preamble first, then one
// section per step), the Summary of Optimization Options, Other
// Benchmark Cases and All Runs.
func (k *skeletonWriter) results() error {
	w, c := k.w, k.c
	nodes, err := k.open("Experiment Results")
	if err != nil {
		return err
	}
	if err := k.renderNodes(nodes); err != nil {
		return err
	}
	for i := range c.rep.Campaign.Steps {
		if err := c.step(w, i, true); err != nil {
			return err
		}
	}
	if nodes, err = k.open("Summary of Optimization Options"); err != nil {
		return err
	}
	if err := c.summary(w, ""); err != nil {
		return err
	}
	if err := k.renderNodes(nodes); err != nil {
		return err
	}
	if nodes, err = k.open("Other Benchmark Cases"); err != nil {
		return err
	}
	w.WriteString("<p>The baseline and the optimized configuration on every benchmark case, to show how the optimization generalizes across workloads.</p>\n")
	if err := c.cases(w); err != nil {
		return err
	}
	if err := k.renderNodes(nodes); err != nil {
		return err
	}
	if len(c.rep.Rounds) >= 2 { // the campaign's rounds (history.go)
		if nodes, err = k.open("History"); err != nil {
			return err
		}
		if err := c.historyBlock(w, ""); err != nil {
			return err
		}
		if err := k.renderNodes(nodes); err != nil {
			return err
		}
	}
	if nodes, err = k.open("All Runs"); err != nil {
		return err
	}
	if err := c.runs(w); err != nil {
		return err
	}
	return k.renderNodes(nodes)
}

// section is a run of top-level narrative nodes under one level-2 heading.

// section is a run of top-level narrative nodes under one level-2 heading.
type section struct {
	title   string
	heading *ast.Heading
	nodes   []ast.Node
}

func splitSections(doc *markdown.Document) (pre []ast.Node, secs []*section) {
	var cur *section
	for n := doc.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			cur = &section{title: doc.HeadingText(h), heading: h}
			secs = append(secs, cur)
			continue
		}
		if cur == nil {
			pre = append(pre, n)
		} else {
			cur.nodes = append(cur.nodes, n)
		}
	}
	return pre, secs
}

// WriteStaleWarning writes the warning atop a report whose results
// directory holds results the campaign no longer defines (Report.Stale):
// they are left out of every block, and the page says which and why;
// nothing when none.
func WriteStaleWarning(b *bytes.Buffer, r *Report) {
	if r == nil || len(r.Stale) == 0 {
		return
	}
	esc := template.HTMLEscapeString
	noun := "results"
	if len(r.Stale) == 1 {
		noun = "result"
	}
	fmt.Fprintf(b, `<div class="admonition warning"><p class="admonition-title">%d %s left out</p><p><code>%s</code> holds %d %s that <code>%s</code> no longer defines (an experiment or profile taken out of the campaign, a sweep point taken out of a profile, or a repeat beyond its <code>repeats</code>). They are left out of every table, curve and comparison on this page; delete them, put them back in the campaign, or, in a lab with rounds, collect the next round, to silence this warning.</p>`,
		len(r.Stale), noun, esc(r.ResultsDir), len(r.Stale), noun, esc(r.CampaignFile))
	b.WriteString(`<details class="info"><summary>Files left out</summary><ul>`)
	for _, st := range r.Stale {
		fmt.Fprintf(b, "<li><code>%s</code>: %s</li>", esc(st.Run.File), esc(st.Why))
	}
	b.WriteString("</ul></details></div>\n")
}

// WriteRedefinedWarning writes the warning atop a report showing runs
// perflab collect measured under an older definition of their run than
// the campaign's today (Report.Redefined: the campaign changed a
// profile's workload or an engine's command since, and those runs were
// not measured again); nothing when none.
func WriteRedefinedWarning(b *bytes.Buffer, r *Report) {
	if r == nil || len(r.Redefined) == 0 {
		return
	}
	esc := template.HTMLEscapeString
	noun, verb := "runs", "were"
	if len(r.Redefined) == 1 {
		noun, verb = "run", "was"
	}
	fmt.Fprintf(b, `<div class="admonition warning"><p class="admonition-title">%d %s of an older definition</p><p>%d %s on this page %s measured before <code>%s</code> changed them (a profile&#39;s workload, an experiment&#39;s command, arguments, version or GPUs): their numbers do not measure the campaign as it stands, and a comparison with a run measured since compares two workloads or configurations. <code>perflab collect</code> measures them again (in a new round: <code>--new-round</code>).</p>`,
		len(r.Redefined), noun, len(r.Redefined), noun, verb, esc(r.CampaignFile))
	b.WriteString(`<details class="info"><summary>Runs of an older definition</summary><ul>`)
	for _, run := range r.Redefined {
		where := ""
		if run.Round != "" {
			where = " (from round " + esc(run.Round) + ")"
		}
		fmt.Fprintf(b, "<li><code>%s</code>%s</li>", esc(run.File), where)
	}
	b.WriteString("</ul></details></div>\n")
}

// WriteCarriedNote writes the line atop a report whose shown round
// measured only part of its runs (site.Report.CarriedRuns: an
// interrupted or partial round, `collect --new-round --only …`): how
// many it measured, and which earlier rounds the others come from;
// nothing when every run is the shown round's own.
func WriteCarriedNote(b *bytes.Buffer, r *Report) {
	if r == nil {
		return
	}
	c, ok := r.CarriedRuns()
	if !ok {
		return
	}
	esc := template.HTMLEscapeString
	notOK := ""
	if len(c.NotOK) > 0 {
		var parts []string
		for _, st := range slices.Sorted(maps.Keys(c.NotOK)) {
			n := c.NotOK[st]
			if n == c.Measured {
				parts = append(parts, fmt.Sprintf("all %s", st))
				if n == 1 {
					parts[len(parts)-1] = string(st)
				}
				continue
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
		notOK = " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(b, `<div class="admonition info carried"><p>The latest round, <code>%s</code>, measured %d of the %d runs on this page%s; the others are the newest earlier results of their configurations, marked in the runs table: `,
		esc(c.Shown), c.Measured, c.Runs, notOK)
	for i, f := range c.From {
		if i > 0 {
			b.WriteString(", ")
		}
		noun := "runs"
		if f.Runs == 1 {
			noun = "run"
		}
		fmt.Fprintf(b, "%d %s from round <code>%s</code>", f.Runs, noun, esc(f.Round))
	}
	b.WriteString(".</p></div>\n")
}
