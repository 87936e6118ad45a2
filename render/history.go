package render

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/inputs"
)

// A report whose results have rounds (schema.RoundsDir) shows the latest
// round in every block, and its history in the history block: each
// configuration's headline figure, total throughput per GPU at each load
// point, over the rounds, with the change points found in it
// (stats.SeriesChanges: the U test between adjacent rounds of repeats,
// adjusted over the report with Benjamini-Hochberg and held to a
// minimum effect size; E-divisive over single runs).

// roundResults is one round of a report's results.
type roundResults struct {
	ID      string
	Record  *schema.Round // nil for round 1
	Results []*schema.Result
}

// date is the round's start date (2026-10-26), "" when unknown.
func (r roundResults) date() string {
	if r.Record != nil && len(r.Record.Start) >= 10 {
		return r.Record.Start[:10]
	}
	for _, res := range r.Results {
		if len(res.Start) >= 10 {
			return res.Start[:10]
		}
	}
	return ""
}

// loadRounds reads every round of the report's results for the history,
// each file through the page's Reader (in), when the results have
// rounds; the latest round's results are the ones Load already read.
func (s *Site) loadRounds(r *Report, in *inputs.Reader, red *redact.Redactor) error {
	if !in.Exists(filepath.Join(r.ResultsDir, schema.RoundsDir)) {
		return nil
	}
	rds, err := schema.Rounds(r.ResultsDir)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	latest, ok, err := schema.Latest(r.ResultsDir)
	if err != nil || !ok {
		return err
	}
	for _, rd := range rds {
		rr := roundResults{ID: rd.ID, Record: rd.Record}
		if rd.Record != nil {
			p := filepath.ToSlash(filepath.Join(rd.Dir, schema.RoundFile))
			if _, _, err := in.ReadFile(p); err != nil { // recorded: part of the page's key
				return fmt.Errorf("load: %w", err)
			}
			red.Walk(rd.Record) // its note and engines are shown as they came in, redacted
		}
		if rd.ID == latest.ID {
			for _, run := range r.all {
				rr.Results = append(rr.Results, run.Result)
			}
		} else {
			files, err := schema.RoundFiles(rd)
			if err != nil {
				return fmt.Errorf("load: %w", err)
			}
			for _, f := range files {
				f = filepath.ToSlash(f)
				data, _, err := in.ReadFile(f)
				if err != nil {
					return fmt.Errorf("load: %w", err)
				}
				res, err := schema.Unmarshal(f, data)
				if err != nil {
					return err
				}
				res.Requests = nil // the history needs the summaries only
				red.Walk(res)      // as the latest round's results are (site.go)
				rr.Results = append(rr.Results, res)
			}
		}
		if len(rr.Results) > 0 {
			r.rounds = append(r.rounds, rr)
		}
		if rd.ID == latest.ID {
			break // a later round holding no result yet is not history
		}
	}
	return nil
}

// historyLine is one configuration × profile × load point over rounds.
type historyLine struct {
	exp  *schema.Experiment
	prof *schema.Profile
	pt   schema.Point
	// values[i] holds the headline figure of each run of round i.
	values [][]float64
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
}

// sloHistory is one sweep profile × experiment's SLO answer over rounds.
type sloHistory struct {
	label string
	// answers[i] is round i's answer; nil where the round did not
	// measure the experiment on the profile.
	answers []*analysis.SLOAnswer
}

// history is the report's history, computed once per build (the page
// and the home page's list both use it; the change points' permutation
// tests are the costly part).
func (r *Report) history() *reportHistory {
	r.histOnce.Do(func() {
		lines, changes := r.computeHistory()
		r.hist = &reportHistory{lines: lines, changes: changes, slo: r.sloHistory()}
	})
	return r.hist
}

// computeHistory computes the report's history lines and their change
// points.
func (r *Report) computeHistory() ([]historyLine, []historyChange) {
	var lines []historyLine
	idx := map[string]int{}
	for ri, rr := range r.rounds {
		for _, res := range rr.Results {
			if res.Status != schema.StatusOK || res.Summary == nil || res.Summary.Completed == 0 {
				continue
			}
			e, ok := r.Campaign.Experiment(res.Experiment)
			if !ok {
				continue
			}
			p, ok := r.Campaign.Profile(res.Profile)
			if !ok {
				continue
			}
			pt := schema.PointOf(res.Load)
			k := res.Experiment + "\x00" + res.Profile + "\x00" + pt.Slug()
			li, ok := idx[k]
			if !ok {
				li = len(lines)
				idx[k] = li
				lines = append(lines, historyLine{exp: e, prof: p, pt: pt, values: make([][]float64, len(r.rounds))})
			}
			gpus := r.GPUs(e)
			if res.Hardware != nil && res.Hardware.GPUCount > 0 {
				gpus = res.Hardware.GPUCount
			}
			lines[li].values[ri] = append(lines[li].values[ri], res.Summary.TotalTokenThroughput/float64(gpus))
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.exp.ID != b.exp.ID {
			return a.exp.ID < b.exp.ID
		}
		if a.prof.ID != b.prof.ID {
			return a.prof.ID < b.prof.ID
		}
		return a.pt.Value < b.pt.Value
	})
	series := make([]stats.Series, len(lines))
	for i, l := range lines {
		for ri, v := range l.values {
			if len(v) > 0 {
				series[i].Rounds = append(series[i].Rounds, ri)
				series[i].Samples = append(series[i].Samples, v)
			}
		}
	}
	var changes []historyChange
	for _, c := range stats.SeriesChanges(series) {
		changes = append(changes, historyChange{line: c.Series, round: c.Round, c: c})
	}
	return lines, changes
}

// historyBlock writes the history block: a chart of every line over the
// rounds (x: the round, with its date; hover: the round's engine
// versions, commit and the runs' spread), the table of values with the
// change points marked, and the change points listed under it.
func (c *pageCtx) historyBlock(w *bytes.Buffer, title string) error {
	r := c.rep
	if len(r.rounds) < 2 {
		w.WriteString("<p class=\"history-none\">One round of results so far: the history starts with the second round (<code>perflab collect --new-round</code>).</p>\n")
		return nil
	}
	h := r.history()
	lines, changes := h.lines, h.changes
	marked := map[[2]int]historyChange{}
	for _, ch := range changes {
		marked[[2]int{ch.line, ch.round}] = ch
	}
	if title == "" {
		title = "Total throughput per GPU over " + strconv.Itoa(len(r.rounds)) + " rounds"
	}
	caption := "Each configuration's total throughput per GPU in each round (hover for the round's engine, commit and spread; dotted vertical lines mark engine version changes"
	if len(changes) > 0 {
		caption += ", pins the change points, listed under the table"
	}
	caption += ")"
	// The home page's list of changes links here (#history-chart, the
	// page's first history block; IDs keeps ids unique on the page).
	if c.ids != nil {
		w.WriteString(`<div id="`)
		htmlEscape(w, c.ids.Slug("history-chart"))
		w.WriteString(`"></div>`)
	}
	if err := c.chartHTML(w, r.historyChart(c.nextChartID("history"), lines, changes), title, caption); err != nil {
		return err
	}

	// The table shows the last historyColumns rounds (the chart and
	// data.json have them all).
	first := max(0, len(r.rounds)-historyColumns)
	if first > 0 {
		fmt.Fprintf(w, "<p class=\"history-note\">The last %d of %d rounds; the chart above and the report's data.json have every round.</p>\n", historyColumns, len(r.rounds))
	}
	w.WriteString("<div class=\"table-wrap\"><table class=\"sortable history\">\n<thead><tr><th>Configuration</th>")
	for _, rr := range r.rounds[first:] {
		w.WriteString("<th>Round ")
		htmlEscape(w, rr.ID)
		if d := rr.date(); d != "" {
			w.WriteString("<br><small>")
			htmlEscape(w, d)
			w.WriteString("</small>")
		}
		w.WriteString("</th>")
	}
	w.WriteString("</tr></thead>\n<tbody>\n")
	for li, l := range lines {
		w.WriteString("<tr><td>")
		htmlEscape(w, l.label())
		w.WriteString("</td>")
		for ri, v := range l.values {
			if ri < first {
				continue
			}
			ch, changed := marked[[2]int{li, ri}]
			switch {
			case len(v) == 0:
				w.WriteString("<td>–</td>")
				continue
			case changed && (ch.c.Pct > 0):
				w.WriteString(`<td class="change better">`)
			case changed:
				w.WriteString(`<td class="change worse">`)
			default:
				w.WriteString("<td>")
			}
			sm := stats.Summarize(v)
			w.WriteString(strconv.FormatFloat(sm.Mean, 'f', 1, 64))
			if sm.N > 1 {
				fmt.Fprintf(w, " ± %.0f%%", sm.CV*100)
			}
			if changed {
				fmt.Fprintf(w, " <strong>%+.1f%%</strong>", ch.c.Pct)
			}
			w.WriteString("</td>")
		}
		w.WriteString("</tr>\n")
	}
	w.WriteString("</tbody>\n</table></div>\n")
	r.writeSLOHistory(w, h.slo, first)

	if len(changes) == 0 {
		w.WriteString("<p class=\"history-changes\">No change points: no round differs from the one before beyond its runs' noise.</p>\n")
		return nil
	}
	w.WriteString("<p class=\"history-changes\">Change points:</p>\n<ul class=\"history-changes\">\n")
	for _, ch := range changes {
		l := lines[ch.line]
		w.WriteString("<li>")
		htmlEscape(w, l.label())
		word := "worse" // throughput: higher is better
		if ch.c.Pct > 0 {
			word = "better"
		}
		fmt.Fprintf(w, ": %+.1f%% (%s) in round ", ch.c.Pct, word)
		htmlEscape(w, r.rounds[ch.round].ID)
		if d := r.rounds[ch.round].date(); d != "" {
			w.WriteString(" (")
			htmlEscape(w, d)
			w.WriteString(")")
		}
		if ch.c.Method == "u-test" {
			fmt.Fprintf(w, "; U test against round %s p=%.3f, q=%.3f, d=%.1f", escString(r.rounds[prevRound(lines[ch.line], ch.round)].ID), ch.c.P, ch.c.Q, ch.c.Effect)
		} else {
			fmt.Fprintf(w, "; change point of the series, permutation p=%.3f", ch.c.P)
		}
		w.WriteString("</li>\n")
	}
	w.WriteString("</ul>\n<p class=\"history-method\">Rounds with repeats are compared with the one before by the Mann-Whitney U test, the p-values of the whole report adjusted together (Benjamini-Hochberg, q ≤ 0.05), and a change must be at least twice the runs' pooled standard deviation; single runs per round are segmented with E-divisive means and a permutation test (about 1 false change in 200 series of pure noise).</p>\n")
	return nil
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
// the results' measured version, else the round record's.
func (r *Report) roundEngine(ri int, exp string) string {
	for _, res := range r.rounds[ri].Results {
		if res.Experiment == exp && res.Engine.Version != "" {
			return res.Engine.Name + " " + res.Engine.Version
		}
	}
	if rec := r.rounds[ri].Record; rec != nil {
		for _, e := range rec.Engines {
			if e.Experiment == exp && (e.Version != "" || e.Image != "") {
				return strings.TrimSpace(e.Engine + " " + e.Version + " " + e.Image)
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

func escString(s string) string {
	var b bytes.Buffer
	htmlEscape(&b, s)
	return b.String()
}

// homeChanges is the home page's "Regressions and improvements" list
// (asv has one): every change point in the latest round of every report,
// largest first, each linking to its report's history chart; "" when nothing
// changed in any latest round.
func (s *Site) homeChanges(base string) template.HTML {
	type item struct {
		pct  float64
		html string
	}
	var items []item
	for _, r := range s.Reports {
		if len(r.rounds) < 2 {
			continue
		}
		h := r.history()
		lines, changes := h.lines, h.changes
		last := len(r.rounds) - 1
		for _, ch := range changes {
			if ch.round != last {
				continue
			}
			var b bytes.Buffer
			word := "Regression"
			if ch.c.Pct > 0 {
				word = "Improvement"
			}
			b.WriteString(`<li class="change `)
			b.WriteString(strings.ToLower(word))
			b.WriteString(`"><a href="`)
			htmlEscape(&b, base+s.pageHref(r.Page.URL)+"#history-chart")
			b.WriteString(`">`)
			htmlEscape(&b, r.Page.navTitleReport())
			b.WriteString("</a>: ")
			htmlEscape(&b, lines[ch.line].label())
			fmt.Fprintf(&b, ", total throughput per GPU %+.1f%% in round ", ch.c.Pct)
			htmlEscape(&b, r.rounds[last].ID)
			b.WriteString(" (" + word + ")</li>\n")
			items = append(items, item{ch.c.Pct, b.String()})
		}
	}
	if len(items) == 0 {
		return ""
	}
	sort.SliceStable(items, func(i, j int) bool { return math.Abs(items[i].pct) > math.Abs(items[j].pct) })
	var b strings.Builder
	// A heading as every other (its headerlink ends its text in the
	// page's table of contents).
	b.WriteString("<h2 id=\"regressions-and-improvements\">Regressions and improvements<a class=\"headerlink\" href=\"#regressions-and-improvements\" title=\"Permanent link\">¶</a></h2>\n<ul class=\"home-changes\">\n")
	for _, it := range items {
		b.WriteString(it.html)
	}
	b.WriteString("</ul>\n")
	return template.HTML(b.String())
}

// roundData is one round in a report's data.json "rounds".
type roundData struct {
	ID        string    `json:"id"`
	Start     string    `json:"start,omitempty"`
	GitCommit string    `json:"git_commit,omitempty"`
	Runs      []runData `json:"runs"`
}

// withRounds adds every round to a report's data.json ("rounds", oldest
// first; "runs" stays the latest round's, as the page shows) and data.csv
// (a leading "round" column, every round's rows), when the report has
// rounds; otherwise it returns d and rows as they are.
func (r *Report) withRounds(d reportDataFile, rows [][]string) (reportDataFile, [][]string) {
	if len(r.rounds) < 2 {
		return d, rows
	}
	out := [][]string{append([]string{"round"}, rows[0]...)}
	for _, rr := range r.rounds {
		shadow := &Report{Page: r.Page, Campaign: r.Campaign, CampaignFile: r.CampaignFile, ResultsDir: r.ResultsDir}
		for _, res := range rr.Results {
			shadow.all = append(shadow.all, &Run{Result: res})
		}
		rd, rrows := reportTables(shadow)
		x := roundData{ID: rr.ID, Runs: rd.Runs}
		if rr.Record != nil {
			x.Start, x.GitCommit = rr.Record.Start, rr.Record.GitCommit
		}
		d.Rounds = append(d.Rounds, x)
		for _, row := range rrows[1:] {
			out = append(out, append([]string{rr.ID}, row...))
		}
	}
	return d, out
}

// sloHistory answers the campaign's SLO in each round, for each sweep
// profile and experiment (the slo block's answer: the highest load whose
// runs meet every limit, and the throughput per GPU there); nil without
// an SLO or a sweep.
func (r *Report) sloHistory() []sloHistory {
	if len(r.Campaign.SLO) == 0 {
		return nil
	}
	var out []sloHistory
	idx := map[string]int{}
	for ri, rr := range r.rounds {
		runs := make([]analysis.Run, 0, len(rr.Results))
		for _, res := range rr.Results {
			e, ok := r.Campaign.Experiment(res.Experiment)
			if !ok {
				continue
			}
			runs = append(runs, analysis.Run{Result: res, GPUs: r.GPUs(e)})
		}
		for _, p := range r.Campaign.Profiles {
			if !analysis.IsSweep(runs, p.ID) {
				continue
			}
			cs := r.curveSet(runs, p.ID, false)
			for i, a := range analysis.SLOAnswers(cs.Curves, r.Campaign.SLO, r.Campaign.Cost, false) {
				k := p.ID + "\x00" + a.Experiment
				j, ok := idx[k]
				if !ok {
					j = len(out)
					idx[k] = j
					out = append(out, sloHistory{label: cs.Names[i] + " / " + p.Name, answers: make([]*analysis.SLOAnswer, len(r.rounds))})
				}
				a := a
				out[j].answers[ri] = &a
			}
		}
	}
	return out
}

// writeSLOHistory writes the SLO answer of each sweep profile ×
// experiment in the rounds from first on, a cell marked where the answer
// moved to another load.
func (r *Report) writeSLOHistory(w *bytes.Buffer, hs []sloHistory, first int) {
	if len(hs) == 0 {
		return
	}
	w.WriteString("<p class=\"history-slo\">The SLO (")
	htmlEscape(w, sloText(r.Campaign.SLO))
	w.WriteString(") in each round: the highest load whose runs meet it, and the total throughput per GPU there.</p>\n")
	w.WriteString("<div class=\"table-wrap\"><table class=\"sortable history history-slo\">\n<thead><tr><th>Configuration</th>")
	for _, rr := range r.rounds[first:] {
		w.WriteString("<th>Round ")
		htmlEscape(w, rr.ID)
		w.WriteString("</th>")
	}
	w.WriteString("</tr></thead>\n<tbody>\n")
	for _, h := range hs {
		w.WriteString("<tr><td>")
		htmlEscape(w, h.label)
		w.WriteString("</td>")
		var prev *analysis.SLOAnswer
		for ri, a := range h.answers {
			if ri < first {
				if a != nil {
					prev = a
				}
				continue
			}
			if a == nil {
				w.WriteString("<td>–</td>")
				continue
			}
			moved := prev != nil && (prev.Best < 0) != (a.Best < 0) || prev != nil && a.Best >= 0 && prev.Best >= 0 && prev.Point != a.Point
			if moved {
				w.WriteString(`<td class="change">`)
			} else {
				w.WriteString("<td>")
			}
			if a.Best < 0 {
				w.WriteString("none meets it")
			} else {
				htmlEscape(w, a.Point.String())
				w.WriteString(": ")
				w.WriteString(strconv.FormatFloat(a.ThroughputPerGPU, 'f', 1, 64))
				w.WriteString(" tok/s/GPU")
			}
			w.WriteString("</td>")
			prev = a
		}
		w.WriteString("</tr>\n")
	}
	w.WriteString("</tbody>\n</table></div>\n")
}
