package charts

import (
	"fmt"
	"testing"
)

// benchPanels is a report's two charts: a throughput bar chart of five
// benchmark cases and a latency chart of three panels.
func benchPanels() (Grouped, Grouped) {
	one := Panel{YName: "Total token throughput (tok/s)"}
	for i := 0; i < 5; i++ {
		one.Categories = append(one.Categories, fmt.Sprintf("Case %d", i))
	}
	for s := 0; s < 2; s++ {
		ser := Series{Name: fmt.Sprintf("Series %d", s)}
		for i := 0; i < 5; i++ {
			ser.Values = append(ser.Values, f(float64(1000*i+s)))
			ser.Labels = append(ser.Labels, fmt.Sprintf("%d\n+1.0%%", i))
		}
		one.Series = append(one.Series, ser)
	}
	lat := Grouped{Panels: []Panel{one, one, one}}
	return Grouped{Panels: []Panel{one}}, lat
}

// BenchmarkReportCharts builds and encodes a report's two bar charts.
func BenchmarkReportCharts(b *testing.B) {
	tp, lat := benchPanels()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, g := range []Grouped{tp, lat} {
			if _, err := Bars("chart-bar-1", g).JSON(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
