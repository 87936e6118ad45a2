package check

import (
	"os"
	"testing"
)

// BenchmarkCheckSeeds checks the three seed pages (70 KB of Markdown, 43
// benchmark blocks) per iteration.
func BenchmarkCheckSeeds(b *testing.B) {
	var pages []Page
	size := 0
	for _, f := range []string{"testdata/seed000.md", "testdata/seed001.md", "testdata/seed002.md"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
		pages = append(pages, Page{Name: f, Text: data})
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			Check(p)
		}
	}
}

// BenchmarkCheckBundled loads and checks the bundled content against its
// results, as `perflab check` does from the repository root.
func BenchmarkCheckBundled(b *testing.B) {
	files, err := Files([]string{"../../content"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			p, err := Load(f, "../../results")
			if err != nil {
				b.Fatal(err)
			}
			Check(p)
		}
	}
}
