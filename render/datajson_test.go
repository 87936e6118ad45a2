package render

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestReportDataJSON: data.json, written by the json v2 encoder, has the
// bytes encoding/json's indenting Encoder writes for the same value, on
// every report of the fixture site, the bundled seed reports and
// synthetic reports.
func TestReportDataJSON(t *testing.T) {
	root := repoRoot(t)
	syn := t.TempDir()
	writeSyntheticSite(t, syn, 5)
	sites := [][2]string{{fixtureSite + "/content", fixtureSite + "/results"}, {filepath.Join(syn, "content"), filepath.Join(syn, "results")}}
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
			got, _, err := reportData(r)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := reportTables(r)
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
