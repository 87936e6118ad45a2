package charts

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

func f(v float64) *float64 { return &v }

// TestBarsGolden: the option JSON is stable (go-echarts' option map,
// keys sorted) and carries exact values, gaps (null, not a left-out
// value) and delta labels, with the toolbox.
func TestBarsGolden(t *testing.T) {
	ch := Bars("chart-bar-1", Grouped{Panels: []Panel{{
		YName:      "Total token throughput (tok/s)",
		Categories: []string{"ShareGPT", "Long <Prompt>"},
		Series: []Series{
			{Name: "Baseline", Values: []*float64{f(2352.824), f(2148.69)}},
			// A crashed run is a gap (null), never a zero bar.
			{Name: "Optimized", Values: []*float64{f(4284.68), nil}, Labels: []string{"4284.68\n+82.1%", ""}},
		},
	}}})
	got, err := ch.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "bars.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got)+"\n" != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	s := string(got)
	for _, sub := range []string{`"value":2352.82`, `"value":null`, `"formatter":"4284.68\n+82.1%"`, `Long \u003cPrompt\u003e`, `"saveAsImage":{"show":true`, `"dataView":{"show":true`, `"interval":0`} {
		if !strings.Contains(s, sub) {
			t.Errorf("missing %s", sub)
		}
	}
	if ch.ID != "chart-bar-1" || ch.Height <= 0 {
		t.Errorf("id %q height %d", ch.ID, ch.Height)
	}
}
