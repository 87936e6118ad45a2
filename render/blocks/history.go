package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/site"
)

// A report whose results have rounds (schema.RoundsDir) shows the latest
// round in every block, and its history in the history block: each
// configuration's headline figure, total throughput per GPU at each load
// point, over the rounds, with the change points found in it
// (stats.SeriesChanges: the U test between adjacent rounds of repeats,
// adjusted over the report with Benjamini-Hochberg and held to a
// minimum effect size; binary segmentation, stats.ChangePoints, over
// single runs).

// historyLine is one configuration × profile × load point over rounds.
type historyLine struct {
	exp  *schema.Experiment
	prof *schema.Profile
	pt   schema.Point
	// values[i] holds the headline figure of each run of round i, and
	// failed[i] how many of their requests failed, of how many.
	values [][]float64
	failed [][2]int
	// work[i] is the workload of round i's runs (historyValue.Work).
	work []string
	// notOK[i] is the status of each of round i's runs that gave no
	// figure (historyValue.Status); failed[i] counts their requests too.
	notOK [][]schema.Status
}

// failedText is what the history's cell and hover say of round ri's
// failed requests on line l, as the curves and SLO blocks say it; ""
// when none failed.
func (l historyLine) failedText(ri int) string {
	if failed, requests, ok := l.failedRequests(ri); ok {
		return fmt.Sprintf("✗ %d of %d requests failed", failed, requests)
	}
	return ""
}

// failedRequests are round ri's failed requests on line l, of all its
// requests; ok when any failed (where the history and data.json say so).
func (l historyLine) failedRequests(ri int) (failed, requests int, ok bool) {
	if ri < len(l.failed) && l.failed[ri][0] > 0 {
		return l.failed[ri][0], l.failed[ri][1], true
	}
	return 0, 0, false
}

func (l historyLine) label() string {
	s := l.exp.Name + " / " + l.prof.Name
	if l.pt.Sweep != "" {
		s += " at " + l.pt.String()
	}
	return s
}

// historyChange is a change point of a history line.
type historyChange struct {
	line  int
	round int
	c     stats.SeriesChange
}

// reportHistory is a report's history lines and their change points.
type reportHistory struct {
	lines   []historyLine
	changes []historyChange
	// slo is, for a sweep campaign with an SLO, each sweep profile ×
	// experiment's SLO answer in each round.
	slo []sloHistory
	// rounds are the indices (in r.Rounds) of the rounds the history
	// shows, oldest first: those holding a finished result (the shown
	// round is one). interrupted are the others: an older round whose
	// every result was interrupted (a collect stopped before any run
	// finished, then overtaken by a newer round) measured nothing, and a
	// column of dashes would read as missing data; the chart and tables
	// leave it out and name it under the table, data.json lists it as
	// "interrupted".
	rounds, interrupted []int
	// series are the series the change points were sought in
	// (stats.SeriesChanges), with the line each is of: what the history
	// says was and was not tested (historyCoverage).
	series     []stats.Series
	seriesLine []int
	// err: an older round could not be read again (site.RoundResults.Load).
	err error
}

// sloHistory is one sweep profile × experiment's SLO answer over rounds.
type sloHistory struct {
	label     string
	exp, prof string // the experiment's and profile's ids
	// answers[i] is round i's answer; nil where the round did not
	// measure the experiment on the profile.
	answers []*analysis.SLOAnswer
}

// historyOf is the report's history, computed once per build (the page
// and the home page's list both use it), in one pass over the rounds'
// digests (historydigest.go): an older round's come from the round
// cache's entry of the older rounds when it has them, else from its
// results, decoded from the round cache for it and dropped after
// (site.RoundResults.Load); its start and engines are kept
// (site.RoundFacts).
func historyOf(r *Report) *reportHistory {
	r.HistOnce.Do(func() {
		h := &reportHistory{}
		var lines []historyLine
		idx, sidx := map[string]int{}, map[string]int{}
		ds, err := historyDigestsOf(r)
		h.err = err
		for ri, d := range ds {
			if f := r.Rounds[ri].Facts; f != nil {
				*f = d.Facts
			} else {
				f := d.Facts
				r.Rounds[ri].Facts = &f
			}
			if !d.Facts.Finished {
				h.interrupted = append(h.interrupted, ri) // no value nor answer
				continue
			}
			h.rounds = append(h.rounds, ri)
			lines = historyValues(r, lines, idx, ri, d.Values)
			h.slo = sloAnswers(r, h.slo, sidx, ri, d.SLO)
		}
		h.lines, h.changes, h.series, h.seriesLine = historyChanges(r, lines)
		r.Hist = h
	})
	return r.Hist.(*reportHistory)
}

// roundValues are the headline figures of a round's runs, in the order
// of its results.
func roundValues(r *Report, results []*schema.Result) []historyValue {
	var out []historyValue
	for _, res := range results {
		status, figure := runOutcome(res)
		if !figure && status == "" {
			continue
		}
		e, ok := r.Campaign.Experiment(res.Experiment)
		if !ok {
			continue
		}
		if _, ok := r.Campaign.Profile(res.Profile); !ok {
			continue
		}
		if !figure {
			v := historyValue{Exp: res.Experiment, Prof: res.Profile, Pt: schema.PointOf(res.Load), Status: status}
			if res.Summary != nil {
				v.Failed, v.Requests = res.Summary.Failed, res.Summary.Completed+res.Summary.Failed
			}
			out = append(out, v)
			continue
		}
		gpus := r.GPUs(e)
		if res.Hardware != nil && res.Hardware.GPUCount > 0 {
			gpus = res.Hardware.GPUCount
		}
		out = append(out, historyValue{Exp: res.Experiment, Prof: res.Profile, Pt: schema.PointOf(res.Load),
			V: res.Summary.TotalTokenThroughput / float64(gpus), Failed: res.Summary.Failed, Requests: res.Summary.Completed + res.Summary.Failed,
			Work: workloadKey(res.Load)})
	}
	return out
}

// historyValues adds round ri's values to the history lines (idx: a
// line's index by experiment, profile and point).
func historyValues(r *Report, lines []historyLine, idx map[string]int, ri int, vals []historyValue) []historyLine {
	for _, v := range vals {
		e, ok := r.Campaign.Experiment(v.Exp)
		if !ok {
			continue
		}
		p, ok := r.Campaign.Profile(v.Prof)
		if !ok {
			continue
		}
		k := v.Exp + "\x00" + v.Prof + "\x00" + v.Pt.Slug()
		li, ok := idx[k]
		if !ok {
			li = len(lines)
			idx[k] = li
			lines = append(lines, historyLine{exp: e, prof: p, pt: v.Pt, values: make([][]float64, len(r.Rounds)), failed: make([][2]int, len(r.Rounds)),
				work: make([]string, len(r.Rounds)), notOK: make([][]schema.Status, len(r.Rounds))})
		}
		lines[li].failed[ri][0] += v.Failed
		lines[li].failed[ri][1] += v.Requests
		if v.Status != "" { // no figure: what happened instead
			lines[li].notOK[ri] = append(lines[li].notOK[ri], v.Status)
			continue
		}
		if lines[li].work[ri] == "" {
			lines[li].work[ri] = v.Work
		}
		lines[li].values[ri] = append(lines[li].values[ri], v.V)
	}
	return lines
}

// historyView is the history block's view (templates/history.html).
type historyView struct {
	// OneRound: the report has one round so far, and the block says so.
	OneRound bool
	// Anchor is the id the home page's list of changes links to; "" off
	// the page (a skeleton).
	Anchor string
	Chart  template.HTML
	// Shown of Total rounds are in the tables; Shown is 0 when all are.
	Shown, Total int
	// Interrupted names the older rounds left out (reportHistory's
	// interrupted): "round 2026-11-28.8", "rounds 7 and 9".
	Interrupted string
	// WorkChanges says where a profile's workload changed
	// (workChangesText).
	WorkChanges string
	Rounds      []historyRoundView
	Lines       []historyLineView
	SLO         *historySLOView
	Changes     []historyChangeView
	// None is the sentence shown when no change was found, Coverage what
	// the tests could not judge yet (historyCoverage).
	None     string
	Coverage []string
}

type historyRoundView struct{ ID, Date string }

// datedUnlessNamed is round rr's date as the history's headings add it
// to the round's id, "" when the id starts with it (a round collect
// named by its date, 2026-11-28 or 2026-11-28.2: "Round 2026-11-28 /
// 2026-11-28" said it twice).
func datedUnlessNamed(rr site.RoundResults) string {
	d := rr.Date()
	if d != "" && strings.HasPrefix(rr.ID, d) {
		return ""
	}
	return d
}

type historyLineView struct {
	Label string
	Cells []historyCellView
}

// historyCellView is a line's value in a round: the mean of its runs,
// their spread (CV, %) when there are several, the change there, signed.
// Empty: no figure; Status then says what its runs did where they went
// wrong, "" where the round did not run the line.
type historyCellView struct {
	Empty        bool
	Status       string // "crashed" (historyLine.statusText)
	Class        string
	Mean, Spread string
	Pct          template.HTML
	Failed       string // "✗ 3 of 500 requests failed" (historyLine.cellNote)
}

type historySLOView struct {
	Text string
	Rows []historySLORowView
}

type historySLORowView struct {
	Label string
	Cells []historySLOCellView
}

type historySLOCellView struct {
	Empty, Moved, None bool
	Point, PerGPU      string
}

type historyChangeView struct {
	Label       string
	Pct         template.HTML
	Word        string
	Round, Date string
	UTest       bool
	Prev        string
	P, Q, D     string
}

// signedPct is pct with its sign and one decimal (+1.2), as HTML: the
// template would write its "+" as &#43;.
func signedPct(pct float64) template.HTML {
	return template.HTML(fmt.Sprintf("%+.1f", pct))
}

// historyBlock writes the history block: a chart of every line over the
// rounds (x: the round, with its date; hover: the round's engine
// versions, commit and the runs' spread), the table of values with the
// change points marked, and the change points listed under it.
func (c *Ctx) historyBlock(w *bytes.Buffer, title string) error {
	r := c.rep
	if len(r.Rounds) < 2 {
		return c.execTo(w, "history", &historyView{OneRound: true})
	}
	h := historyOf(r)
	if h.err != nil {
		return h.err
	}
	lines, changes := h.lines, h.changes
	marked := map[[2]int]historyChange{}
	for _, ch := range changes {
		marked[[2]int{ch.line, ch.round}] = ch
	}
	if title == "" {
		title = "Total throughput per GPU over " + strconv.Itoa(len(h.rounds)) + " rounds"
	}
	caption := "Each configuration's total throughput per GPU in each round (hover for the round's engine, commit and spread; dotted vertical lines mark engine version and workload changes"
	if len(changes) > 0 {
		caption += ", pins the change points, listed under the table"
	}
	caption += ")"
	v := &historyView{}
	// The home page's list of changes links here (#history-chart, the
	// page's first history block; IDs keeps ids unique on the page).
	if c.ids != nil {
		v.Anchor = c.ids.Slug("history-chart")
	}
	chart, err := c.html(func(w *bytes.Buffer) error {
		return c.chartHTML(w, historyChart(r, c.nextChartID("history"), h.rounds, lines, changes), title, caption)
	})
	if err != nil {
		return err
	}
	v.Chart = chart

	// The tables show the last historyColumns rounds of the history's
	// (the chart and data.json have them all).
	cols := h.rounds[max(0, len(h.rounds)-historyColumns):]
	if len(cols) < len(h.rounds) {
		v.Shown, v.Total = historyColumns, len(h.rounds)
	}
	v.Interrupted = roundsNamed(r, h.interrupted)
	v.WorkChanges = workChangesText(r, lines, h.rounds)
	for _, ri := range cols {
		rr := r.Rounds[ri]
		v.Rounds = append(v.Rounds, historyRoundView{ID: rr.ID, Date: datedUnlessNamed(rr)})
	}
	for li, l := range lines {
		lv := historyLineView{Label: l.label()}
		for _, ri := range cols {
			vals := l.values[ri]
			if len(vals) == 0 {
				lv.Cells = append(lv.Cells, historyCellView{Empty: true, Status: l.statusText(ri)})
				continue
			}
			sm := stats.Summarize(vals)
			cell := historyCellView{Mean: strconv.FormatFloat(sm.Mean, 'f', 1, 64), Failed: l.cellNote(ri)}
			if sm.N > 1 {
				cell.Spread = spreadPct(sm.CV)
			}
			if ch, changed := marked[[2]int{li, ri}]; changed {
				cell.Class = "change worse"
				if ch.c.Pct > 0 {
					cell.Class = "change better"
				}
				cell.Pct = signedPct(ch.c.Pct)
			}
			lv.Cells = append(lv.Cells, cell)
		}
		v.Lines = append(v.Lines, lv)
	}
	v.SLO = sloHistoryView(r, h.slo, cols)

	for _, ch := range changes {
		l := lines[ch.line]
		cv := historyChangeView{Label: l.label(), Pct: signedPct(ch.c.Pct), Word: "worse", // throughput: higher is better
			Round: r.Rounds[ch.round].ID, Date: datedUnlessNamed(r.Rounds[ch.round]), P: strconv.FormatFloat(ch.c.P, 'f', 3, 64)}
		if ch.c.Pct > 0 {
			cv.Word = "better"
		}
		if ch.c.Method == "u-test" {
			cv.UTest = true
			cv.Prev = r.Rounds[prevRound(l, ch.round)].ID
			cv.Q = strconv.FormatFloat(ch.c.Q, 'f', 3, 64)
			cv.D = strconv.FormatFloat(ch.c.Effect, 'f', 1, 64)
		}
		v.Changes = append(v.Changes, cv)
	}
	v.None, v.Coverage = historyCoverage(r, h)
	return c.execTo(w, "history", v)
}

// spreadPct is a coefficient of variation as the history's cells show it,
// in per cent: whole numbers from 1 % up, one decimal under it (a 0.19 %
// spread is not "± 0%").
func spreadPct(cv float64) string {
	if pct := cv * 100; pct < 0.95 {
		return strconv.FormatFloat(pct, 'f', 1, 64)
	}
	return strconv.FormatFloat(cv*100, 'f', 0, 64)
}

// roundsNamed names rounds ris as the history's note does: "round 7",
// "rounds 7 and 9", "rounds 3, 7 and 9"; "" for none.
func roundsNamed(r *Report, ris []int) string {
	ids := make([]string, len(ris))
	for i, ri := range ris {
		ids[i] = r.Rounds[ri].ID
	}
	switch len(ids) {
	case 0:
		return ""
	case 1:
		return "round " + ids[0]
	}
	return "rounds " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

// historyColumns is the number of rounds the history table shows.
const historyColumns = 12

// prevRound is the round before round ri in which the line was measured.
func prevRound(l historyLine, ri int) int {
	for i := ri - 1; i >= 0; i-- {
		if len(l.values[i]) > 0 {
			return i
		}
	}
	return ri
}

// roundEngine says which engine version experiment exp ran in round ri:
// the version its results report, else the image the round record names.
func roundEngine(r *Report, ri int, exp string) string {
	if e, ok := r.Rounds[ri].FactsNow().Engines[exp]; ok {
		return e
	}
	if rec := r.Rounds[ri].Record; rec != nil {
		for _, e := range rec.Engines {
			// Not e.Version: early records carried the version the
			// campaign declared, not the one the engine ran
			// (schema.RoundEngine); the image is what ran.
			if e.Experiment == exp && e.Image != "" {
				return strings.TrimSpace(e.Engine + " " + e.Image)
			}
		}
	}
	return ""
}

// shortCommit is a commit's first 12 hex digits (and its -dirty).
func shortCommit(c string) string {
	if len(c) >= 40 {
		return c[:12] + c[40:]
	}
	return c
}

// roundSLO is a round's answer to the campaign's SLO, for each sweep
// profile and experiment (the slo block's answer: the highest load whose
// runs meet every limit, and the throughput per GPU there); none without
// an SLO or a sweep.
func roundSLO(r *Report, results []*schema.Result) []sloValue {
	if len(r.Campaign.SLO) == 0 {
		return nil
	}
	runs := make([]analysis.Run, 0, len(results))
	for _, res := range results {
		e, ok := r.Campaign.Experiment(res.Experiment)
		if !ok {
			continue
		}
		runs = append(runs, analysis.Run{Result: res, GPUs: r.GPUs(e)})
	}
	var out []sloValue
	for _, p := range r.Campaign.Profiles {
		if !analysis.IsSweep(runs, p.ID) {
			continue
		}
		cs := curveSetOf(r, runs, p.ID, false)
		for i, a := range analysis.SLOAnswers(cs.Curves, r.Campaign.SLO, r.Campaign.Cost, false) {
			out = append(out, sloValue{Key: p.ID + "\x00" + a.Experiment, Label: cs.Names[i] + " / " + p.Name, A: a})
		}
	}
	return out
}

// sloAnswers adds round ri's SLO answers to out (idx: an answer's index
// by profile and experiment).
func sloAnswers(r *Report, out []sloHistory, idx map[string]int, ri int, vals []sloValue) []sloHistory {
	for _, v := range vals {
		j, ok := idx[v.Key]
		if !ok {
			j = len(out)
			idx[v.Key] = j
			prof, exp, _ := strings.Cut(v.Key, "\x00")
			out = append(out, sloHistory{label: v.Label, exp: exp, prof: prof, answers: make([]*analysis.SLOAnswer, len(r.Rounds))})
		}
		a := v.A
		out[j].answers[ri] = &a
	}
	return out
}

// sloHistoryView is the SLO answer of each sweep profile × experiment in
// the rounds cols (the table's columns, the last of the history's
// rounds), a cell marked where the answer moved to another load; nil
// without answers.
func sloHistoryView(r *Report, hs []sloHistory, cols []int) *historySLOView {
	if len(hs) == 0 {
		return nil
	}
	v := &historySLOView{Text: sloText(r.Campaign.SLO)}
	for _, h := range hs {
		row := historySLORowView{Label: h.label}
		var prev *analysis.SLOAnswer
		for ri := 0; len(cols) > 0 && ri < cols[0]; ri++ {
			if a := h.answers[ri]; a != nil {
				prev = a
			}
		}
		for _, ri := range cols {
			a := h.answers[ri]
			if a == nil {
				row.Cells = append(row.Cells, historySLOCellView{Empty: true})
				continue
			}
			cell := historySLOCellView{
				Moved: prev != nil && (prev.Best < 0) != (a.Best < 0) || prev != nil && a.Best >= 0 && prev.Best >= 0 && prev.Point != a.Point,
				None:  a.Best < 0,
			}
			if !cell.None {
				cell.Point = a.Point.String()
				cell.PerGPU = strconv.FormatFloat(a.ThroughputPerGPU, 'f', 1, 64)
			}
			row.Cells = append(row.Cells, cell)
			prev = a
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
