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
		`"name":"Pareto frontier","type":"line"`, `"step":"start"`, `"type":"dashed","width":4,"color":"#7f7f7f"`,
		`"markLine":{"silent":true,"symbol":"none"`, `{"name":"SLO tpot_p99 ≤ 50 ms","yAxis":50}`,
		`"tooltip":{"trigger":"item","formatter":"{a}\u003cbr/\u003e{b}"}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("option lacks %s:\n%s", want, s)
		}
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
