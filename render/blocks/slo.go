package blocks

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/site"
)

// The slo block: per experiment the highest load meeting the campaign's
// SLO, its throughput per GPU, cost and energy, the winner and whether
// its lead is real.

// sloView is the slo block's table.
type sloView struct {
	SLO, Price, Load, TputName string
	Unit                       string // GPU, NPU, CPU
	Rows                       []sloRow
	Answer                     template.HTML
	Energy, Cost               bool
	// Notes are the caveats of the runs at each row's load.
	Notes footnotes
}

type sloRow struct {
	Name, Load, Tput, Cost, TokPerJ, Runs string
	TputSort                              string
	Checks                                []string
	Winner, None                          bool
	// NoteIDs mark the row's load when its runs have caveats; Bad when
	// one has failed requests or did not finish.
	NoteIDs []int
	Bad     bool
}

// slo renders each experiment's highest load meeting the campaign's SLO.
func (c *Ctx) slo(spec BlockSpec) (template.HTML, error) {
	r := c.rep
	if len(r.Campaign.SLO) == 0 {
		return "", fmt.Errorf("block slo: the campaign has no slo (add slo: {ttft_p99: 2000, tpot_p99: 50} to %s)", r.CampaignFile)
	}
	cs, err := c.curves(spec)
	if err != nil {
		return "", err
	}
	if cs == nil {
		return `<p class="empty">No sweep results recorded yet.</p>`, nil
	}
	answers := analysis.SLOAnswers(cs.Curves, r.Campaign.SLO, r.Campaign.Cost, cs.Output)
	v := sloView{SLO: sloText(r.Campaign.SLO), TputName: cs.tputName(), Cost: r.Campaign.Cost != nil, Unit: cs.Unit}
	if r.Campaign.Cost != nil {
		v.Price = fmt.Sprintf("$%.2f per %s-hour", r.Campaign.Cost.GPUHourUSD, cs.Unit)
	}
	win, second := -1, -1
	for i, a := range answers {
		if a.Best < 0 {
			continue
		}
		if a.Winner {
			win = i
		} else if second < 0 || a.ThroughputPerGPU > answers[second].ThroughputPerGPU {
			second = i
		}
	}
	// The badge crowns a winner only when its lead over the runner-up is
	// shown to be real (or nothing else meets the SLO): a lead within noise
	// is no win (sloAnswer says what it is).
	lead, shown := c.sloLead(cs, answers, win, second)
	for i, a := range answers {
		row := sloRow{Name: cs.Names[i], None: a.Best < 0, Winner: a.Winner && shown}
		for _, ch := range a.Checks {
			mark := "✓"
			if !ch.Met {
				mark = "✗"
			}
			val := "not recorded"
			if ch.Found {
				// No break between the value and its unit: a narrow
				// Limits column wrapped "10.6" and "ms" onto two lines.
				val = fmtMs(ch.ValueMs) + "\u00a0ms"
			}
			row.Checks = append(row.Checks, fmt.Sprintf("%s %s %s", mark, sloLabel(ch.Key), val))
		}
		if a.Failed > 0 {
			row.Checks = append(row.Checks, fmt.Sprintf("✗ %d of %d requests failed", a.Failed, a.Requests))
		}
		if a.Point.Sweep != "" {
			for _, run := range r.RunsAt(cs.Curves[i].Experiment, cs.Profile.ID, a.Point) {
				if n := v.Notes.add(c, run); n > 0 {
					row.NoteIDs = append(row.NoteIDs, n)
					row.Bad = row.Bad || !site.Successful(run.Result)
				}
			}
		}
		if a.Best < 0 {
			row.Load = "none (lowest load: " + a.Point.String() + ")"
			row.Tput, row.Cost, row.TokPerJ, row.TputSort = "—", "—", "—", "-1"
		} else {
			p := cs.Curves[i].Points[a.Best]
			row.Load = a.Point.String()
			row.Runs = fmt.Sprintf("%d runs", p.Runs)
			if p.Runs == 1 {
				row.Runs = "1 run"
			}
			t := p.Total
			if cs.Output {
				t = p.Output
			}
			row.Tput = site.FmtNum(a.ThroughputPerGPU)
			if t.N > 1 {
				row.Tput += fmt.Sprintf(" ± %.1f%%", t.CV*100)
			}
			row.TputSort = site.SortKey(a.ThroughputPerGPU)
			row.Cost, row.TokPerJ = "—", "—"
			if !math.IsNaN(a.CostPerMTok) {
				row.Cost = fmt.Sprintf("$%.3f", a.CostPerMTok)
			}
			if !math.IsNaN(a.TokPerJ) {
				row.TokPerJ = fmt.Sprintf("%.2f", a.TokPerJ)
				v.Energy = true
			}
		}
		v.Rows = append(v.Rows, row)
	}
	v.Answer = c.sloAnswer(cs, answers, win, second, lead)
	return c.exec("slo", &v)
}

// sloLead tests the SLO winner's lead over the runner-up: the U test
// over the two points' repeats (throughput per GPU). shown is true when
// the lead is significant, or when no other configuration meets the SLO.
func (c *Ctx) sloLead(cs *curveSet, answers []analysis.SLOAnswer, win, second int) (d stats.Delta, shown bool) {
	if win < 0 || second < 0 {
		return d, win >= 0
	}
	runs := c.rep.AllRuns()
	prof := cs.Profile.ID
	get := func(sm *schema.Summary) (float64, bool) { return sm.TotalTokenThroughput, true }
	if cs.Output {
		get = func(sm *schema.Summary) (float64, bool) { return sm.OutputThroughput, true }
	}
	d = analysis.Compare(analysis.Group(runs, cs.Curves[second].Experiment, prof, answers[second].Point),
		analysis.Group(runs, cs.Curves[win].Experiment, prof, answers[win].Point), get, true)
	return d, d.Significant
}

// sloAnswer is the block's one-sentence answer: the winner and its margin
// over the runner-up when the U test over the two points' repeats shows
// the margin is real; otherwise that no configuration is shown to give
// more, with both numbers and why (within noise, or too few runs to test).
func (c *Ctx) sloAnswer(cs *curveSet, answers []analysis.SLOAnswer, win, second int, d stats.Delta) template.HTML {
	esc := template.HTMLEscapeString
	// With several swept profiles each has its answer: name which.
	on := ""
	runs := c.rep.AllRuns()
	n := 0
	for _, p := range c.rep.Campaign.Profiles {
		if analysis.IsSweep(runs, p.ID) {
			n++
		}
	}
	if n > 1 {
		on = "On " + esc(profileName(cs.Profile)) + ": "
	}
	if win < 0 {
		return template.HTML(on + "No configuration meets the SLO (" + esc(sloText(c.rep.Campaign.SLO)) + ") at any measured load.")
	}
	w := answers[win]
	if second >= 0 && !d.Significant {
		sec := answers[second]
		delta, note := d.DeltaText()
		why := "within noise: " + note + ", Mann-Whitney U"
		if !d.Tested {
			why = "not tested: " + note
			if d.Old.N > 1 || d.New.N > 1 {
				why += "; run more repeats to test it"
			}
		}
		if delta == "~" {
			delta = fmt.Sprintf("%+.2f%%", d.Pct)
		}
		return template.HTML(on + fmt.Sprintf("At the SLO (%s), no configuration is shown to give more throughput per %s than the others: %s reached %s tok/s/%s at %s and %s %s at %s, a difference of %s that is %s.",
			esc(sloText(c.rep.Campaign.SLO)), cs.Unit, esc(cs.Names[win]), site.FmtNum(w.ThroughputPerGPU), cs.Unit, esc(w.Point.String()),
			esc(cs.Names[second]), site.FmtNum(sec.ThroughputPerGPU), esc(sec.Point.String()), esc(delta), esc(why)))
	}
	s := on + fmt.Sprintf("At the SLO (%s), <strong>%s</strong> gives the most throughput per %s: %s tok/s/%s at %s",
		esc(sloText(c.rep.Campaign.SLO)), esc(cs.Names[win]), cs.Unit, site.FmtNum(w.ThroughputPerGPU), cs.Unit, esc(w.Point.String()))
	if !math.IsNaN(w.CostPerMTok) {
		s += fmt.Sprintf(", $%.3f per million tokens", w.CostPerMTok)
	}
	if second >= 0 {
		sec := answers[second]
		delta, note := d.DeltaText()
		s += fmt.Sprintf(", %s over %s (%s at %s; %s, Mann-Whitney U)", esc(delta), esc(cs.Names[second]),
			site.FmtNum(sec.ThroughputPerGPU), esc(sec.Point.String()), esc(note))
	} else if len(answers) > 1 {
		s += "; no other configuration meets the SLO at any measured load"
	}
	return template.HTML(s + ".")
}

// sloText writes limits for people: "TTFT p99 ≤ 2000 ms, TPOT p99 ≤ 50 ms".
func sloText(slo schema.SLO) string {
	var parts []string
	for _, k := range slo.Keys() {
		parts = append(parts, fmt.Sprintf("%s ≤ %s ms", sloLabel(k), fmtLimit(slo[k])))
	}
	return strings.Join(parts, ", ")
}

// sloLabel is "TTFT p99" for ttft_p99.
func sloLabel(key string) string {
	m, st, _ := strings.Cut(key, "_")
	return strings.ToUpper(m) + " " + st
}
