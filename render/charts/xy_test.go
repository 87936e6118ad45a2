package charts

import (
	"math"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	ch := Lines("chart-curve-1", []XYPanel{{
		XName: "Interactivity", YName: "tok/s/GPU",
		Series: []XYSeries{
			{Name: "A", Color: "#4e79a7", Points: []XYPoint{{X: 100.004, Y: 2000, Tip: []string{"A @ concurrency 1", "TTFT p99 10 ms"}}, {X: math.NaN(), Y: 1}}},
			{Name: "Pareto frontier", Frontier: true, Points: []XYPoint{{X: 50, Y: 3000}, {X: 100, Y: 2000}}},
		},
		Limits: []Limit{{Label: "SLO tpot_p99 ≤ 50 ms", Y: 50}},
	}})
	js, err := ch.JSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	for _, want := range []string{
		`"data":[{"name":"A @ concurrency 1 · TTFT p99 10 ms","value":[100,2000]}]`, // NaN point dropped, rounded
		`"name":"Pareto frontier","type":"line","step":"start"`, `"lineStyle":{"color":"#7f7f7f","width":4,"type":"dashed"},"z":2`, `"z":3`,
		`"symbol":["none","none"]`, `"silent":true}`, `"markLine":{"data":[{"name":"SLO tpot_p99 ≤ 50 ms","yAxis":50}]`,
		// The reader's tools; no dataZoom for a line of one point.
		`"feature":{"saveAsImage":{"show":true,"name":"chart-curve-1","title":"Save as image"},"dataView":{"show":true,"title":"Data view"`,
		`"tooltip":{"trigger":"item","formatter":"{a}\u003cbr/\u003e{b}"}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("option lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "dataZoom") {
		t.Error("a line of one point zooms")
	}
	// The markLine is on the panel's first series only.
	if strings.Count(s, "markLine") != 1 {
		t.Errorf("%d markLines", strings.Count(s, "markLine"))
	}
	js2, _ := Lines("chart-curve-1", []XYPanel{{XName: "Interactivity", YName: "tok/s/GPU", Series: []XYSeries{
		{Name: "A", Color: "#4e79a7", Points: []XYPoint{{X: 100.004, Y: 2000, Tip: []string{"A @ concurrency 1", "TTFT p99 10 ms"}}, {X: math.NaN(), Y: 1}}},
		{Name: "Pareto frontier", Frontier: true, Points: []XYPoint{{X: 50, Y: 3000}, {X: 100, Y: 2000}}},
	}, Limits: []Limit{{Label: "SLO tpot_p99 ≤ 50 ms", Y: 50}}}}).JSON()
	if string(js2) != s {
		t.Error("not deterministic")
	}
}

// TestLinesZoom: a sweep of zoomPoints points or more on a line zooms
// over x (inside and a slider, on the panels that have such a line) and
// the chart grows for the slider; a log axis keeps its base.
func TestLinesZoom(t *testing.T) {
	var many, few []XYPoint
	for i := 0; i < zoomPoints; i++ {
		many = append(many, XYPoint{X: float64(int(1) << i), Y: float64(i)})
	}
	few = many[:zoomPoints-1]
	short := Lines("c", []XYPanel{{XLog: true, Series: []XYSeries{{Name: "a", Points: few}}}})
	long := Lines("c", []XYPanel{{XLog: true, Series: []XYSeries{{Name: "a", Points: few}}}, {XLog: true, Series: []XYSeries{{Name: "b", Points: many}}}})
	js, err := short.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "dataZoom") || !strings.Contains(string(js), `"type":"log"`) || !strings.Contains(string(js), `"logBase":2`) {
		t.Errorf("%d points: %s", len(few), js)
	}
	js, err = long.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `"dataZoom":[{"type":"inside","xAxisIndex":[1],"filterMode":"none"},{"type":"slider","xAxisIndex":[1],"filterMode":"none"}]`; !strings.Contains(string(js), want) {
		t.Errorf("%d points: no %s in %s", len(many), want, js)
	}
	if long.Height != 2*xyPanelHeight+panelGap+topPad+40+sliderHeight {
		t.Errorf("height %d: no room for the slider", long.Height)
	}
}
