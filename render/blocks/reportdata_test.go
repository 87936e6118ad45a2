package blocks

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/internal/bytediff"
)

// TestReportDataJSONEscapes: the HTML-safe escaping, map key order and
// number formats of encoding/json, on values chosen for them.
func TestReportDataJSONEscapes(t *testing.T) {
	v := map[string]any{"z": "<a href='x'>&</a>\u2028", "a": []float64{1e-7, 1e21, 123456789.125, 0.1, -0}, "m": map[string]int{"b": 1, "a": 2}, "e": []string{}, "o": struct{}{}}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got, err := marshalDataJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("got\n%s\nwant\n%s", got, want.Bytes())
	}
}

// TestReportDataJSONHostile: data.json's value with hostile strings (markup,
// quotes, NUL and control bytes, U+2028, direction marks, invalid UTF-8 in
// values and map keys), floats at encoding/json's format switches (1e21,
// 1e-7), -0, the extremes of int64 and float64, a raw extra_body with
// spacing and escapes, and empty values: the same bytes as encoding/json,
// and an error where encoding/json gives one (NaN, ±Inf).
func TestReportDataJSONHostile(t *testing.T) {
	var cases []any
	for _, h := range hostileStrings {
		f := func(v float64) *float64 { return &v }
		mc := -1
		cases = append(cases, ReportDataFile{Campaign: h, Model: h, Hardware: h, Baseline: h, Optimized: h, Runs: []RunData{{
			Experiment: h, Profile: h, Engine: h, GPUs: math.MinInt64, Status: schema.Status(h), Error: h, Caveats: []string{h, ""}, Result: h,
			Load: schema.Load{Backend: h, Dataset: h, RequestRate: 1e21, RangeRatio: 1e-7, Burstiness: math.Copysign(0, -1), Seed: math.MaxInt64, Command: h,
				ExtraBody:    json.RawMessage(" { \"stop\" : [ \"</script>\", \"\\u2028\", \"\\u00e9\\/\", 1e21, 1E+2, 1.0, -0, 12345678901234567890123 ], \"b\":{}, \"a\":[] } "),
				GoodputSLOMs: map[string]float64{h: 1, "\uffff": 2, "\U00010000": 3, "<": 4, "": 5, "\xff": 6, "B": 1e-300}},
			Summary: &schema.Summary{DurationS: 5e-324, Completed: math.MaxInt64, RequestThroughput: math.MaxFloat64, RequestGoodput: f(1e20), MaxConcurrency: &mc,
				OutputThroughput: 0.000001, TotalTokenThroughput: 123456789.125,
				TTFT:        &schema.Stats{MeanMs: f(math.Copysign(0, -1)), MedianMs: f(1e-7), Percentiles: []schema.Percentile{{P: 99.9, ValueMs: 1e21}}},
				SteadyState: &schema.SteadyState{Warning: h, StartS: -1e-300}},
		}, {}}})
	}
	cases = append(cases, ReportDataFile{}, ReportDataFile{Runs: []RunData{}}, map[string]any{"\xff": 1, "\ufffd": 2})
	for i, v := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := marshalDataJSON(v)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if d := bytediff.At(got, want.Bytes(), 60); d != "" {
			t.Errorf("%d: data.json differs %s", i, d)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := RunData{Load: schema.Load{RequestRate: x}}
		werr := json.NewEncoder(&bytes.Buffer{}).Encode(v)
		if _, err := marshalDataJSON(v); err == nil || werr == nil {
			t.Errorf("%v: error %v, encoding/json's %v; want both to fail", x, err, werr)
		}
	}
}
