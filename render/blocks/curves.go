package blocks

import (
	"bytes"
	"encoding/csv"
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

// Blocks of sweep campaigns: curve, latency-curve and slo. Their numbers
// come from render/analysis; this file formats them.

// curveSet is the curves of a sweep profile, one per experiment with
// points, in campaign order.
type curveSet struct {
	Unit    string // the accelerator's word (GPU, NPU, CPU)
	Profile schema.Profile
	Sweep   string
	Curves  []analysis.Curve
	Names   []string
	Colors  []string
	Output  bool
}

var curvePalette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

// curves gathers the curve set of block spec (its profile, or the first
// sweep profile; metric output_throughput plots output tokens).
func (c *Ctx) curves(spec BlockSpec) (*curveSet, error) {
	r := c.rep
	prof := spec.Profile
	if prof == "" {
		prof = r.SweepProfile()
	}
	runs := r.AllRuns()
	if prof == "" || !analysis.IsSweep(runs, prof) {
		if spec.Profile != "" {
			return nil, fmt.Errorf("block %s: profile %q has no sweep points in %s (a profile sweeps with max_concurrency: [1, 4, 16] or request_rate: [...])", spec.Block, prof, r.ResultsDir)
		}
		return nil, nil
	}
	output := false
	switch spec.Metric {
	case "", "total_token_throughput", "total_tps":
	case "output_throughput", "output_tps":
		output = true
	default:
		return nil, fmt.Errorf("block %s: field metric: %q (total_token_throughput or output_throughput)", spec.Block, spec.Metric)
	}
	return curveSetOf(r, runs, prof, output), nil
}

// curveSet gathers the curves of sweep profile prof, one per experiment
// with points, in campaign order: what the curve and slo blocks show and
// the home page's headline reads.
func curveSetOf(r *Report, runs []analysis.Run, prof string, output bool) *curveSet {
	p, _ := r.Campaign.Profile(prof)
	cs := &curveSet{Profile: *p, Output: output, Unit: r.Unit()}
	i := 0
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			cv := analysis.CurveOf(runs, e.ID, prof)
			if len(cv.Points) == 0 {
				continue
			}
			cs.Curves = append(cs.Curves, cv)
			cs.Names = append(cs.Names, e.Name)
			cs.Colors = append(cs.Colors, curvePalette[i%len(curvePalette)])
			i++
			if cs.Sweep == "" {
				cs.Sweep = cv.Points[0].Point.Sweep
			}
		}
	}
	return cs
}

func (cs *curveSet) tputName() string {
	if cs.Output {
		return "Output token throughput per " + cs.Unit
	}
	return "Total token throughput per " + cs.Unit
}

// pointWarnings are the tooltip lines that mark a point whose runs have
// caveats: its failed requests, then each run's warnings (client fell
// behind, partial success, a crashed repeat), shortened; the runs table
// and the raw outputs have them in full.
func (c *Ctx) pointWarnings(exp, prof string, p analysis.CurvePoint) []string {
	var out []string
	if p.Failed > 0 {
		out = append(out, fmt.Sprintf("✗ %d of %d requests failed", p.Failed, p.Requests))
	}
	runs := c.rep.RunsAt(exp, prof, p.Point)
	for _, run := range runs {
		for _, w := range site.Caveats(run.Result) {
			if p.Failed > 0 && strings.Contains(w, "requests succeeded") {
				continue // named above
			}
			if len(runs) > 1 {
				w = fmt.Sprintf("run %d: %s", run.Result.Repeat+1, w)
			}
			out = append(out, "⚠ "+shorten(w, 90))
		}
	}
	return out
}

// shorten cuts s to at most n runes at a word, with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); r[n] != ' ' && i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// pointTip is a point's tooltip lines.
func (cs *curveSet) pointTip(name string, p analysis.CurvePoint) []string {
	output := cs.Output
	t := p.Total
	if output {
		t = p.Output
	}
	tip := []string{name + " @ " + p.Point.String()}
	if t.N > 1 {
		tip = append(tip, fmt.Sprintf("%s tok/s/%s (mean of %d runs, CV %.1f%%)", site.FmtNum(t.Mean), cs.Unit, t.N, t.CV*100))
	} else {
		tip = append(tip, site.FmtNum(t.Mean)+" tok/s/"+cs.Unit)
	}
	tip = append(tip, fmt.Sprintf("%s tok/s/user", site.FmtNum(p.Interactivity)),
		"TTFT p50/p99 "+fmtMs(p.TTFTP50)+"/"+fmtMs(p.TTFTP99)+" ms",
		"TPOT p50/p99 "+fmtMs(p.TPOTP50)+"/"+fmtMs(p.TPOTP99)+" ms")
	return tip
}

func fmtMs(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f", v)
}

// fmtLimit prints an SLO limit as the campaign wrote it (12, 0.25), not
// rounded to a tenth: a 0.25 ms limit must not read 0.2.
func fmtLimit(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// curve renders throughput per GPU against interactivity, one line per
// experiment, with the Pareto frontier across experiments.
func (c *Ctx) curve(spec BlockSpec) (template.HTML, error) {
	cs, err := c.curves(spec)
	if err != nil || cs == nil {
		if err == nil {
			return `<p class="empty">No sweep results recorded yet.</p>`, nil
		}
		return "", err
	}
	panel := charts.XYPanel{XName: "Interactivity (tok/s/user = 1000 / median TPOT)", YName: cs.tputName() + " (tok/s)"}
	warned := false
	for i, cv := range cs.Curves {
		s := charts.XYSeries{Name: cs.Names[i], Color: cs.Colors[i]}
		for _, p := range cv.Points {
			if p.Runs == 0 {
				continue
			}
			tip := append(cs.pointTip(cs.Names[i], p), c.pointWarnings(cv.Experiment, cs.Profile.ID, p)...)
			warned = warned || len(tip) > len(cs.pointTip(cs.Names[i], p))
			s.Points = append(s.Points, charts.XYPoint{X: p.Interactivity, Y: p.Throughput(cs.Output), Tip: tip})
		}
		panel.Series = append(panel.Series, s)
	}
	front := analysis.Frontier(cs.Curves, cs.Output)
	fs := charts.XYSeries{Name: "Pareto frontier", Frontier: true}
	var holders []string
	for _, f := range front {
		p := cs.Curves[f.Curve].Points[f.Index]
		tip := append(cs.pointTip(cs.Names[f.Curve], p), c.pointWarnings(cs.Curves[f.Curve].Experiment, cs.Profile.ID, p)...)
		fs.Points = append(fs.Points, charts.XYPoint{X: f.X, Y: f.Y, Tip: tip})
	}
	for i := len(front) - 1; i >= 0; i-- { // from the most interactive end
		if n := cs.Names[front[i].Curve]; len(holders) == 0 || holders[len(holders)-1] != n {
			holders = append(holders, n)
		}
	}
	panel.Series = append(panel.Series, fs)
	title := spec.Title
	if title == "" {
		title = c.rep.ModelName() + " on " + c.rep.HardwareLabel() + ": " + strings.ToLower(cs.tputName()[:1]) + cs.tputName()[1:] + " vs interactivity (" + profileName(cs.Profile) + ")"
	}
	caption := fmt.Sprintf("One line per configuration over its %s sweep (points: mean of the repeats); right is faster per user, up is more throughput per "+cs.Unit+". The dashed grey line is the Pareto frontier across configurations", sweepNoun(cs.Sweep))
	if len(holders) > 0 {
		caption += ", held from the most interactive end by " + strings.Join(holders, ", then ")
	}
	caption += ". Hover a point for its load and latency percentiles; every point's numbers are in curves.csv beside this page."
	if warned {
		caption += " A point whose runs have warnings (failed requests, a client that fell behind) says so in its tooltip with ⚠ or ✗; the runs table has them in full."
	}
	ch := charts.Lines(c.nextChartID("curve"), []charts.XYPanel{panel})
	return c.html(func(w *bytes.Buffer) error { return c.chartHTML(w, ch, title, caption) })
}

func sweepNoun(sweep string) string {
	if sweep == schema.SweepRate {
		return "request-rate"
	}
	return "concurrency"
}

// latencyCurve renders TTFT and TPOT p50/p99 against the swept load, with
// the campaign's SLO limits drawn.
func (c *Ctx) latencyCurve(spec BlockSpec) (template.HTML, error) {
	cs, err := c.curves(spec)
	if err != nil || cs == nil {
		if err == nil {
			return `<p class="empty">No sweep results recorded yet.</p>`, nil
		}
		return "", err
	}
	xname := "Max concurrency"
	if cs.Sweep == schema.SweepRate {
		xname = "Request rate (req/s; inf left out)"
	}
	// Imported sweeps may differ in kind (a guidellm rate sweep beside a
	// vLLM concurrency sweep): the axis is one load, so an experiment's
	// points of the other kind are left out, and the caption says whose.
	var other []string
	for i, cv := range cs.Curves {
		for _, p := range cv.Points {
			if p.Runs > 0 && p.Point.Sweep != cs.Sweep {
				other = append(other, cs.Names[i])
				break
			}
		}
	}
	var panels []charts.XYPanel
	for _, m := range []struct{ metric, label string }{{"ttft", "TTFT"}, {"tpot", "TPOT"}} {
		panel := charts.XYPanel{Title: m.label + " (ms)", XName: xname, YName: m.label + " (ms)", XLog: true}
		for _, key := range c.rep.Campaign.SLO.Keys() {
			if strings.HasPrefix(key, m.metric+"_") {
				panel.Limits = append(panel.Limits, charts.Limit{Label: "SLO " + key + " ≤ " + fmtLimit(c.rep.Campaign.SLO[key]) + " ms", Y: c.rep.Campaign.SLO[key]})
			}
		}
		for i, cv := range cs.Curves {
			p50 := charts.XYSeries{Name: cs.Names[i] + " p50", Color: cs.Colors[i]}
			p99 := charts.XYSeries{Name: cs.Names[i] + " p99", Color: cs.Colors[i], Dashed: true}
			for _, p := range cv.Points {
				if p.Runs == 0 || p.Point.Value == 0 || p.Point.Sweep != cs.Sweep {
					continue
				}
				v50, v99 := p.TTFTP50, p.TTFTP99
				if m.metric == "tpot" {
					v50, v99 = p.TPOTP50, p.TPOTP99
				}
				tip := append(cs.pointTip(cs.Names[i], p), c.pointWarnings(cv.Experiment, cs.Profile.ID, p)...)
				p50.Points = append(p50.Points, charts.XYPoint{X: p.Point.Value, Y: v50, Tip: tip})
				p99.Points = append(p99.Points, charts.XYPoint{X: p.Point.Value, Y: v99, Tip: tip})
			}
			panel.Series = append(panel.Series, p50, p99)
		}
		panels = append(panels, panel)
	}
	title := spec.Title
	if title == "" {
		title = c.rep.ModelName() + " on " + c.rep.HardwareLabel() + ": latency vs load (" + profileName(cs.Profile) + ")"
	}
	caption := "TTFT and TPOT percentiles against the swept load (solid: p50, dashed: p99; means of the repeats)"
	if len(c.rep.Campaign.SLO) > 0 {
		caption += "; the red dashed lines are the campaign's SLO limits"
	}
	if len(other) > 0 {
		caption += fmt.Sprintf(". Points swept over another load than %s are left out (%s)", strings.TrimSuffix(strings.ToLower(xname), " (req/s; inf left out)"), strings.Join(other, ", "))
	}
	ch := charts.Lines(c.nextChartID("latency-curve"), panels)
	return c.html(func(w *bytes.Buffer) error { return c.chartHTML(w, ch, title, caption+".") })
}

// repeatCell formats a sample for a comparison cell: "1,234.56" for one
// run, "1,234.56 ± 2.1%" (mean, CV) for repeats.
func repeatValue(s stats.Sample) string {
	if mean, spread := repeatParts(s); spread != "" {
		return mean + " " + spread
	}
	return site.FmtNum(s.Mean)
}

// repeatParts is repeatValue in its two parts: "1,234.56" and "± 2.1%"
// ("" for one run).
func repeatParts(s stats.Sample) (mean, spread string) {
	if s.N > 1 {
		return site.FmtNum(s.Mean), fmt.Sprintf("± %.1f%%", s.CV*100)
	}
	return site.FmtNum(s.Mean), ""
}

func profileName(p schema.Profile) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}

// sweepSkeleton writes, for a report with sweep points, the curve, the
// SLO answer (when the campaign has an SLO) and the latency curve into
// the generated skeleton.
func (c *Ctx) sweepSkeleton(w *bytes.Buffer) error {
	blocks := []string{"curve"}
	if len(c.rep.Campaign.SLO) > 0 {
		blocks = append(blocks, "slo")
	}
	blocks = append(blocks, "latency-curve")
	// Every sweep profile gets its curves, not only the first.
	runs := c.rep.AllRuns()
	for _, p := range c.rep.Campaign.Profiles {
		if !analysis.IsSweep(runs, p.ID) {
			continue
		}
		for _, b := range blocks {
			if err := c.renderBlock(w, BlockSpec{Block: b, Profile: p.ID}); err != nil {
				return err
			}
		}
	}
	return nil
}

// CurvesCSV writes every sweep profile's curve points, one row per
// experiment and point (means over the repeats), with whether the point
// is on the profile's Pareto frontier (of total throughput per GPU); nil
// for a report without sweep points.
func CurvesCSV(r *Report) []byte {
	runs := r.AllRuns()
	var rows [][]string
	for _, p := range r.Campaign.Profiles {
		if !analysis.IsSweep(runs, p.ID) {
			continue
		}
		var curves []analysis.Curve
		for _, st := range r.Campaign.Steps {
			for _, e := range st.Experiments {
				if cv := analysis.CurveOf(runs, e.ID, p.ID); len(cv.Points) > 0 {
					curves = append(curves, cv)
				}
			}
		}
		front := map[[2]int]bool{}
		for _, f := range analysis.Frontier(curves, false) {
			front[[2]int{f.Curve, f.Index}] = true
		}
		num := func(v float64) string {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ""
			}
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		for ci, cv := range curves {
			for pi, pt := range cv.Points {
				total, cvTotal, output := math.NaN(), math.NaN(), math.NaN()
				if pt.Runs > 0 {
					total, cvTotal, output = pt.Total.Mean, pt.Total.CV, pt.Output.Mean
				}
				rows = append(rows, []string{cv.Experiment, p.ID, pt.Point.Sweep, num(pt.Point.Value), strconv.Itoa(pt.Runs), strconv.FormatBool(pt.Skipped),
					num(total), num(cvTotal), num(output), num(pt.Interactivity),
					num(pt.TTFTP50), num(pt.TTFTP99), num(pt.TPOTP50), num(pt.TPOTP99), num(pt.TokPerJ), strconv.FormatBool(front[[2]int{ci, pi}])})
			}
		}
	}
	if rows == nil {
		return nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"experiment", "profile", "sweep", "load", "runs", "skipped", "total_tok_per_s_per_gpu", "total_cv",
		"output_tok_per_s_per_gpu", "interactivity_tok_per_s_per_user", "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms",
		"output_tok_per_j", "on_frontier"})
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// pointLabel names a profile in blocks that show one run per experiment
// and profile: a sweep profile's run there is its highest recorded load
// point's (Report.Run), so the label says which: "Chat @ concurrency 64".
func pointLabel(r *Report, p schema.Profile) string {
	best, found := r.TopPoint(p.ID)
	if !found {
		return profileName(p)
	}
	return profileName(p) + " @ " + best.String()
}
