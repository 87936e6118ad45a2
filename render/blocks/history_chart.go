package blocks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/charts"
)

// The history chart (charts.HistoryChart, go-echarts' types) is an
// ECharts line chart over one dataset: a row per
// round (x, then each line's mean, CV % and number of runs), so a page of
// 100 rounds carries each number once. Its hover text is drawn by the
// page's script (site.js, historyTip) from "history" in the option: the
// rounds' ids, dates and commits, and each experiment's engine where it
// changes; the page works from file:// (no fetch).

// historyTips is what the hover text needs beyond the dataset.
type historyTips struct {
	// Rounds: [id, date, short commit] per round the chart shows (a
	// dataset row each), oldest first.
	Rounds [][3]string `json:"rounds"`
	// Engines[i]: line i's engine from a round on, [row, text] where it
	// changes.
	Engines [][][2]any `json:"engines"`
	// Changes: "line:row" → the change point's text.
	Changes map[string]string `json:"changes,omitempty"`
	// Failed: "line:row" → its failed requests (historyLine.failedText),
	// where any failed: a stall reads as a slowdown otherwise.
	Failed map[string]string `json:"failed,omitempty"`
}

// historyChart builds the history chart of rounds (the history's: the
// indices in r.Rounds of those it shows), a dataset row each: x is the
// round's start time (the round's number among them when a round's date
// is unknown or the dates do not follow the rounds' order), a line per
// configuration, change points pinned, rounds whose runs of a line all
// went wrong marked on it (failurePins), engine version changes marked by
// a vertical line on the x axis. The hover's round indices are rows.
func historyChart(r *Report, id string, rounds []int, lines []historyLine, changes []historyChange) charts.Chart {
	row := make([]int, len(r.Rounds)) // a round's row; -1: not shown
	for ri := range row {
		row[ri] = -1
	}
	for j, ri := range rounds {
		row[ri] = j
	}
	x := historyX(r, rounds)
	h := charts.History{YName: "total throughput per GPU (tok/s)"}
	var tips historyTips
	marked := map[[2]int]historyChange{}
	for _, ch := range changes {
		marked[[2]int{ch.line, ch.round}] = ch
	}
	for j, ri := range rounds {
		rr := r.Rounds[ri]
		cells := make([]any, 1, 1+3*len(lines))
		cells[0] = x[j]
		for _, l := range lines {
			v := l.values[ri]
			if len(v) == 0 {
				cells = append(cells, nil, nil, nil)
				continue
			}
			sm := stats.Summarize(v)
			cv := 0.0
			if sm.N > 1 {
				cv = math.Round(sm.CV*1000) / 10
			}
			cells = append(cells, math.Round(sm.Mean*100)/100, cv, sm.N)
		}
		h.Rows = append(h.Rows, cells)
		commit := ""
		if rr.Record != nil {
			commit = shortCommit(rr.Record.GitCommit)
		}
		tips.Rounds = append(tips.Rounds, [3]string{rr.ID, rr.Date(), commit})
	}
	// Engine versions: each line's where they change; the version
	// changes of all lines are marked on the x axis (one vertical line
	// per round, naming the new versions).
	type mark struct {
		names []string
		seen  map[string]bool
	}
	marks := map[int]*mark{}
	var markRounds []int
	tips.Engines = make([][][2]any, len(lines))
	for li, l := range lines {
		last := ""
		for ri, v := range l.values {
			if len(v) == 0 || row[ri] < 0 {
				continue
			}
			eng := roundEngine(r, ri, l.exp.ID)
			if eng == "" || eng == last {
				continue
			}
			tips.Engines[li] = append(tips.Engines[li], [2]any{row[ri], eng})
			if last != "" {
				m := marks[row[ri]]
				if m == nil {
					m = &mark{seen: map[string]bool{}}
					marks[row[ri]] = m
					markRounds = append(markRounds, row[ri])
				}
				if !m.seen[eng] {
					m.seen[eng] = true
					m.names = append(m.names, eng)
				}
			}
			last = eng
		}
	}
	// Workload changes (a campaign edit) are marked the same way.
	for ri, names := range workChanges(lines, rounds) {
		m := marks[row[ri]]
		if m == nil {
			m = &mark{seen: map[string]bool{}}
			marks[row[ri]] = m
			markRounds = append(markRounds, row[ri])
		}
		m.names = append(m.names, "workload of "+joinAnd(names))
	}
	sort.Ints(markRounds)
	for _, j := range markRounds {
		h.XMarks = append(h.XMarks, charts.XMark{X: x[j], Name: strings.Join(marks[j].names, ", ")})
	}
	for li, l := range lines {
		hl := charts.HistoryLine{Name: l.label(), YColumn: 1 + 3*li}
		for j, ri := range rounds {
			if f := l.failedText(ri); f != "" {
				if tips.Failed == nil {
					tips.Failed = map[string]string{}
				}
				tips.Failed[strconv.Itoa(li)+":"+strconv.Itoa(j)] = f
			}
			ch, ok := marked[[2]int{li, ri}]
			if !ok {
				continue
			}
			hl.Pins = append(hl.Pins, charts.Pin{X: x[j], Y: stats.Summarize(l.values[ri]).Mean, Label: fmt.Sprintf("%+.0f%%", ch.c.Pct)})
			if tips.Changes == nil {
				tips.Changes = map[string]string{}
			}
			tips.Changes[strconv.Itoa(li)+":"+strconv.Itoa(j)] = fmt.Sprintf("change point: %+.1f%%", ch.c.Pct)
		}
		hl.Pins = append(hl.Pins, failurePins(r, l, rounds, x)...)
		h.Lines = append(h.Lines, hl)
	}
	h.Tips = tips
	return charts.HistoryChart(id, h)
}

// historyX is the history chart's x of each of rounds, a category axis
// (the rounds evenly spaced, in their order): the round's id, and its
// date under it unless the id starts with it (datedUnlessNamed). A time
// axis piled a day's rounds into one spike at the edge of a year, and
// put rounds started in the same second at the same x.
func historyX(r *Report, rounds []int) []any {
	x := make([]any, len(rounds))
	for j, ri := range rounds {
		rr := r.Rounds[ri]
		x[j] = rr.ID
		if d := datedUnlessNamed(rr); d != "" {
			x[j] = rr.ID + "\n" + d
		}
	}
	return x
}
