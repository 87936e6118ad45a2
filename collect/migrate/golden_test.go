package migrate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// TestGolden keeps what migrate makes of each test page in review: the
// inferred campaign.yaml, the rewritten index.md and the report lines.
// Refresh with: go test ./collect/migrate -run TestGolden -update
func TestGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/variants/*.md")
	for _, f := range append(pages, more...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			pg := migrateFile(t, f)
			files, err := pg.Files(filepath.Base(f))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, fl := range files {
				if strings.HasSuffix(fl.Path, ".json") {
					continue
				}
				got.WriteString("==> " + fl.Path + " <==\n")
				got.Write(fl.Data)
			}
			got.WriteString("==> report <==\n")
			for _, n := range pg.Notes {
				got.WriteString("  " + n + "\n")
			}
			for _, a := range pg.Ambiguities {
				got.WriteString(a.String() + "\n")
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(f), ".md")+".golden")
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
				t.Errorf("%s differs from a fresh migration of %s (run with -update and review the diff)", golden, f)
			}
		})
	}
}
