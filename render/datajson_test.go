package render

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestReportDataJSON: data.json, written by the json v2 encoder, has the
// bytes encoding/json's indenting Encoder writes for the same value, on
// every report of the fixture site, the bundled seed reports and
// synthetic reports.
func TestReportDataJSON(t *testing.T) {
	root := repoRoot(t)
	syn := t.TempDir()
	writeSyntheticSite(t, syn, 5)
	// Reports with rounds: data.json and data.csv are put together a
	// round at a time (roundsdata.go).
	rounds := t.TempDir()
	writeSyntheticSite(t, rounds, 2)
	writeSyntheticRounds(t, rounds, 2, 4)
	sites := [][2]string{{fixtureSite + "/content", fixtureSite + "/results"}, {filepath.Join(syn, "content"), filepath.Join(syn, "results")},
		{filepath.Join(rounds, "content"), filepath.Join(rounds, "results")}}
	if _, err := os.Stat(filepath.Join(root, "content")); err == nil {
		sites = append(sites, [2]string{filepath.Join(root, "content"), filepath.Join(root, "results")})
	}
	n := 0
	for _, s := range sites {
		site, err := Load(context.Background(), Options{Content: s[0], Results: s[1], Out: t.TempDir(), NoCache: true}.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range site.Reports {
			got, gotCSV, err := reportData(r)
			if err != nil {
				t.Fatal(err)
			}
			d, rows, err := reportTables(r)
			if err != nil {
				t.Fatal(err)
			}
			var wantCSV bytes.Buffer
			if err := csv.NewWriter(&wantCSV).WriteAll(rows); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotCSV, wantCSV.Bytes()) {
				t.Errorf("%s: data.csv differs:\n got %q\nwant %q", r.Page.URL, gotCSV, wantCSV.Bytes())
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(d); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				i := 0
				for i < len(got) && i < len(want.Bytes()) && got[i] == want.Bytes()[i] {
					i++
				}
				lo := max(0, i-60)
				t.Errorf("%s: data.json differs at byte %d:\n got …%q\nwant …%q", r.Page.URL, i, got[lo:min(len(got), i+60)], want.Bytes()[lo:min(want.Len(), i+60)])
			}
			n++
		}
	}
	if n < 5 {
		t.Errorf("compared %d reports, want at least the 5 synthetic ones", n)
	}
	t.Logf("%d reports' data.json compared", n)
}

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
		cases = append(cases, reportDataFile{Campaign: h, Model: h, Hardware: h, Baseline: h, Optimized: h, Runs: []runData{{
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
	cases = append(cases, reportDataFile{}, reportDataFile{Runs: []runData{}}, map[string]any{"\xff": 1, "\ufffd": 2})
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
		if !bytes.Equal(got, want.Bytes()) {
			j := 0
			for j < len(got) && j < want.Len() && got[j] == want.Bytes()[j] {
				j++
			}
			lo := max(0, j-60)
			t.Errorf("%d: data.json differs at byte %d:\n got …%q\nwant …%q", i, j, got[lo:min(len(got), j+60)], want.Bytes()[lo:min(want.Len(), j+60)])
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := runData{Load: schema.Load{RequestRate: x}}
		werr := json.NewEncoder(&bytes.Buffer{}).Encode(v)
		if _, err := marshalDataJSON(v); err == nil || werr == nil {
			t.Errorf("%v: error %v, encoding/json's %v; want both to fail", x, err, werr)
		}
	}
}
