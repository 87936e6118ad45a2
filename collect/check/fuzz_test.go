package check

import (
	"os"
	"strings"
	"testing"
)

// FuzzCheck feeds arbitrary pages to Check: it must never panic, and
// every finding must name a line of the page.
func FuzzCheck(f *testing.F) {
	// Small pages: the seeds are slow under the fuzzer's instrumentation.
	for _, file := range []string{"testdata/pages/partial.md", "testdata/pages/compound.md", "testdata/pages/clean.md"} {
		f.Add(string(mustReadF(f, file)))
	}
	f.Add("| a | b |\n|---|---|\n| Total TPS: 1 (+5%) | Total TPS: 2 |")
	f.Add("# t\n```\n````\n~~~\n| |---|\n+1.5%x2 tok/s per GPU > 3 ms")
	f.Add("|:-|-:|\n| **1,234** <br> (−5%) | TTFT < 5 ms, 8x H100, 95% GPU memory |")
	f.Fuzz(func(t *testing.T, page string) {
		lines := strings.Count(page, "\n") + 1
		for _, x := range Check(Page{Name: "f.md", Text: []byte(page)}) {
			if x.Line < 1 || x.Line > lines {
				t.Errorf("finding at line %d of a %d-line page: %v", x.Line, lines, x)
			}
		}
	})
}

func mustReadF(f *testing.F, path string) []byte {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
