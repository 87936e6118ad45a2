package ingest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden imports every fixture stand-alone (no campaign) and compares
// the encoded results with testdata/golden/<fixture>.json: ids, labels,
// commands, warnings and numbers all show up in review when they change.
// Refresh with: go test ./collect/ingest -run TestGolden -update
func TestGolden(t *testing.T) {
	fixtures, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			es, err := Parse(filepath.ToSlash(f), data)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Results(es, Options{CampaignID: "golden"})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, r := range rs {
				b, err := schema.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				got.Write(b)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, filepath.Ext(name))+".json.golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from a fresh import of %s (run with -update and review the diff)", golden, f)
			}
		})
	}
}
