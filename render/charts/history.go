package charts

import (
	"strconv"

	echarts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// History describes a line chart over rounds drawn from one dataset: a
// row per round (x, then each line's columns), so a page of 100 rounds
// carries each number once; each line reads its x and y columns from
// the rows (encode).
type History struct {
	// x is a category axis named "round": the rounds evenly spaced in
	// row order, each labelled by its row's x (its id and date), so that
	// rounds days or months apart, or started in the same second, each
	// keep their place (a time axis piled a day's rounds into one spike).
	YName string
	// Rows is the dataset: one row per round, x first. A nil cell is a
	// missing value (the line joins over it).
	Rows [][]any
	// Lines are the series, in legend order.
	Lines []HistoryLine
	// XMarks are vertical lines across the grid at an x (drawn with the
	// first line, named on the chart).
	XMarks []XMark
	// Tips is written as the option's "history" key, which the page's
	// script (site.js, historyTip) reads, and removes, to draw the hover
	// text; nil writes none.
	Tips any
}

// HistoryLine is one line of a History chart.
type HistoryLine struct {
	Name string
	// YColumn is the index in a row of the line's y (x is column 0).
	YColumn int
	// Pins mark points of the line (change points).
	Pins []Pin
}

// Pin is a pin on a line at (X, Y) showing Label. A Failure pin marks
// a round where the line's runs went wrong (no value): a red triangle
// pointing down, Label under it, Name its hover text.
type Pin struct {
	X       any
	Y       float64
	Label   string
	Name    string
	Failure bool
}

// failureColor is a Failure pin's.
const failureColor = "#d62728"

// pinItem is p as a mark point of the line.
func pinItem(p Pin) opts.MarkPointNameCoordItem {
	it := opts.MarkPointNameCoordItem{Name: p.Name, Coordinate: []any{p.X, r2(p.Y)}, Value: p.Label}
	if p.Failure {
		it.Symbol, it.SymbolSize, it.SymbolRotate = "triangle", 14, 180
		it.ItemStyle = &opts.ItemStyle{Color: failureColor}
		it.Label = &opts.Label{Show: opts.Bool(true), Position: "bottom", Color: failureColor, FontSize: 10}
	}
	return it
}

// XMark is a vertical line at X named Name.
type XMark struct {
	X    any
	Name string
}

const markColor = "#7f7f7f"

// HistoryChart builds a History chart with fixed id.
func HistoryChart(id string, h History) Chart { return historyChart(id, h, newLine()) }

// historyChart is HistoryChart into line, a new chart.
func historyChart(id string, h History, line *echarts.Line) Chart {
	v := &panelVisitor{tips: h.Tips}
	line.Accept(v)
	line.SetGlobalOptions(append(base(id),
		echarts.WithTooltipOpts(opts.Tooltip{Trigger: "item"}),
		echarts.WithGridOpts(opts.Grid{Left: "3%", Right: "6%", Top: strconv.Itoa(topPad), Height: strconv.Itoa(xyPanelHeight), ContainLabel: opts.Bool(true)}))...)
	line.XAxisList = []opts.XAxis{{Type: "category", Name: "round", NameLocation: "middle", NameGap: 40}}
	line.YAxisList = []opts.YAxis{{Type: "value", Scale: opts.Bool(true), Name: h.YName, NameLocation: "end", NameGap: 10}}
	v.xAxes = []axisExtra{{NameTextStyle: &opts.TextStyle{FontSize: 11}}}
	v.yAxes = []axisExtra{{NameTextStyle: &opts.TextStyle{Align: "left", FontSize: 11}}}
	line.AddDataset(opts.Dataset{Source: h.Rows})
	for li, l := range h.Lines {
		// Past the palette's colours, which repeat, a line differs by
		// its symbol and dash (lineLook).
		symbol, dash := lineLook(li)
		so := []echarts.SeriesOpts{
			echarts.WithEncodeOpts(opts.Encode{X: 0, Y: l.YColumn}),
			echarts.WithLineChartOpts(opts.LineChart{Symbol: symbol, SymbolSize: 6, ConnectNulls: opts.Bool(true)}),
		}
		if dash != "" {
			so = append(so, echarts.WithLineStyleOpts(opts.LineStyle{Type: dash}))
		}
		var ex seriesExtra
		if len(l.Pins) > 0 {
			ex.MarkPointSymbol = "pin"
			so = append(so, echarts.WithMarkPointStyleOpts(opts.MarkPointStyle{SymbolSize: 40, Label: &opts.Label{FontSize: 10}}))
			for _, p := range l.Pins {
				so = append(so, echarts.WithMarkPointNameCoordItemOpts(pinItem(p)))
			}
		}
		if li == 0 && len(h.XMarks) > 0 {
			ex.MarkLineSilent = true
			ex.MarkLineSymbol = "none"
			so = append(so, echarts.WithMarkLineStyleOpts(opts.MarkLineStyle{
				LineStyle: &opts.LineStyle{Type: "dotted", Color: markColor, Width: 1.5},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}", FontSize: 10}}))
			for _, m := range h.XMarks {
				so = append(so, echarts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: m.Name, XAxis: m.X}))
			}
		}
		line.AddSeries(l.Name, nil, so...)
		// The line reads the dataset (encode): no data of its own.
		line.MultiSeries[len(line.MultiSeries)-1].Data = nil
		v.series = append(v.series, ex)
	}
	height := topPad + xyPanelHeight + 40
	if len(h.Rows) > historyZoomRows {
		// Many rounds: wheel and drag zoom, and a slider under the grid.
		line.SetGlobalOptions(echarts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: 0, FilterMode: "none"},
			opts.DataZoom{Type: "slider", XAxisIndex: 0, FilterMode: "none"}))
		height += sliderHeight
	}
	return Chart{ID: id, Height: height, chart: line}
}

// historyZoomRows is the most rounds a history chart shows without a
// zoom (the history table's columns).
const historyZoomRows = 12

// lineSymbols and lineDashes tell apart the lines of a chart that
// has more than the palette's colours: the palette's first round of
// lines is drawn with circles and solid lines, the next with squares and
// dashes, and so on.
var (
	lineSymbols = []string{"circle", "rect", "triangle", "diamond", "roundRect"}
	lineDashes  = []string{"", "dashed", "dotted"}
)

// lineLook is line li's symbol and dash ("" for solid).
func lineLook(li int) (symbol, dash string) {
	k := li / len(palette)
	return lineSymbols[k%len(lineSymbols)], lineDashes[k%len(lineDashes)]
}
