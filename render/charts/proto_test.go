package charts

import (
	"reflect"
	"slices"
	"testing"

	echarts "github.com/go-echarts/go-echarts/v2/charts"
)

// references lists the paths of the fields of v, a struct, that hold a
// reference (pointer, slice, map, interface, func, chan) that is not
// nil, looking into nested structs.
func references(v reflect.Value, path string) []string {
	var out []string
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), path+v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Struct:
			out = append(out, references(f, name+".")...)
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
			if !f.IsNil() {
				out = append(out, name)
			}
		}
	}
	return out
}

// TestProtoReferences: the prototypes newBar and newLine copy hold
// references only where unshare gives each copy its own. A go-echarts
// upgrade that sets another fails here: unshare must then cover it.
func TestProtoReferences(t *testing.T) {
	rect := "RectChart.RectConfiguration.BaseConfiguration."
	want := []string{
		rect + "Renderer",
		rect + "Assets.JSAssets.filter", rect + "Assets.JSAssets.Values",
		rect + "Assets.CSSAssets.filter",
		rect + "Assets.CustomizedJSAssets.filter", rect + "Assets.CustomizedCSSAssets.filter",
		rect + "Assets.CustomizedHeaders.filter",
		rect + "XYAxis.XAxisList", rect + "XYAxis.YAxisList",
		rect + "Colors",
	}
	for name, proto := range map[string]any{"bar": protoBar(), "line": protoLine()} {
		got := references(reflect.ValueOf(proto).Elem(), "")
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s prototype holds references at\n%q\nwant\n%q", name, got, want)
		}
	}
}

// TestProtoCopies: charts built from the prototypes, in either order,
// give the bytes of charts built by go-echarts' NewBar and NewLine, and
// a copy's state never reaches another copy or a later one.
func TestProtoCopies(t *testing.T) {
	tp, lat := benchPanels()
	hist := History{YName: "tok/s", Rows: [][]any{{1, 100.0}, {2, 120.0}},
		Lines:  []HistoryLine{{Name: "A", YColumn: 1, Pins: []Pin{{X: 2, Y: 120, Label: "+20%"}}}},
		XMarks: []XMark{{X: 2, Name: "v2"}}}
	xy := []XYPanel{{XName: "x", YName: "y", XLog: true, Series: []XYSeries{{Name: "a", Points: []XYPoint{{X: 1, Y: 2}, {X: 2, Y: 3}}}}}}
	build := []func(fresh bool) Chart{
		func(fresh bool) Chart { return bars("b1", tp, pick(fresh, echarts.NewBar, newBar)) },
		func(fresh bool) Chart { return bars("b2", lat, pick(fresh, echarts.NewBar, newBar)) },
		func(fresh bool) Chart { return bars("b3", Grouped{}, pick(fresh, echarts.NewBar, newBar)) },
		func(fresh bool) Chart { return lines("l1", xy, pick(fresh, echarts.NewLine, newLine)) },
		func(fresh bool) Chart { return historyChart("h1", hist, pick(fresh, echarts.NewLine, newLine)) },
		func(fresh bool) Chart { return lines("l2", nil, pick(fresh, echarts.NewLine, newLine)) },
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}} {
		var got []Chart
		for _, i := range order {
			got = append(got, build[i](false))
		}
		for k, i := range order { // encoded after all were built
			a, err := got[k].JSON()
			if err != nil {
				t.Fatal(err)
			}
			b, err := build[i](true).JSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(b) {
				t.Errorf("order %v, chart %d: from the prototype\n%s\nfresh\n%s", order, i, a, b)
			}
		}
	}

	// A chart's writes to what it got from the prototype stay its own.
	one := newBar()
	one.SetXAxis([]string{"a", "b"})
	one.Colors[0] = "#000000"
	one.YAxisList[0].Name = "written"
	one.Validate()
	one.JSAssets.Add("extra.js")
	two := newBar()
	two.Validate()
	ref := echarts.NewBar()
	ref.Validate()
	if !reflect.DeepEqual(two.Assets, ref.Assets) || !slices.Equal(two.Colors, ref.Colors) {
		t.Errorf("a copy's assets or colours differ from NewBar's: %+v %v, want %+v %v", two.Assets, two.Colors, ref.Assets, ref.Colors)
	}
	a, b := two.JSON(), ref.JSON()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("a later copy: %v\nwant %v", a, b)
	}
	if d := one.XAxisList[0].Data; !reflect.DeepEqual(d, []string{"a", "b"}) {
		t.Errorf("the first copy's category axis: %v, want its own [a b]", d)
	}
}

func pick[T any](fresh bool, newFresh, newCopy func() T) T {
	if fresh {
		return newFresh()
	}
	return newCopy()
}
