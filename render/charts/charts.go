package charts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Palette: blue for the baseline, orange for the optimized configuration,
// as GPUStack's charts use; more series cycle through the rest.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

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
	// Option is the ECharts option: an Option (bars) or an XYOption (lines).
	Option any
}

// Option is the subset of ECharts' option object we use.
type Option struct {
	BackgroundColor string    `json:"backgroundColor"`
	Color           []string  `json:"color"`
	Title           []Title   `json:"title"`
	Tooltip         Tooltip   `json:"tooltip"`
	Legend          Legend    `json:"legend"`
	Grid            []Grid    `json:"grid"`
	XAxis           []Axis    `json:"xAxis"`
	YAxis           []Axis    `json:"yAxis"`
	Series          []BarSpec `json:"series"`
}

// Title is a (sub)title.
type Title struct {
	Text      string         `json:"text"`
	Left      string         `json:"left,omitempty"`
	Top       int            `json:"top"`
	TextStyle map[string]any `json:"textStyle,omitempty"`
}

// Tooltip shows exact values on hover.
type Tooltip struct {
	Trigger     string      `json:"trigger"`
	AxisPointer AxisPointer `json:"axisPointer"`
}

// AxisPointer configures the tooltip's pointer.
type AxisPointer struct {
	Type string `json:"type"`
}

// Legend lists the series names.
type Legend struct {
	Top  int    `json:"top"`
	Type string `json:"type,omitempty"`
}

// Grid places a panel.
type Grid struct {
	Left         string `json:"left"`
	Right        string `json:"right"`
	Top          int    `json:"top"`
	Height       int    `json:"height"`
	ContainLabel bool   `json:"containLabel"`
}

// Axis is an x or y axis.
type Axis struct {
	Type         string   `json:"type"`
	GridIndex    int      `json:"gridIndex"`
	Data         []string `json:"data,omitempty"`
	Name         string   `json:"name,omitempty"`
	NameLocation string   `json:"nameLocation,omitempty"`
	NameGap      int      `json:"nameGap,omitempty"`
	// NameTextStyle is a small fixed set of keys (encoding/json sorts map keys).
	NameTextStyle map[string]any `json:"nameTextStyle,omitempty"`
	AxisLabel     AxisLabel      `json:"axisLabel"`
}

// AxisLabel configures axis tick labels.
type AxisLabel struct {
	Interval    int  `json:"interval"`
	HideOverlap bool `json:"hideOverlap"`
}

// BarSpec is one bar series.
type BarSpec struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	XAxisIndex  int     `json:"xAxisIndex"`
	YAxisIndex  int     `json:"yAxisIndex"`
	Data        []Datum `json:"data"`
	Label       Label   `json:"label"`
	BarMaxWidth int     `json:"barMaxWidth"`
}

// Datum is one bar; Value is null for a missing run.
type Datum struct {
	Value *float64 `json:"value"`
	Label *Label   `json:"label,omitempty"`
}

// Label is a bar's value label.
type Label struct {
	Show       bool   `json:"show"`
	Position   string `json:"position,omitempty"`
	Formatter  string `json:"formatter,omitempty"`
	FontSize   int    `json:"fontSize,omitempty"`
	LineHeight int    `json:"lineHeight,omitempty"`
}

const (
	panelHeight        = 230
	stackedPanelHeight = 170
	panelGap           = 70
	topPad             = 64
)

// Bars builds a grouped bar chart with fixed id.
func Bars(id string, g Grouped) Chart {
	o := Option{
		BackgroundColor: "transparent",
		Color:           palette,
		Tooltip:         Tooltip{Trigger: "axis", AxisPointer: AxisPointer{Type: "shadow"}},
		Legend:          Legend{Top: 0, Type: "scroll"},
	}
	height := panelHeight
	if len(g.Panels) > 1 {
		height = stackedPanelHeight // stacked panels share the screen
	}
	top := topPad
	for i, p := range g.Panels {
		if p.Title != "" {
			o.Title = append(o.Title, Title{Text: p.Title, Left: "center", Top: top - 26, TextStyle: map[string]any{"fontSize": 12, "fontWeight": "normal"}})
		}
		o.Grid = append(o.Grid, Grid{Left: "3%", Right: "3%", Top: top, Height: height, ContainLabel: true})
		o.XAxis = append(o.XAxis, Axis{Type: "category", GridIndex: i, Data: p.Categories, AxisLabel: AxisLabel{Interval: 0, HideOverlap: true}})
		o.YAxis = append(o.YAxis, Axis{Type: "value", GridIndex: i, Name: p.YName, NameLocation: "end", NameGap: 10,
			NameTextStyle: map[string]any{"align": "left", "fontSize": 11}})
		for _, s := range p.Series {
			b := BarSpec{Name: s.Name, Type: "bar", XAxisIndex: i, YAxisIndex: i,
				Label: Label{Show: true, Position: "top", FontSize: 10}, BarMaxWidth: 48}
			for j, v := range s.Values {
				d := Datum{Value: round2(v)}
				if j < len(s.Labels) && s.Labels[j] != "" {
					d.Label = &Label{Show: true, Position: "top", Formatter: s.Labels[j], FontSize: 10, LineHeight: 13}
				}
				b.Data = append(b.Data, d)
			}
			o.Series = append(o.Series, b)
		}
		top += height + panelGap
	}
	return Chart{ID: id, Height: top - panelGap + 40, Option: o}
}

// round2 keeps two decimals, as the tables print them, so the tooltip's
// exact value and the table agree.
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(c.Option); err != nil {
		return nil, fmt.Errorf("charts: %s: %w", c.ID, err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Palette returns the series colours charts use, in order (a chart built
// outside this package draws in the same colours).
func Palette() []string { return append([]string(nil), palette...) }
