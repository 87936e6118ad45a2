package charts

import "math"

// XYPoint is one point of a line: x, y and the tooltip text (one line per
// entry, shown under the series name).
type XYPoint struct {
	X, Y float64
	Tip  []string
}

// XYSeries is one line over numeric x.
type XYSeries struct {
	Name   string
	Points []XYPoint
	// Frontier draws the series as the Pareto frontier: a thick dashed
	// grey step line under the experiments' lines (its points in
	// increasing x).
	Frontier bool
	// Dashed draws a dashed line (p99 beside a solid p50).
	Dashed bool
	// Color, when set, fixes the series colour (the same experiment in two
	// panels); "" takes the palette's next one.
	Color string
}

// XYPanel is one grid of lines over numeric axes.
type XYPanel struct {
	Title        string
	XName, YName string
	// XLog draws x on a log scale (concurrency 1 … 256).
	XLog   bool
	Series []XYSeries
	// Limits are horizontal lines (an SLO): drawn dashed red with their
	// label.
	Limits []Limit
}

// Limit is a horizontal line at Y named Label.
type Limit struct {
	Label string
	Y     float64
}

// XYOption is the subset of ECharts' option object the line charts use.
type XYOption struct {
	BackgroundColor string      `json:"backgroundColor"`
	Color           []string    `json:"color"`
	Title           []Title     `json:"title"`
	Tooltip         ItemTooltip `json:"tooltip"`
	Legend          Legend      `json:"legend"`
	Grid            []Grid      `json:"grid"`
	XAxis           []ValueAxis `json:"xAxis"`
	YAxis           []ValueAxis `json:"yAxis"`
	Series          []LineSpec  `json:"series"`
}

// ItemTooltip shows one point's text on hover ({a}: series, {b}: the
// point's name, which holds its tooltip lines).
type ItemTooltip struct {
	Trigger   string `json:"trigger"`
	Formatter string `json:"formatter"`
}

// ValueAxis is a numeric axis.
type ValueAxis struct {
	Type          string         `json:"type"`
	GridIndex     int            `json:"gridIndex"`
	Name          string         `json:"name,omitempty"`
	NameLocation  string         `json:"nameLocation,omitempty"`
	NameGap       int            `json:"nameGap,omitempty"`
	NameTextStyle map[string]any `json:"nameTextStyle,omitempty"`
	Scale         bool           `json:"scale,omitempty"`
	LogBase       int            `json:"logBase,omitempty"`
}

// LineSpec is one line series.
type LineSpec struct {
	Name       string     `json:"name"`
	Type       string     `json:"type"`
	XAxisIndex int        `json:"xAxisIndex"`
	YAxisIndex int        `json:"yAxisIndex"`
	Data       []XYDatum  `json:"data"`
	Symbol     string     `json:"symbol,omitempty"`
	SymbolSize int        `json:"symbolSize,omitempty"`
	Step       string     `json:"step,omitempty"`
	Z          int        `json:"z,omitempty"`
	LineStyle  *LineStyle `json:"lineStyle,omitempty"`
	ItemStyle  *ItemStyle `json:"itemStyle,omitempty"`
	MarkLine   *MarkLine  `json:"markLine,omitempty"`
}

// XYDatum is one point: value [x, y] and name (the tooltip's text).
type XYDatum struct {
	Name  string     `json:"name"`
	Value [2]float64 `json:"value"`
}

// LineStyle styles a line.
type LineStyle struct {
	Type  string  `json:"type,omitempty"`
	Width float64 `json:"width,omitempty"`
	Color string  `json:"color,omitempty"`
}

// ItemStyle styles a series' symbols.
type ItemStyle struct {
	Color string `json:"color,omitempty"`
}

// MarkLine draws horizontal limit lines.
type MarkLine struct {
	Silent    bool           `json:"silent"`
	Symbol    string         `json:"symbol"`
	LineStyle LineStyle      `json:"lineStyle"`
	Label     MarkLineLabel  `json:"label"`
	Data      []MarkLineItem `json:"data"`
}

// MarkLineLabel places a limit's label.
type MarkLineLabel struct {
	Show      bool   `json:"show"`
	Position  string `json:"position"`
	Formatter string `json:"formatter"`
}

// MarkLineItem is one limit.
type MarkLineItem struct {
	Name  string  `json:"name"`
	YAxis float64 `json:"yAxis"`
}

const (
	frontierColor = "#7f7f7f"
	limitColor    = "#d62728"
	xyPanelHeight = 300
)

// Lines builds a chart of one or more stacked panels of lines over
// numeric axes, with a fixed id. Values are rounded to two decimals, as
// the tables print them; points with a NaN or infinite coordinate are
// left out.
func Lines(id string, panels []XYPanel) Chart {
	o := XYOption{
		BackgroundColor: "transparent",
		Color:           palette,
		Tooltip:         ItemTooltip{Trigger: "item", Formatter: "{a}<br/>{b}"},
		Legend:          Legend{Top: 0, Type: "scroll"},
	}
	top := topPad
	for i, p := range panels {
		if p.Title != "" {
			o.Title = append(o.Title, Title{Text: p.Title, Left: "center", Top: top - 26, TextStyle: map[string]any{"fontSize": 12, "fontWeight": "normal"}})
		}
		o.Grid = append(o.Grid, Grid{Left: "3%", Right: "6%", Top: top, Height: xyPanelHeight, ContainLabel: true})
		x := ValueAxis{Type: "value", GridIndex: i, Name: p.XName, NameLocation: "middle", NameGap: 28, Scale: true,
			NameTextStyle: map[string]any{"fontSize": 11}}
		if p.XLog {
			x.Type, x.LogBase, x.Scale = "log", 2, false
		}
		o.XAxis = append(o.XAxis, x)
		o.YAxis = append(o.YAxis, ValueAxis{Type: "value", GridIndex: i, Name: p.YName, NameLocation: "end", NameGap: 10,
			NameTextStyle: map[string]any{"align": "left", "fontSize": 11}})
		for si, s := range p.Series {
			l := LineSpec{Name: s.Name, Type: "line", XAxisIndex: i, YAxisIndex: i, Symbol: "circle", SymbolSize: 7, Z: 3}
			if s.Color != "" {
				l.LineStyle = &LineStyle{Color: s.Color}
				l.ItemStyle = &ItemStyle{Color: s.Color}
			}
			if s.Dashed {
				if l.LineStyle == nil {
					l.LineStyle = &LineStyle{}
				}
				l.LineStyle.Type = "dashed"
				l.Symbol = "triangle"
			}
			if s.Frontier {
				// A step down at each frontier point: past a point's
				// interactivity only the points right of it are attainable
				// (points come in increasing x).
				l.Step, l.Z, l.SymbolSize, l.Symbol = "start", 2, 0, "none"
				l.LineStyle = &LineStyle{Type: "dashed", Width: 4, Color: frontierColor}
				l.ItemStyle = &ItemStyle{Color: frontierColor}
			}
			for _, pt := range s.Points {
				if bad(pt.X) || bad(pt.Y) {
					continue
				}
				l.Data = append(l.Data, XYDatum{Name: join(pt.Tip), Value: [2]float64{r2(pt.X), r2(pt.Y)}})
			}
			if si == 0 && len(p.Limits) > 0 {
				ml := &MarkLine{Silent: true, Symbol: "none", LineStyle: LineStyle{Type: "dashed", Width: 1.5, Color: limitColor},
					Label: MarkLineLabel{Show: true, Position: "insideEndTop", Formatter: "{b}"}}
				for _, lim := range p.Limits {
					ml.Data = append(ml.Data, MarkLineItem{Name: lim.Label, YAxis: r2(lim.Y)})
				}
				l.MarkLine = ml
			}
			o.Series = append(o.Series, l)
		}
		top += xyPanelHeight + panelGap
	}
	return Chart{ID: id, Height: top - panelGap + 40, Option: o}
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

func r2(v float64) float64 { return math.Round(v*100) / 100 }

func join(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += " · "
		}
		out += l
	}
	return out
}
