package charts

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestHistoryChart: the dataset is one object of rows, each line reads
// its columns (encode, no data of its own), pins and the version line
// carry one symbol (a string, as ECharts reads a mark point's), and the
// tips are the "history" key the page's script reads; the toolbox is
// every chart's.
func TestHistoryChart(t *testing.T) {
	ch := HistoryChart("chart-history-1", History{
		YName: "total throughput per GPU (tok/s)",
		Rows:  [][]any{{1, 100.0, 0.0, 1, nil, nil, nil}, {2, 120.004, 2.5, 3, 90.0, 0.0, 1}},
		Lines: []HistoryLine{
			{Name: "A", YColumn: 1, Pins: []Pin{{X: 2, Y: 120.004, Label: "+20%"}}},
			{Name: "B", YColumn: 4},
		},
		XMarks: []XMark{{X: 2, Name: "vllm 0.15.1"}},
		Tips:   map[string]any{"rounds": [][3]string{{"1", "", ""}, {"2", "", "abc1234"}}},
	})
	js, err := ch.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Dataset map[string][][]any `json:"dataset"`
		XAxis   []map[string]any   `json:"xAxis"`
		Series  []map[string]any   `json:"series"`
		History map[string]any     `json:"history"`
		Toolbox map[string]any     `json:"toolbox"`
	}
	if err := json.Unmarshal(js, &o); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(o.Dataset["source"]) != 2 || o.Dataset["source"][0][4] != nil || o.Dataset["source"][1][1] != 120.004 {
		t.Errorf("dataset %v", o.Dataset)
	}
	if x := o.XAxis[0]; x["type"] != "category" || x["name"] != "round" {
		t.Errorf("x axis %v", x)
	}
	if len(o.Series) != 2 {
		t.Fatalf("%d series", len(o.Series))
	}
	for i, s := range o.Series {
		if _, ok := s["data"]; ok {
			t.Errorf("series %d has data of its own: %v", i, s["data"])
		}
		if want := map[string]any{"x": 0.0, "y": float64(1 + 3*i)}; !reflect.DeepEqual(s["encode"], want) {
			t.Errorf("series %d encode %v, want %v", i, s["encode"], want)
		}
	}
	mp, _ := o.Series[0]["markPoint"].(map[string]any)
	if mp["symbol"] != "pin" || !reflect.DeepEqual(mp["data"], []any{map[string]any{"coord": []any{2.0, 120.0}, "value": "+20%"}}) {
		t.Errorf("pins %v", mp)
	}
	ml, _ := o.Series[0]["markLine"].(map[string]any)
	if ml["symbol"] != "none" || ml["silent"] != true || !reflect.DeepEqual(ml["data"], []any{map[string]any{"name": "vllm 0.15.1", "xAxis": 2.0}}) {
		t.Errorf("version line %v", ml)
	}
	if _, ok := o.Series[1]["markPoint"]; ok {
		t.Error("a line without change points has pins")
	}
	if _, ok := o.Series[1]["markLine"]; ok {
		t.Error("the version line is drawn twice")
	}
	if r, _ := o.History["rounds"].([]any); len(r) != 2 {
		t.Errorf("history %v", o.History)
	}
	if !strings.Contains(string(js), `"saveAsImage":{"show":true,"name":"chart-history-1"`) || o.Toolbox["feature"].(map[string]any)["dataView"] == nil {
		t.Errorf("toolbox %v", o.Toolbox)
	}

	if strings.Contains(string(js), "dataZoom") {
		t.Error("a zoom on a chart of 2 rounds")
	}
}

// TestHistoryChartMany: a review found a history of 14 rounds and 12+
// lines unreadable: colours repeat past the palette's 8 (two orange
// lines), and no zoom. Past the palette a line gets another symbol and
// dash; past historyZoomRows rounds the chart zooms.
func TestHistoryChartMany(t *testing.T) {
	h := History{}
	for ri := range 14 {
		row := []any{strconv.Itoa(ri + 1)}
		for range 17 {
			row = append(row, 100.0, 0.0, 1)
		}
		h.Rows = append(h.Rows, row)
	}
	for li := range 17 {
		h.Lines = append(h.Lines, HistoryLine{Name: "L" + strconv.Itoa(li), YColumn: 1 + 3*li})
	}
	ch := HistoryChart("h", h)
	js, err := ch.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Series   []map[string]any `json:"series"`
		DataZoom []map[string]any `json:"dataZoom"`
	}
	if err := json.Unmarshal(js, &o); err != nil {
		t.Fatal(err)
	}
	look := map[string]bool{}
	for li, s := range o.Series {
		dash := ""
		if ls, ok := s["lineStyle"].(map[string]any); ok {
			dash, _ = ls["type"].(string)
		}
		k := palette[li%len(palette)] + " " + s["symbol"].(string) + " " + dash
		if look[k] {
			t.Errorf("line %d looks like an earlier one: %s", li, k)
		}
		look[k] = true
	}
	if len(o.DataZoom) != 2 || ch.Height != topPad+xyPanelHeight+40+sliderHeight {
		t.Errorf("14 rounds: dataZoom %v, height %d", o.DataZoom, ch.Height)
	}
}
