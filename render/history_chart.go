package render

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

// historyOption is the history chart's ECharts option.
type historyOption struct {
	BackgroundColor string           `json:"backgroundColor"`
	Color           []string         `json:"color"`
	Tooltip         map[string]any   `json:"tooltip"`
	Legend          historyLegend    `json:"legend"`
	Grid            []historyGrid    `json:"grid"`
	Dataset         historyDataset   `json:"dataset"`
	XAxis           []map[string]any `json:"xAxis"`
	YAxis           []map[string]any `json:"yAxis"`
	Series          []historySeries  `json:"series"`
	// History is read (and removed) by site.js before the chart is drawn.
	History historyTips `json:"history"`
}

type historyLegend struct {
	Top  int    `json:"top"`
	Type string `json:"type"`
}

type historyGrid struct {
	Left         string `json:"left"`
	Right        string `json:"right"`
	Top          int    `json:"top"`
	Height       int    `json:"height"`
	ContainLabel bool   `json:"containLabel"`
}

type historyDataset struct {
	Source [][]any `json:"source"`
}

type historySeries struct {
	Name         string         `json:"name"`
	Type         string         `json:"type"`
	Encode       map[string]int `json:"encode"`
	Symbol       string         `json:"symbol"`
	SymbolSize   int            `json:"symbolSize"`
	ConnectNulls bool           `json:"connectNulls"`
	MarkPoint    map[string]any `json:"markPoint,omitempty"`
	MarkLine     map[string]any `json:"markLine,omitempty"`
}

// historyTips is what the hover text needs beyond the dataset.
type historyTips struct {
	// Rounds: [id, date, short commit] per round, oldest first.
	Rounds [][3]string `json:"rounds"`
	// Engines[i]: line i's engine from a round on, [round index, text]
	// where it changes.
	Engines [][][2]any `json:"engines"`
	// Changes: "line:round" → the change point's text.
	Changes map[string]string `json:"changes,omitempty"`
}

// start is the round's start time (RFC 3339), "" when unknown.
func (r roundResults) start() string {
	if r.Record != nil && r.Record.Start != "" {
		return r.Record.Start
	}
	first := ""
	for _, res := range r.Results {
		if res.Start != "" && (first == "" || res.Start < first) {
			first = res.Start
		}
	}
	return first
}

// historyChart builds the history chart: x is the round's start time
// (the round's number when a round's date is unknown or the dates do not
// follow the rounds' order), a line per
// configuration, change points pinned, engine version changes marked by
// a vertical line on the x axis.
func (r *Report) historyChart(id string, lines []historyLine, changes []historyChange) charts.Chart {
	x, xAxis := r.historyX()
	o := historyOption{
		BackgroundColor: "transparent",
		Color:           charts.Palette(),
		Tooltip:         map[string]any{"trigger": "item"},
		Legend:          historyLegend{Top: 0, Type: "scroll"},
		Grid:            []historyGrid{{Left: "3%", Right: "6%", Top: 64, Height: 300, ContainLabel: true}},
		XAxis:           []map[string]any{xAxis},
		YAxis: []map[string]any{{"type": "value", "scale": true, "name": "total throughput per GPU (tok/s)", "nameLocation": "end", "nameGap": 10,
			"nameTextStyle": map[string]any{"align": "left", "fontSize": 11}}},
	}
	marked := map[[2]int]historyChange{}
	for _, ch := range changes {
		marked[[2]int{ch.line, ch.round}] = ch
	}
	for ri, rr := range r.rounds {
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
		o.Dataset.Source = append(o.Dataset.Source, row)
		commit := ""
		if rr.Record != nil {
			commit = shortCommit(rr.Record.GitCommit)
		}
		o.History.Rounds = append(o.History.Rounds, [3]string{rr.ID, rr.date(), commit})
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
	o.History.Engines = make([][][2]any, len(lines))
	for li, l := range lines {
		last := ""
		for ri, v := range l.values {
			if len(v) == 0 {
				continue
			}
			eng := r.roundEngine(ri, l.exp.ID)
			if eng == "" || eng == last {
				continue
			}
			o.History.Engines[li] = append(o.History.Engines[li], [2]any{ri, eng})
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
	for li, l := range lines {
		s := historySeries{Name: l.label(), Type: "line", Encode: map[string]int{"x": 0, "y": 1 + 3*li},
			Symbol: "circle", SymbolSize: 6, ConnectNulls: true}
		var pins []map[string]any
		for ri := range l.values {
			ch, ok := marked[[2]int{li, ri}]
			if !ok {
				continue
			}
			sm := stats.Summarize(l.values[ri])
			pct := fmt.Sprintf("%+.0f%%", ch.c.Pct)
			pins = append(pins, map[string]any{"coord": []any{x[ri], math.Round(sm.Mean*100) / 100}, "value": pct})
			if o.History.Changes == nil {
				o.History.Changes = map[string]string{}
			}
			o.History.Changes[strconv.Itoa(li)+":"+strconv.Itoa(ri)] = fmt.Sprintf("change point: %+.1f%%", ch.c.Pct)
		}
		if len(pins) > 0 {
			s.MarkPoint = map[string]any{"symbol": "pin", "symbolSize": 40, "label": map[string]any{"fontSize": 10}, "data": pins}
		}
		if li == 0 && len(markRounds) > 0 {
			var data []map[string]any
			for _, ri := range markRounds {
				data = append(data, map[string]any{"name": strings.Join(marks[ri].names, ", "), "xAxis": x[ri]})
			}
			s.MarkLine = map[string]any{"silent": true, "symbol": "none",
				"lineStyle": map[string]any{"type": "dotted", "color": "#7f7f7f", "width": 1.5},
				"label":     map[string]any{"show": true, "position": "insideEndTop", "formatter": "{b}", "fontSize": 10},
				"data":      data}
		}
		o.Series = append(o.Series, s)
	}
	return charts.Custom(id, 64+300+40, o)
}

// historyX is the history chart's x value of each round, and its x axis:
// the rounds' dates when every round has one and they follow the rounds'
// order, else the rounds' numbers.
func (r *Report) historyX() ([]any, map[string]any) {
	x := make([]any, len(r.rounds))
	timed := true
	var prev time.Time
	for ri, rr := range r.rounds {
		// Dates on x only when every round has one and they follow the
		// rounds' order (a round 1 whose results were re-dated later than
		// round 2's record would draw the line backwards).
		t, err := time.Parse(time.RFC3339, rr.start())
		if err != nil || t.Before(prev) {
			timed = false
			break
		}
		prev = t
		x[ri] = rr.start()
	}
	xAxis := map[string]any{"type": "time", "name": "round date", "nameLocation": "middle", "nameGap": 28,
		"nameTextStyle": map[string]any{"fontSize": 11}}
	if !timed {
		for ri := range x {
			x[ri] = ri + 1
		}
		xAxis["type"], xAxis["name"], xAxis["minInterval"] = "value", "round", 1
	}
	return x, xAxis
}
