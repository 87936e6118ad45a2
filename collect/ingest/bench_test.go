package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImportSeedPage parses a whole seed page (17 runs, Markdown with
// admonitions) and builds its results against the campaign.
func BenchmarkImportSeedPage(b *testing.B) {
	c, err := ReadCampaign(filepath.Join(root, "content/qwen3-235b-a22b/h100/campaign.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "results", c.ID, "src/seed.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		es, err := Parse("seed.md", data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Results(es, Options{Campaign: c}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCollapsed parses the Qwen3.5 page, whose 15 blocks lost
// their line breaks.
func BenchmarkParseCollapsed(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(root, "results/qwen3.5-35b-a3b-h200/src/seed.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("seed.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
