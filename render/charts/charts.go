package charts

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	echarts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Palette: blue for the baseline, orange for the optimized configuration,
// as GPUStack's charts use; more series cycle through the rest.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

// Palette is the charts' colours in series order (a copy), for a caller
// that colours one series alike across panels.
func Palette() []string { return append([]string(nil), palette...) }

// Series is one named series of a panel: one value per category. A nil
// value is a missing run (drawn as a gap). Labels, when set, replace the
// value label of the bar at the same index (e.g. "4284.68\n+82.1%").
type Series struct {
	Name   string
	Values []*float64
	Labels []string
}

// Panel is one grid of grouped bars.
type Panel struct {
	Title      string
	YName      string // axis name with its unit: "Total token throughput (tok/s)"
	Categories []string
	Series     []Series
}

// Grouped describes a chart of one or more stacked panels sharing a
// legend. The chart's title belongs in the page (a caption), where it
// wraps on a phone; a panel's title names its metric.
type Grouped struct {
	Panels []Panel
}

// Chart is a chart ready for the page.
type Chart struct {
	// ID is the element id of the chart's container.
	ID string
	// Height is the container height in pixels.
	Height int
	// chart is the go-echarts chart (*echarts.Bar or *echarts.Line).
	chart option
}

// option is what a go-echarts chart offers for its option object.
type option interface {
	Validate()
	JSON() map[string]any
}

const (
	panelHeight        = 230
	stackedPanelHeight = 170
	panelGap           = 70
	topPad             = 64
	sliderHeight       = 50 // room under the panels for a dataZoom slider
)

// base sets what every chart shares: transparent background (the page's
// theme shows through), the palette, the legend, the toolbox.
func base(id string) []echarts.GlobalOpts {
	return []echarts.GlobalOpts{
		echarts.WithInitializationOpts(opts.Initialization{BackgroundColor: "transparent", ChartID: id}),
		echarts.WithColorsOpts(opts.Colors(palette)),
		// The legend leaves the top right corner to the toolbox.
		echarts.WithLegendOpts(opts.Legend{Type: "scroll", Top: "0", Width: "70%"}),
		echarts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "8", Top: "0", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "Save as image", Name: id},
			DataView: &opts.ToolBoxFeatureDataView{Show: opts.Bool(true), Title: "Data view",
				Lang: []string{"Data view", "Close", "Refresh"}, BackgroundColor: "#fff"},
		}}),
	}
}

func panelTitle(text string, top int) opts.Title {
	return opts.Title{Title: text, Left: "center", Top: strconv.Itoa(top - 26), TitleStyle: &opts.TextStyle{FontSize: 12, FontWeight: "normal"}}
}

// Bars builds a grouped bar chart with fixed id.
func Bars(id string, g Grouped) Chart { return bars(id, g, newBar()) }

// bars is Bars into bar, a new chart.
func bars(id string, g Grouped, bar *echarts.Bar) Chart {
	v := &panelVisitor{}
	bar.Accept(v)
	bar.SetGlobalOptions(append(base(id),
		echarts.WithTooltipOpts(opts.Tooltip{Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}))...)
	height := panelHeight
	if len(g.Panels) > 1 {
		height = stackedPanelHeight // stacked panels share the screen
	}
	if len(g.Panels) > 0 { // else go-echarts' default axes
		bar.XAxisList, bar.YAxisList = nil, nil
	}
	top := topPad
	for i, p := range g.Panels {
		if i == 0 {
			bar.SetXAxis(p.Categories)
		}
		if p.Title != "" {
			v.titles = append(v.titles, panelTitle(p.Title, top))
		}
		bar.SetGlobalOptions(echarts.WithGridOpts(opts.Grid{Left: "3%", Right: "3%", Top: strconv.Itoa(top), Height: strconv.Itoa(height), ContainLabel: opts.Bool(true)}))
		bar.ExtendXAxis(opts.XAxis{Type: "category", GridIndex: i, Data: p.Categories, AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true)}})
		bar.ExtendYAxis(opts.YAxis{Type: "value", GridIndex: i, Name: p.YName, NameLocation: "end", NameGap: 10})
		v.xAxes = append(v.xAxes, axisExtra{LabelInterval: ptr(0)})
		v.yAxes = append(v.yAxes, axisExtra{NameTextStyle: &opts.TextStyle{Align: "left", FontSize: 11}})
		for _, s := range p.Series {
			data := make([]opts.BarData, len(s.Values))
			for j, val := range s.Values {
				data[j] = opts.BarData{Value: round2(val)}
				if j < len(s.Labels) && s.Labels[j] != "" {
					data[j].Label = &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: s.Labels[j], FontSize: 10, LineHeight: 13}
				}
			}
			bar.AddSeries(s.Name, data,
				echarts.WithBarChartOpts(opts.BarChart{XAxisIndex: i, YAxisIndex: i}),
				echarts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", FontSize: 10}),
				echarts.WithSeriesOpts(func(s *echarts.SingleSeries) { s.BarMaxWidth = "48" }))
			v.series = append(v.series, seriesExtra{})
		}
		top += height + panelGap
	}
	return Chart{ID: id, Height: top - panelGap + 40, chart: bar}
}

func ptr[T any](v T) *T { return &v }

// round2 keeps two decimals, as the tables print them, so the tooltip's
// exact value and the table agree; a nil pointer (null: a gap, where
// go-echarts would leave out a nil interface) for a missing value.
func round2(v *float64) *float64 {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return nil
	}
	r := math.Round(*v*100) / 100
	return &r
}

// JSON returns the option as compact JSON, safe to embed in a
// <script type="application/json"> element (<, > and & are escaped).
func (c Chart) JSON() ([]byte, error) {
	c.chart.Validate()
	b, err := json.Marshal(c.chart.JSON())
	if err != nil {
		return nil, fmt.Errorf("charts: %s: %w", c.ID, err)
	}
	return b, nil
}

// panelVisitor writes into go-echarts' option map what its option types
// have no field for (package doc): per panel, a title; per axis and
// series, the extras at the same index; a History chart's tips.
type panelVisitor struct {
	echarts.BaseConfigurationVisitor
	titles       []opts.Title
	xAxes, yAxes []axisExtra
	series       []seriesExtra
	// tips, when not nil, is the option's "history" key (History).
	tips any
}

// axisExtra is what an axis needs beyond opts.XAxis and opts.YAxis.
type axisExtra struct {
	LogBase       int
	NameTextStyle *opts.TextStyle
	LabelInterval *int // a number, not go-echarts' string
}

// seriesExtra is what a series needs beyond echarts.SingleSeries.
type seriesExtra struct {
	Z              int
	MarkLineSilent bool
	// MarkLineSymbol and MarkPointSymbol, when set, are one symbol for
	// the mark (go-echarts writes a list, one per end of a line).
	MarkLineSymbol, MarkPointSymbol string
}

// xAxis and yAxis are go-echarts' axes with the extras.
type xAxis struct {
	opts.XAxis
	LogBase       int             `json:"logBase,omitempty"`
	NameTextStyle *opts.TextStyle `json:"nameTextStyle,omitempty"`
	AxisLabel     *axisLabel      `json:"axisLabel,omitempty"`
}

type yAxis struct {
	opts.YAxis
	NameTextStyle *opts.TextStyle `json:"nameTextStyle,omitempty"`
}

// axisLabel is go-echarts' with a numeric interval.
type axisLabel struct {
	opts.AxisLabel
	Interval *int `json:"interval,omitempty"`
}

type series struct {
	echarts.SingleSeries
	Z         int        `json:"z,omitempty"`
	MarkLine  any        `json:"markLine,omitempty"` // *markLine or *markLineSymbol
	MarkPoint *markPoint `json:"markPoint,omitempty"`
}

type markLine struct {
	*opts.MarkLines
	Silent bool `json:"silent"`
}

// markLineSymbol is a markLine with one symbol for both ends.
type markLineSymbol struct {
	markLine
	Symbol string `json:"symbol"`
}

type markPoint struct {
	*opts.MarkPoints
	Symbol any `json:"symbol,omitempty"`
}

func (v *panelVisitor) VisitTitleOpt(opts.Title) any { return v.titles }

func (v *panelVisitor) VisitXAxis(axes []opts.XAxis) any {
	out := make([]xAxis, len(axes))
	for i, a := range axes {
		out[i].XAxis = a
		if i < len(v.xAxes) {
			e := v.xAxes[i]
			out[i].LogBase, out[i].NameTextStyle = e.LogBase, e.NameTextStyle
			if a.AxisLabel != nil || e.LabelInterval != nil {
				out[i].AxisLabel = &axisLabel{Interval: e.LabelInterval}
				if a.AxisLabel != nil {
					out[i].AxisLabel.AxisLabel = *a.AxisLabel
				}
			}
		}
	}
	return out
}

func (v *panelVisitor) VisitYAxis(axes []opts.YAxis) any {
	out := make([]yAxis, len(axes))
	for i, a := range axes {
		out[i].YAxis = a
		if i < len(v.yAxes) {
			out[i].NameTextStyle = v.yAxes[i].NameTextStyle
		}
	}
	return out
}

func (v *panelVisitor) VisitSeriesOpt(ms echarts.MultiSeries) any {
	out := make([]series, len(ms))
	for i, s := range ms {
		out[i].SingleSeries = s
		var ex seriesExtra
		if i < len(v.series) {
			ex = v.series[i]
		}
		out[i].Z = ex.Z
		if s.MarkLines != nil {
			ml := markLine{MarkLines: s.MarkLines, Silent: ex.MarkLineSilent}
			out[i].MarkLine = &ml
			if sym := ex.MarkLineSymbol; sym != "" {
				out[i].MarkLine = &markLineSymbol{markLine: ml, Symbol: sym}
			}
		}
		if s.MarkPoints != nil {
			out[i].MarkPoint = &markPoint{MarkPoints: s.MarkPoints, Symbol: markSymbol(s.MarkPoints.Symbol, ex.MarkPointSymbol)}
		}
	}
	return out
}

// markSymbol is one symbol when set, else go-echarts' list (nil: none).
func markSymbol(list []string, one string) any {
	if one != "" {
		return one
	}
	if list == nil {
		return nil
	}
	return list
}

// VisitDatasets writes a single dataset as an object, as ECharts'
// examples do (go-echarts writes a list of one).
func (v *panelVisitor) VisitDatasets(ds ...opts.Dataset) any {
	if len(ds) == 1 {
		return ds[0]
	}
	return ds
}

// Visit adds a History chart's tips as "history".
func (v *panelVisitor) Visit(o map[string]any) {
	if v.tips != nil {
		o["history"] = v.tips
	}
}
