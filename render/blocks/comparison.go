package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/charts"
	"github.com/perflab/perflab/render/site"
)

// ---- comparison ----

type comparisonView struct {
	Baseline, Optimized string
	BaseGPUs, OptGPUs   int
	Normalized          bool
	Metrics             []Metric
	Rows                []comparisonRow
	Notes               footnotes
	// Repeats: the cells are means over repeated runs with their spread,
	// and deltas carry the Mann-Whitney U test (see repeatCell).
	Repeats bool
}

type comparisonRow struct {
	Profile, Description string
	Base, Opt            cell
}

func (c *Ctx) comparison(w *bytes.Buffer) error {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	p1, p2 := c.primary()
	v := comparisonView{Baseline: be.Name, Optimized: oe.Name, BaseGPUs: r.GPUs(be), OptGPUs: r.GPUs(oe), Metrics: []Metric{p1, p2}}
	v.Normalized = v.BaseGPUs != v.OptGPUs
	if r.HasRepeats() || r.SweepProfile() != "" {
		v.Repeats = true
		c.repeatRows(&v, be.ID, oe.ID)
		return c.comparisonHTML(w, &v)
	}
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil && opt == nil {
			continue
		}
		row := comparisonRow{Profile: p.Name, Description: profileDescription(p)}
		// The baseline's cell shows its per-GPU value too when the counts
		// differ: the optimized cell's delta compares with it.
		row.Base = c.cellOf(base, nil, v.Metrics, v.BaseGPUs, v.OptGPUs, &v.Notes)
		row.Opt = c.cellOf(opt, base, v.Metrics, v.OptGPUs, v.BaseGPUs, &v.Notes)
		v.Rows = append(v.Rows, row)
	}
	return c.comparisonHTML(w, &v)
}

// repeatRows fills the comparison with one row per profile and load
// point, each cell the mean of the point's repeats with its CV and the
// optimized cell's delta tested with the Mann-Whitney U test.
func (c *Ctx) repeatRows(v *comparisonView, base, opt string) {
	r := c.rep
	runs := r.AllRuns()
	for _, p := range r.Campaign.Profiles {
		for _, pt := range analysis.Points(runs, p.ID) {
			bg, og := analysis.Group(runs, base, p.ID, pt), analysis.Group(runs, opt, p.ID, pt)
			if len(bg) == 0 && len(og) == 0 {
				continue
			}
			row := comparisonRow{Profile: p.Name, Description: profileDescription(p.At(pt))}
			if pt.Sweep != "" {
				// The point names the row; the profile is described once,
				// in the setup, not in every row of its sweep.
				row.Profile, row.Description = p.Name+" @ "+pt.String(), ""
			}
			row.Base = c.repeatCell(bg, nil, v.Metrics, v.BaseGPUs, v.OptGPUs, &v.Notes)
			row.Opt = c.repeatCell(og, bg, v.Metrics, v.OptGPUs, v.BaseGPUs, &v.Notes)
			v.Rows = append(v.Rows, row)
		}
	}
}

// repeatCell is cellOf for the repeats of one point: the mean ± CV of
// each metric over the runs with numbers and, against ref, the change of
// the means with benchstat's verdict: "~" within noise, the change with
// (p=… n=…+…) when significant, and "n=…: too few runs to test" or "1 run
// each" when the test cannot decide.
func (c *Ctx) repeatCell(g, ref []analysis.Run, ms []Metric, gpus, refGPUs int, fn *footnotes) cell {
	if len(g) == 0 {
		return cell{Missing: "no result"}
	}
	var out cell
	withNumbers := 0
	for _, run := range g {
		for _, rr := range c.rep.All {
			if rr.Result == run.Result {
				out.Notes = append(out.Notes, fn.refs(c, rr)...)
			}
		}
		if successfulEnough(run.Result) {
			withNumbers++
		}
		if !site.Successful(run.Result) {
			out.Bad = true
		}
	}
	if withNumbers == 0 {
		out.Missing = string(g[0].Result.Status)
		return out
	}
	normalize := gpus != refGPUs
	for i, m := range ms {
		get := analysis.Getter(m.Value)
		perGPU := normalize && m.PerGPU
		vals := analysis.Values(g, get, false)
		if len(vals) == 0 {
			out.Lines = append(out.Lines, cellLine{Label: m.LabelFor(g[0].Result), Value: "—"})
			continue
		}
		sample := stats.Summarize(vals)
		mean, spread := repeatParts(sample)
		l := cellLine{Label: m.LabelFor(g[0].Result), Value: mean, Spread: spread}
		if perGPU && gpus > 1 {
			l.PerGPU = site.FmtNum(sample.Mean/float64(gpus)) + " per GPU"
		}
		if i == 0 {
			out.Sort = site.SortKey(sample.Mean)
		}
		if len(ref) > 0 {
			d := analysis.Compare(ref, g, get, perGPU)
			if !math.IsNaN(d.Pct) {
				text, note := d.DeltaText()
				if note != "" {
					text += ", " + note
				}
				l.Delta = template.HTML(template.HTMLEscapeString(text))
				switch {
				case !d.Tested:
					l.DeltaClass = "delta untested"
				case !d.Significant:
					l.DeltaClass = "delta same"
				case (d.Pct > 0) == m.HigherBetter:
					l.DeltaClass = "delta better"
				default:
					l.DeltaClass = "delta worse"
				}
			}
		}
		out.Lines = append(out.Lines, l)
	}
	return out
}

func profileDescription(p schema.Profile) string {
	if p.Description != "" {
		return p.Description
	}
	var parts []string
	if p.Dataset != "" {
		parts = append(parts, p.Dataset)
	}
	if p.InputLen > 0 || p.OutputLen > 0 {
		parts = append(parts, strconv.Itoa(p.InputLen)+" in / "+strconv.Itoa(p.OutputLen)+" out tokens")
	}
	if p.NumPrompts > 0 {
		parts = append(parts, strconv.Itoa(p.NumPrompts)+" prompts")
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, "concurrency "+strconv.Itoa(p.MaxConcurrency))
	}
	if p.RequestRate > 0 {
		parts = append(parts, fmt.Sprintf("%g req/s", p.RequestRate))
	}
	return strings.Join(parts, ", ")
}

// ---- charts ----

func (c *Ctx) chartHTML(w *bytes.Buffer, ch charts.Chart, title, caption string) error {
	js, err := ch.JSON()
	if err != nil {
		return err
	}
	w.WriteString(`<figure class="chart-figure"><p class="chart-title">`)
	htmlEscape(w, title)
	w.WriteString(`</p><div class="chart" id="`)
	w.WriteString(ch.ID)
	w.WriteString(`" style="height:`)
	w.WriteString(strconv.Itoa(ch.Height))
	w.WriteString(`px" data-chart="`)
	w.WriteString(ch.ID)
	w.WriteString(`-option" role="img" aria-label="`)
	htmlEscape(w, title)
	w.WriteString(": ")
	htmlEscape(w, caption)
	w.WriteString(`"></div><script type="application/json" id="`)
	w.WriteString(ch.ID)
	w.WriteString(`-option">`)
	w.Write(js)
	w.WriteString(`</script><figcaption>`)
	htmlEscape(w, caption)
	w.WriteString("</figcaption></figure>\n")
	return nil
}

func (c *Ctx) nextChartID(kind string) string {
	c.charts++
	return "chart-" + kind + "-" + strconv.Itoa(c.charts)
}

func (c *Ctx) chart(w *bytes.Buffer, m Metric, title string) error {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	bg, og := r.GPUs(be), r.GPUs(oe)
	normalize := bg != og && m.PerGPU
	yname := m.Name + " (" + m.Unit + ")"
	if normalize {
		yname = m.Name + " per GPU (" + m.Unit + ")"
	}
	panel := charts.Panel{YName: yname}
	base := charts.Series{Name: "Baseline: " + be.Name}
	opt := charts.Series{Name: "Optimized: " + oe.Name}
	for _, p := range r.Campaign.Profiles {
		bv := c.metricValue(r.Run(be.ID, p.ID), m)
		ov := c.metricValue(r.Run(oe.ID, p.ID), m)
		if bv == nil && ov == nil {
			continue
		}
		if normalize {
			bv, ov = div(bv, bg), div(ov, og)
		}
		panel.Categories = append(panel.Categories, pointLabel(r, p))
		base.Values = append(base.Values, bv)
		opt.Values = append(opt.Values, ov)
		label := ""
		if bv != nil && ov != nil {
			d := site.Compare(*bv, *ov, m.HigherBetter)
			label = strconv.FormatFloat(*ov, 'f', 2, 64) + "\n" + d.String()
		}
		base.Labels = append(base.Labels, "")
		opt.Labels = append(opt.Labels, label)
	}
	panel.Series = []charts.Series{base, opt}
	if title == "" {
		title = r.ModelName() + " on " + r.HardwareLabel() + ": baseline vs optimized"
	}
	caption := m.Name + ", baseline vs optimized, per benchmark case"
	if normalize {
		caption += fmt.Sprintf(" (per GPU: the baseline uses %d GPUs, the optimized configuration %d)", bg, og)
	}
	return c.chartHTML(w, charts.Bars(c.nextChartID("bar"), charts.Grouped{Panels: []charts.Panel{panel}}), title, caption)
}

func div(v *float64, n int) *float64 {
	if v == nil || n <= 0 {
		return v
	}
	x := *v / float64(n)
	return &x
}

// metricValue returns the metric of a run that has numbers, else nil (a
// gap in the chart; failed runs are not drawn as zero).
func (c *Ctx) metricValue(run *Run, m Metric) *float64 {
	if run == nil || run.Result.Summary == nil || run.Result.Summary.Completed == 0 {
		return nil
	}
	v, _, ok := c.rep.PointValue(run, m)
	if !ok {
		return nil
	}
	return &v
}

func (c *Ctx) latencyChart(w *bytes.Buffer, title string) error {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	var panels []charts.Panel
	for _, id := range []string{"mean_ttft", "mean_tpot", "mean_e2el"} {
		m := site.MustMetric(id)
		panel := charts.Panel{Title: m.Name + " (" + m.Unit + ")"}
		base := charts.Series{Name: "Baseline: " + be.Name}
		opt := charts.Series{Name: "Optimized: " + oe.Name}
		any := false
		for _, p := range r.Campaign.Profiles {
			bv := c.metricValue(r.Run(be.ID, p.ID), m)
			ov := c.metricValue(r.Run(oe.ID, p.ID), m)
			if bv == nil && ov == nil {
				continue
			}
			any = true
			panel.Categories = append(panel.Categories, pointLabel(r, p))
			base.Values = append(base.Values, bv)
			opt.Values = append(opt.Values, ov)
			label := ""
			if bv != nil && ov != nil {
				label = strconv.FormatFloat(*ov, 'f', 2, 64) + "\n" + site.Compare(*bv, *ov, false).String()
			}
			base.Labels = append(base.Labels, "")
			opt.Labels = append(opt.Labels, label)
		}
		if any {
			panel.Series = []charts.Series{base, opt}
			panels = append(panels, panel)
		}
	}
	if title == "" {
		title = r.ModelName() + " on " + r.HardwareLabel() + ": latency, baseline vs optimized (lower is better)"
	}
	if len(panels) == 0 {
		w.WriteString(`<p class="empty">No latency data recorded yet.</p>`)
		return nil
	}
	return c.chartHTML(w, charts.Bars(c.nextChartID("latency"), charts.Grouped{Panels: panels}), title, "Latency per benchmark case (ms; lower is better); labels give the optimized value and its change")
}

func (c *Ctx) comparisonHTML(w *bytes.Buffer, v *comparisonView) error {
	return c.execTo(w, "comparison", v)
}
