package render

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/perflab/perflab/internal/bytediff"
	"github.com/perflab/perflab/render/blocks"
)

// TestReportDataJSON: data.json, written by the json v2 encoder, has the
// bytes encoding/json's indenting Encoder writes for the same value, on
// every report of the fixture site, the bundled seed reports and
// synthetic reports.
func TestReportDataJSON(t *testing.T) {
	root := repoRoot(t)
	syn := t.TempDir()
	writeSyntheticSite(t, syn, 5)
	// Reports with rounds: data.json lists the rounds (roundsdata.go).
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
			got, gotCSV, err := blocks.ReportData(r)
			if err != nil {
				t.Fatal(err)
			}
			d, rows, err := blocks.ReportTables(r)
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
			if d := bytediff.At(got, want.Bytes(), 60); d != "" {
				t.Errorf("%s: data.json differs %s", r.Page.URL, d)
			}
			n++
		}
	}
	if n < 5 {
		t.Errorf("compared %d reports, want at least the 5 synthetic ones", n)
	}
	t.Logf("%d reports' data.json compared", n)
}
