package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/site"
)

// ---- steps ----

// stepProfiles returns the columns of a step's table: the profiles on
// which the step's experiments can be compared, those at least two of
// them ran; with a single experiment, or no profile shared, every profile
// any of them ran. (The engine step of the seed pages compares on
// ShareGPT; the baseline's runs on the other profiles gave it four more
// columns of "no result" for every other engine.)
func stepProfiles(r *Report, st *schema.Step) []*schema.Profile {
	var any, shared []*schema.Profile
	for i := range r.Campaign.Profiles {
		p := &r.Campaign.Profiles[i]
		n := 0
		for _, e := range st.Experiments {
			if r.Run(e.ID, p.ID) != nil {
				n++
			}
		}
		if n > 0 {
			any = append(any, p)
		}
		if n > 1 {
			shared = append(shared, p)
		}
	}
	if len(st.Experiments) > 1 && len(shared) > 0 {
		return shared
	}
	return any
}

type stepView struct {
	Unit        string // the accelerator's word (GPU, NPU, CPU)
	Heading     template.HTML
	Profiles    []string
	Metrics     []Metric
	Reference   string
	Rows        []stepRow
	Ranking     string
	Experiments []expView
	Notes       footnotes
	// Unfair is set when a delta is struck out (Delta.NA); the legend
	// then says why. Judged when a delta is one the U test does not show.
	Unfair, Judged bool
}

type stepRow struct {
	Name, Engine string
	GPUs         int
	Chosen       bool
	Cells        []cell
}

type expView struct {
	Heading template.HTML
	Name    string
	Note    string
	Chosen  bool
	Command template.HTML
	Raw     rawDetails
	// Telemetry is the skeleton's telemetry block, under the optimized
	// experiment (telemetry.go).
	Telemetry template.HTML
}

func (c *Ctx) step(w *bytes.Buffer, i int, withHeadings bool) error {
	r := c.rep
	st := r.Campaign.Steps[i]
	ref := r.Reference(i)
	p1, p2 := c.primary()
	v := stepView{Metrics: []Metric{p1, p2}, Reference: ref.Name, Unit: r.Unit()}
	if withHeadings {
		v.Heading = c.heading(3, strconv.Itoa(i+1)+". "+st.Title)
	}
	profs := stepProfiles(r, &st)
	for _, p := range profs {
		v.Profiles = append(v.Profiles, pointLabel(c.rep, *p))
	}
	var ranks []ranked
	v.Rows = make([]stepRow, 0, len(st.Experiments))
	v.Experiments = make([]expView, 0, len(st.Experiments))
	for _, e := range st.Experiments {
		e := e
		row := stepRow{Name: e.Name, Engine: site.EngineName(e.Engine), GPUs: r.GPUs(&e), Chosen: st.Chosen == e.ID, Cells: make([]cell, 0, len(profs))}
		for _, p := range profs {
			run := r.Run(e.ID, p.ID)
			var refRun *Run
			if ref.ID != e.ID {
				refRun = r.Run(ref.ID, p.ID)
			}
			cl := c.cellOf(run, refRun, v.Metrics, r.GPUs(&e), r.GPUs(ref), &v.Notes)
			if sk := r.SkippedAt(e.ID, p.ID); run == nil && sk != nil {
				// Not "no result": the early stop chose not to run it, and
				// the note says why.
				cl.Missing = "skipped (early stop)"
				cl.Notes = v.Notes.refs(c, sk)
			}
			row.Cells = append(row.Cells, cl)
		}
		v.Rows = append(v.Rows, row)
		if len(profs) > 0 {
			run := r.Run(e.ID, profs[0].ID)
			x := c.metricValue(run, p1)
			switch {
			case x != nil && site.Successful(run.Result):
				ranks = append(ranks, ranked{name: e.Name, v: *x, ok: true, exp: e.ID})
			case x != nil:
				// Numbers from a partly failed run rank, marked.
				s := run.Result.Summary
				total := max(s.Completed+s.Failed, run.Result.Load.NumPrompts)
				ranks = append(ranks, ranked{name: e.Name, v: *x, ok: true, exp: e.ID, note: fmt.Sprintf(", only %d of %d requests succeeded", s.Completed, total)})
			case run == nil:
				note := "not run"
				if sk := r.SkippedAt(e.ID, profs[0].ID); sk != nil {
					note = skipNote(sk.Result)
				}
				ranks = append(ranks, ranked{name: e.Name, note: note})
			default:
				ranks = append(ranks, ranked{name: e.Name, note: string(run.Result.Status)})
			}
		}
		ev := expView{Name: e.Name, Note: e.Note, Chosen: row.Chosen, Command: c.bash(r.Command(&e))}
		if withHeadings {
			ev.Heading = c.heading(4, e.Name)
		}
		ev.Raw.Title = "Benchmark result"
		for _, p := range r.ProfilesOf(&e) {
			ev.Raw.Raws = append(ev.Raw.Raws, c.pointRaws(r.Run(e.ID, p.ID), pointLabel(c.rep, p))...)
		}
		if withHeadings {
			var err error
			if ev.Telemetry, err = c.skeletonTelemetry(e.ID); err != nil {
				return err
			}
		}
		v.Experiments = append(v.Experiments, ev)
	}
	if len(ranks) > 1 {
		v.Ranking = c.ranking(ranks, ref, profs[0], p1)
	}

	for _, row := range v.Rows {
		for _, cl := range row.Cells {
			for _, l := range cl.Lines {
				v.Unfair = v.Unfair || l.DeltaClass == "delta na"
			}
			v.Judged = v.Judged || cl.Judged
		}
	}
	return c.execTo(w, "step", &v)
}

// skipNote says in a step's result line that a point was skipped by the
// sweep's early stop, and why (the result's error starts "the sweep's
// early stop: …").
func skipNote(res *schema.Result) string {
	why := strings.TrimPrefix(res.Error, "the sweep's early stop")
	why = strings.TrimPrefix(why, ": ")
	if why == "" {
		return "skipped by the sweep's early stop"
	}
	return "skipped by the sweep's early stop: " + why
}

// ---- summary of optimization options ----

type summaryView struct {
	Profile    string
	Metric     Metric
	Normalized bool
	Rows       []summaryRow
	Total      *summaryRow
	Notes      footnotes
	Unfair     bool // a delta is struck out (Delta.NA)
	Judged     bool // a delta is one the U test does not show
}

type summaryRow struct {
	Option, Chosen string
	Value          string
	Sort           string
	Inc, Cum       Delta
	Remark         string
	NoteIDs        []int
	Bad            bool
	// Skipped: the step carried nothing forward; its value is shown but
	// the next step is compared with the configuration before it.
	Skipped bool
}

func (c *Ctx) summary(w *bytes.Buffer, profileID string) error {
	r := c.rep
	camp := r.Campaign
	if profileID == "" {
		profileID = camp.Profiles[0].ID
	}
	prof, _ := camp.Profile(profileID)
	m, _ := c.primary()
	v := summaryView{Profile: pointLabel(r, *prof), Metric: m}
	base := r.Baseline()
	// Normalise per GPU when the chosen configurations use different GPU counts.
	counts := map[int]bool{r.GPUs(base): true}
	for _, st := range camp.Steps {
		if e, ok := camp.Experiment(st.Chosen); ok {
			counts[r.GPUs(e)] = true
			continue
		}
		for i := range st.Experiments { // a skipped step shows one of these
			counts[r.GPUs(&st.Experiments[i])] = true
		}
	}
	v.Normalized = len(counts) > 1 && m.PerGPU
	val := func(e *schema.Experiment) (*float64, *Run) {
		run := r.Run(e.ID, prof.ID)
		x := c.metricValue(run, m)
		if x != nil && v.Normalized {
			x = div(x, r.GPUs(e))
		}
		return x, run
	}
	baseV, baseRun := val(base)
	row := summaryRow{Option: "Baseline", Chosen: base.Name}
	if baseV != nil {
		row.Value, row.Sort = site.FmtNum(*baseV), site.SortKey(*baseV)
	} else {
		row.Value = "no result"
	}
	row.NoteIDs = v.Notes.refs(c, baseRun)
	v.Rows = append(v.Rows, row)
	prevV, prevRun := baseV, baseRun
	for _, st := range camp.Steps {
		row := summaryRow{Option: st.Title}
		e, ok := camp.Experiment(st.Chosen)
		if !ok {
			// Nothing carried forward: show the step's best try and why
			// it was skipped (GPUStack's "optimization skipped").
			c.skippedStep(&v, &row, st, val, prevV, baseV, prevRun, baseRun, m)
			v.Rows = append(v.Rows, row)
			continue
		}
		row.Chosen = e.Name
		x, run := val(e)
		if run != nil {
			row.NoteIDs = v.Notes.refs(c, run)
			row.Bad = !site.Successful(run.Result)
		}
		if x == nil {
			row.Value = "no result"
			v.Rows = append(v.Rows, row)
			continue
		}
		row.Value, row.Sort = site.FmtNum(*x), site.SortKey(*x)
		if prevV != nil {
			row.Inc = site.Compare(*prevV, *x, m.HigherBetter)
			row.Inc.NA = prevRun != nil && site.LessSuccessful(run.Result, prevRun.Result)
			judge(r, &row.Inc, prevRun, run, m, v.Normalized)
		}
		if baseV != nil {
			row.Cum = site.Compare(*baseV, *x, m.HigherBetter)
			row.Cum.NA = baseRun != nil && site.LessSuccessful(run.Result, baseRun.Result)
			judge(r, &row.Cum, baseRun, run, m, v.Normalized)
		}
		if e.ID == base.ID {
			row.Remark = "the baseline is kept"
		}
		prevV, prevRun = x, run
		v.Rows = append(v.Rows, row)
	}
	if len(v.Rows) > 1 {
		var last summaryRow
		for i := len(v.Rows) - 1; i > 0; i-- {
			if v.Rows[i].Cum.OK && !v.Rows[i].Skipped {
				last = v.Rows[i]
				break
			}
		}
		if last.Cum.OK {
			v.Total = &summaryRow{Option: "Total (vs baseline)", Chosen: last.Chosen, Value: last.Value, Cum: last.Cum}
		}
	}
	for _, row := range v.Rows {
		v.Unfair = v.Unfair || row.Inc.NA || row.Cum.NA
		v.Judged = v.Judged || row.Inc.Untested || row.Inc.Noise || row.Cum.Untested || row.Cum.Noise
	}
	return c.execTo(w, "summary", &v)
}

// skippedStep fills the summary row of a step that carried nothing
// forward with its best experiment on the summary profile.
func (c *Ctx) skippedStep(v *summaryView, row *summaryRow, st schema.Step, val func(*schema.Experiment) (*float64, *Run), prevV, baseV *float64, prevRun, baseRun *Run, m Metric) {
	var best *schema.Experiment
	var bestV *float64
	var bestRun *Run
	for i := range st.Experiments {
		e := &st.Experiments[i]
		x, run := val(e)
		if x == nil {
			continue
		}
		better := bestV == nil || (site.Successful(run.Result) && !site.Successful(bestRun.Result)) ||
			(site.Successful(run.Result) == site.Successful(bestRun.Result) && (m.HigherBetter && *x > *bestV || !m.HigherBetter && *x < *bestV))
		if better {
			best, bestV, bestRun = e, x, run
		}
	}
	row.Skipped = true
	if best == nil {
		row.Chosen, row.Value, row.Remark = "—", "—", "no result; nothing carried forward"
		return
	}
	row.Chosen = best.Name
	row.Value, row.Sort = site.FmtNum(*bestV), site.SortKey(*bestV)
	row.NoteIDs = v.Notes.refs(c, bestRun)
	row.Bad = !site.Successful(bestRun.Result)
	if prevV != nil {
		row.Inc = site.Compare(*prevV, *bestV, m.HigherBetter)
		row.Inc.NA = prevRun != nil && site.LessSuccessful(bestRun.Result, prevRun.Result)
		judge(c.rep, &row.Inc, prevRun, bestRun, m, v.Normalized)
	}
	if baseV != nil {
		row.Cum = site.Compare(*baseV, *bestV, m.HigherBetter)
		row.Cum.NA = baseRun != nil && site.LessSuccessful(bestRun.Result, baseRun.Result)
		judge(c.rep, &row.Cum, baseRun, bestRun, m, v.Normalized)
	}
	row.Remark = skipRemark(bestRun.Result, row.Inc)
}

// skipRemark says why a step's best try was not carried forward: it is
// worse than the configuration before it, and/or only part of its
// requests succeeded. A regression comes first: the 235B quantization try
// (-3.8%) was said to be skipped for its 984 of 1000 successes, which the
// configurations carried forward share.
func skipRemark(res *schema.Result, inc Delta) string {
	var why []string
	if inc.OK && inc.Sign < 0 && !inc.Untested && !inc.Noise {
		why = append(why, "worse than the configuration before it")
	}
	if s := res.Summary; s != nil {
		if total := max(s.Completed+s.Failed, res.Load.NumPrompts); s.Completed < total {
			why = append(why, fmt.Sprintf("only %d of %d requests succeeded", s.Completed, total))
		}
	}
	why = append(why, "not carried forward")
	return strings.Join(why, "; ")
}

// ranked is an experiment's place in a step's ranking.
type ranked struct {
	name, note string
	v          float64
	ok         bool
	exp        string
}

// ranking orders a step's experiments by the primary metric p1 on
// profile prof (ref the step's reference) and says so in a sentence.
func (c *Ctx) ranking(ranks []ranked, ref *schema.Experiment, prof *schema.Profile, p1 Metric) string {
	r := c.rep
	sort.SliceStable(ranks, func(a, b int) bool {
		if ranks[a].ok != ranks[b].ok {
			return ranks[a].ok
		}
		if p1.HigherBetter {
			return ranks[a].v > ranks[b].v
		}
		return ranks[a].v < ranks[b].v
	})
	sep := " > "
	if !p1.HigherBetter {
		sep = " < "
	}
	// With repeats, two neighbours are ordered only when the U test
	// shows their difference; otherwise "≈" and why: a lead within
	// noise is no win (single runs keep the lab's plain order).
	runs := r.AllRuns()
	pt := schema.Point{}
	if run := r.Run(ref.ID, prof.ID); run != nil {
		pt = schema.PointOf(run.Result.Load)
	}
	repeats := r.HasRepeats()
	var b strings.Builder
	unshown := ""
	for i, k := range ranks {
		if i > 0 {
			prev := ranks[i-1]
			if repeats && prev.ok && k.ok {
				d := analysis.Compare(analysis.Group(runs, k.exp, prof.ID, pt), analysis.Group(runs, prev.exp, prof.ID, pt), p1.Value, false)
				if d.Significant {
					b.WriteString(sep)
				} else {
					b.WriteString(" ≈ ")
					if _, note := d.DeltaText(); unshown == "" {
						unshown = note
						if d.Tested {
							unshown = "within noise, " + note
						}
					}
				}
			} else {
				b.WriteString(sep)
			}
		}
		if k.ok {
			b.WriteString(k.name + " (" + site.FmtNum(k.v) + " " + p1.Unit + k.note + ")")
		} else {
			b.WriteString(k.name + " (" + k.note + ")")
		}
	}
	ranking := fmt.Sprintf("%s on %s: %s", p1.Name, prof.Name, b.String())
	if unshown != "" {
		ranking += " (≈: not shown to differ, " + unshown + ")"
	}
	return ranking
}
