package blocks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

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
	// Rounds: [id, date, short commit] per round, oldest first.
	Rounds [][3]string `json:"rounds"`
	// Engines[i]: line i's engine from a round on, [round index, text]
	// where it changes.
	Engines [][][2]any `json:"engines"`
	// Changes: "line:round" → the change point's text.
	Changes map[string]string `json:"changes,omitempty"`
	// Failed: "line:round" → its failed requests (historyLine.failedText),
	// where any failed: a stall reads as a slowdown otherwise.
	Failed map[string]string `json:"failed,omitempty"`
}

// historyChart builds the history chart: x is the round's start time
// (the round's number when a round's date is unknown or the dates do not
// follow the rounds' order), a line per
// configuration, change points pinned, engine version changes marked by
// a vertical line on the x axis.
func historyChart(r *Report, id string, lines []historyLine, changes []historyChange) charts.Chart {
	x := make([]any, len(r.Rounds))
	timed := true
	var prev time.Time
	for ri, rr := range r.Rounds {
		// Dates on x only when every round has one and they follow the
		// rounds' order (a round 1 whose results were re-dated later than
		// round 2's record would draw the line backwards).
		t, err := time.Parse(time.RFC3339, rr.Start())
		if err != nil || t.Before(prev) {
			timed = false
			break
		}
		prev = t
		x[ri] = rr.Start()
	}
	if !timed {
		for ri := range x {
			x[ri] = ri + 1
		}
	}
	h := charts.History{XTime: timed, YName: "total throughput per GPU (tok/s)"}
	var tips historyTips
	marked := map[[2]int]historyChange{}
	for _, ch := range changes {
		marked[[2]int{ch.line, ch.round}] = ch
	}
	for ri, rr := range r.Rounds {
		row := make([]any, 1, 1+3*len(lines))
		row[0] = x[ri]
		for _, l := range lines {
			v := l.values[ri]
			if len(v) == 0 {
				row = append(row, nil, nil, nil)
				continue
			}
			sm := stats.Summarize(v)
			cv := 0.0
			if sm.N > 1 {
				cv = math.Round(sm.CV*1000) / 10
			}
			row = append(row, math.Round(sm.Mean*100)/100, cv, sm.N)
		}
		h.Rows = append(h.Rows, row)
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
			if len(v) == 0 {
				continue
			}
			eng := roundEngine(r, ri, l.exp.ID)
			if eng == "" || eng == last {
				continue
			}
			tips.Engines[li] = append(tips.Engines[li], [2]any{ri, eng})
			if last != "" {
				m := marks[ri]
				if m == nil {
					m = &mark{seen: map[string]bool{}}
					marks[ri] = m
					markRounds = append(markRounds, ri)
				}
				if !m.seen[eng] {
					m.seen[eng] = true
					m.names = append(m.names, eng)
				}
			}
			last = eng
		}
	}
	sort.Ints(markRounds)
	for _, ri := range markRounds {
		h.XMarks = append(h.XMarks, charts.XMark{X: x[ri], Name: strings.Join(marks[ri].names, ", ")})
	}
	for li, l := range lines {
		hl := charts.HistoryLine{Name: l.label(), YColumn: 1 + 3*li}
		for ri := range l.values {
			if f := l.failedText(ri); f != "" {
				if tips.Failed == nil {
					tips.Failed = map[string]string{}
				}
				tips.Failed[strconv.Itoa(li)+":"+strconv.Itoa(ri)] = f
			}
			ch, ok := marked[[2]int{li, ri}]
			if !ok {
				continue
			}
			hl.Pins = append(hl.Pins, charts.Pin{X: x[ri], Y: stats.Summarize(l.values[ri]).Mean, Label: fmt.Sprintf("%+.0f%%", ch.c.Pct)})
			if tips.Changes == nil {
				tips.Changes = map[string]string{}
			}
			tips.Changes[strconv.Itoa(li)+":"+strconv.Itoa(ri)] = fmt.Sprintf("change point: %+.1f%%", ch.c.Pct)
		}
		h.Lines = append(h.Lines, hl)
	}
	h.Tips = tips
	return charts.HistoryChart(id, h)
}
