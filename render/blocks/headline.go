package blocks

import (
	"fmt"
	"html/template"
	"math"
	"strconv"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/site"
)

// The home page's two numbers per report, computed as the report's own
// blocks compute them, so that the overview never says what the report
// does not: for a campaign with an SLO and a sweep, the slo block's
// answer (the optimized configuration's throughput per GPU at its highest
// load meeting the SLO, against the baseline's at its own); otherwise the
// comparison table's means over the repeats, with the Mann-Whitney U
// test's verdict where there are repeats. A difference the test did not
// show is never coloured as a gain.

// Headline fills m's Best and Gain columns for report r.
func Headline(r *Report, m *ReportMeta) {
	m.Best = "—"
	oe, be := r.Optimized(), r.Baseline()
	if oe == nil || be == nil {
		return
	}
	runs := r.AllRuns()
	if len(r.Campaign.SLO) > 0 {
		if prof := r.SweepProfile(); prof != "" {
			sloHeadline(r, m, runs, prof, be, oe)
			return
		}
	}
	repeats := r.HasRepeats() || r.SweepProfile() != ""
	// Best: the highest mean total throughput of the optimized
	// configuration over its profiles and load points, as the comparison
	// table shows it (mean ± CV over the repeats).
	tps := site.MustMetric("total_token_throughput")
	best := stats.Sample{}
	bestNote := ""
	for _, p := range r.Campaign.Profiles {
		for _, pt := range analysis.Points(runs, p.ID) {
			g := analysis.Group(runs, oe.ID, p.ID, pt)
			if len(g) == 0 || !allSuccessful(g) {
				continue
			}
			s := stats.Summarize(analysis.Values(g, tps.Value, false))
			if s.N == 0 || s.Mean <= best.Mean {
				continue
			}
			best = s
			label := profileName(p)
			if pt.Sweep != "" {
				label += " @ " + pt.String()
			}
			bestNote = fmt.Sprintf("%s on %s, %s", oe.Name, label, r.UnitCount(r.GPUs(oe)))
			if s.N > 1 {
				bestNote += fmt.Sprintf(", mean of %d runs", s.N)
			}
		}
	}
	if best.N > 0 {
		m.Best = repeatValue(best) + " tok/s"
		m.BestSort = site.SortKey(best.Mean)
		m.BestNote = bestNote
	}
	// Gain: the primary metric on the first profile both ran, at the
	// point the step tables show (a sweep's highest load), per GPU when
	// the GPU counts differ.
	prim, _ := r.PrimaryMetrics()
	norm := r.GPUs(be) != r.GPUs(oe)
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil || opt == nil || !successfulEnough(base.Result) || !successfulEnough(opt.Result) {
			continue
		}
		note := prim.Label + " on " + pointLabel(r, p)
		if norm && prim.PerGPU {
			note += ", per " + r.Unit()
		}
		if !repeats {
			// One run each, as the report's single-run tables compare
			// them (the lab's convention; the report says "1 run").
			bv, _, ok1 := r.PointValue(base, prim)
			ov, _, ok2 := r.PointValue(opt, prim)
			if !ok1 || !ok2 {
				continue
			}
			d := site.Compare(site.Normalized(prim, bv, r.GPUs(be), norm), site.Normalized(prim, ov, r.GPUs(oe), norm), prim.HigherBetter)
			d.NA = site.LessSuccessful(opt.Result, base.Result)
			m.Gain, m.GainClass, m.GainSort = d.HTML(), d.Class(), strconv.FormatFloat(d.Pct, 'f', 4, 64)
			m.GainNote = note
			return
		}
		pt := schema.PointOf(opt.Result.Load)
		d := analysis.Compare(analysis.Group(runs, be.ID, p.ID, pt), analysis.Group(runs, oe.ID, p.ID, pt), prim.Value, norm && prim.PerGPU)
		if math.IsNaN(d.Pct) {
			continue
		}
		setGain(r, m, d, prim.HigherBetter, note)
		return
	}
}

// sloHeadline is the headline of a campaign with an SLO: the slo block's
// numbers for the optimized configuration and the baseline.
func sloHeadline(r *Report, m *ReportMeta, runs []analysis.Run, prof string, be, oe *schema.Experiment) {
	cs := curveSetOf(r, runs, prof, false)
	answers := analysis.SLOAnswers(cs.Curves, r.Campaign.SLO, r.Campaign.Cost, false)
	bi, oi := -1, -1
	for i, cv := range cs.Curves {
		switch cv.Experiment {
		case oe.ID:
			oi = i
		case be.ID:
			bi = i
		}
	}
	if oi < 0 {
		return
	}
	oa := answers[oi]
	if oa.Best < 0 {
		m.Best = "none"
		m.BestNote = fmt.Sprintf("%s meets the SLO (%s) at no measured load", oe.Name, sloText(r.Campaign.SLO))
		return
	}
	p := cs.Curves[oi].Points[oa.Best]
	m.Best = site.FmtNum(oa.ThroughputPerGPU) + " tok/s/" + r.Unit()
	if p.Total.N > 1 {
		m.Best = fmt.Sprintf("%s ± %.1f%% tok/s/%s", site.FmtNum(oa.ThroughputPerGPU), p.Total.CV*100, r.Unit())
	}
	m.BestSort = site.SortKey(oa.ThroughputPerGPU)
	m.BestNote = fmt.Sprintf("%s at the SLO (%s): %s, %s", oe.Name, sloText(r.Campaign.SLO), oa.Point, runsText(p.Runs))
	if bi < 0 {
		return
	}
	ba := answers[bi]
	note := "Total TPS per " + r.Unit() + " at the SLO, each at its highest load meeting it"
	if ba.Best < 0 {
		m.Gain, m.GainClass, m.GainSort = "baseline fails the SLO", "delta better", "1e9"
		m.GainNote = fmt.Sprintf("%s meets the SLO at no measured load", be.Name)
		return
	}
	get := func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true }
	d := analysis.Compare(analysis.Group(runs, be.ID, prof, ba.Point), analysis.Group(runs, oe.ID, prof, oa.Point), get, true)
	setGain(r, m, d, true, note)
}

// setGain writes a tested delta as the comparison table's cells write it:
// the change with its (p=… n=…) when significant, "~" within noise, the
// change in grey with "too few runs to test" when the test cannot decide.
func setGain(r *Report, m *ReportMeta, d stats.Delta, higherBetter bool, note string) {
	text, why := d.DeltaText()
	m.Gain = template.HTML(template.HTMLEscapeString(text))
	m.GainSort = strconv.FormatFloat(d.Pct, 'f', 4, 64)
	switch {
	case !d.Tested:
		m.GainClass = "delta untested"
		why += "; not shown to be a difference"
	case !d.Significant:
		m.GainClass = "delta same"
		why += ", within noise"
	case (d.Pct > 0) == higherBetter:
		m.GainClass = "delta better"
	default:
		m.GainClass = "delta worse"
	}
	if !d.Significant {
		m.GainSort = "0" // not a measured difference: sorts with the unchanged
	}
	m.GainNote = note + "; " + why
}

// allSuccessful: every run of a point has all its requests answered.
func allSuccessful(g []analysis.Run) bool {
	for _, run := range g {
		if run.Result.Status != schema.StatusSkipped && !site.Successful(run.Result) {
			return false
		}
	}
	return true
}

func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}

// judge re-judges d, the change from ref's point to run's, with the U
// test when either point has repeats (metric m, per GPU when perGPU):
// untested with too few runs, noise when the test finds none. Single runs
// each keep the plain delta (the lab's convention; the table says "1
// run").
func judge(r *Report, d *Delta, ref, run *Run, m Metric, perGPU bool) {
	if ref == nil || run == nil || !d.OK {
		return
	}
	runs := r.AllRuns()
	g := func(x *Run) []analysis.Run {
		return analysis.Group(runs, x.Result.Experiment, x.Result.Profile, schema.PointOf(x.Result.Load))
	}
	a, b := g(ref), g(run)
	if len(a) <= 1 && len(b) <= 1 {
		return
	}
	sd := analysis.Compare(a, b, m.Value, perGPU && m.PerGPU)
	switch {
	case !sd.Tested:
		d.Untested = true
	case !sd.Significant:
		d.Noise = true
	}
}

// ReportMeta is what the home page lists about a report.
type ReportMeta struct {
	Title, URL, Href, Model, Hardware, Engine, Objective string
	Best, BestSort, BestNote                             string
	Gain                                                 template.HTML
	GainClass, GainSort, GainNote                        string
	DataJSON, DataCSV, Campaign                          string
}
