package charts

import (
	"math"
	"strconv"

	echarts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

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

const (
	frontierColor = "#7f7f7f"
	limitColor    = "#d62728"
	xyPanelHeight = 300
)

// zoomPoints is the number of points on one line from which a line
// chart zooms over x (a sweep of concurrency 1 … 128 has 8).
const zoomPoints = 8

// Lines builds a chart of one or more stacked panels of lines over
// numeric axes, with a fixed id. Values are rounded to two decimals, as
// the tables print them; points with a NaN or infinite coordinate are
// left out.
func Lines(id string, panels []XYPanel) Chart { return lines(id, panels, newLine()) }

// lines is Lines into line, a new chart.
func lines(id string, panels []XYPanel, line *echarts.Line) Chart {
	v := &panelVisitor{}
	line.Accept(v)
	line.SetGlobalOptions(append(base(id),
		echarts.WithTooltipOpts(opts.Tooltip{Trigger: "item", Formatter: "{a}<br/>{b}"}))...)
	if len(panels) > 0 { // else go-echarts' default axes
		line.XAxisList, line.YAxisList = nil, nil
	}
	top := topPad
	var zoom []int
	for i, p := range panels {
		if p.Title != "" {
			v.titles = append(v.titles, panelTitle(p.Title, top))
		}
		line.SetGlobalOptions(echarts.WithGridOpts(opts.Grid{Left: "3%", Right: "6%", Top: strconv.Itoa(top), Height: strconv.Itoa(xyPanelHeight), ContainLabel: opts.Bool(true)}))
		x := opts.XAxis{Type: "value", GridIndex: i, Name: p.XName, NameLocation: "middle", NameGap: 28, Scale: opts.Bool(true)}
		xe := axisExtra{NameTextStyle: &opts.TextStyle{FontSize: 11}}
		if p.XLog {
			x.Type, x.Scale, xe.LogBase = "log", nil, 2
		}
		line.ExtendXAxis(x)
		line.ExtendYAxis(opts.YAxis{Type: "value", GridIndex: i, Name: p.YName, NameLocation: "end", NameGap: 10})
		v.xAxes = append(v.xAxes, xe)
		v.yAxes = append(v.yAxes, axisExtra{NameTextStyle: &opts.TextStyle{Align: "left", FontSize: 11}})
		many := false
		for si, s := range p.Series {
			lo := opts.LineChart{XAxisIndex: i, YAxisIndex: i, Symbol: "circle", SymbolSize: 7}
			ex := seriesExtra{Z: 3}
			var style *opts.LineStyle
			var item *opts.ItemStyle
			if s.Color != "" {
				style, item = &opts.LineStyle{Color: s.Color}, &opts.ItemStyle{Color: s.Color}
			}
			if s.Dashed {
				if style == nil {
					style = &opts.LineStyle{}
				}
				style.Type, lo.Symbol = "dashed", "triangle"
			}
			if s.Frontier {
				// A step down at each frontier point: past a point's
				// interactivity only the points right of it are attainable
				// (points come in increasing x).
				lo.Step, lo.SymbolSize, lo.Symbol, ex.Z = "start", nil, "none", 2
				style = &opts.LineStyle{Type: "dashed", Width: 4, Color: frontierColor}
				item = &opts.ItemStyle{Color: frontierColor}
			}
			var data []opts.LineData
			for _, pt := range s.Points {
				if bad(pt.X) || bad(pt.Y) {
					continue
				}
				data = append(data, opts.LineData{Name: join(pt.Tip), Value: [2]float64{r2(pt.X), r2(pt.Y)}})
			}
			many = many || len(data) >= zoomPoints && !s.Frontier
			so := []echarts.SeriesOpts{echarts.WithLineChartOpts(lo)}
			if style != nil {
				so = append(so, echarts.WithLineStyleOpts(*style))
			}
			if item != nil {
				so = append(so, echarts.WithItemStyleOpts(*item))
			}
			if si == 0 && len(p.Limits) > 0 {
				ex.MarkLineSilent = true
				so = append(so, echarts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
					LineStyle: &opts.LineStyle{Type: "dashed", Width: 1.5, Color: limitColor},
					Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}"}}))
				for _, lim := range p.Limits {
					so = append(so, echarts.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{Name: lim.Label, YAxis: r2(lim.Y)}))
				}
			}
			line.AddSeries(s.Name, data, so...)
			v.series = append(v.series, ex)
		}
		if many {
			zoom = append(zoom, i)
		}
		top += xyPanelHeight + panelGap
	}
	height := top - panelGap + 40
	if len(zoom) > 0 {
		// Wheel and drag zoom inside the panels, and one slider under
		// them for every zoomed x axis (the panels share the load axis).
		line.SetGlobalOptions(echarts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: zoom, FilterMode: "none"},
			opts.DataZoom{Type: "slider", XAxisIndex: zoom, FilterMode: "none"}))
		height += sliderHeight
	}
	return Chart{ID: id, Height: height, chart: line}
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
