package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden renders every testdata/golden/*.md and compares with its
// .html. The expected structure is MkDocs Material's (python-markdown
// admonition + pymdownx.details), as checked against Debian's mkdocs in
// reference/deps.md §2; code markup is chroma's instead of Pygments'.
func TestGolden(t *testing.T) {
	conv := New(Options{Unsafe: true})
	files, err := filepath.Glob("testdata/golden/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := conv.Convert(&buf, src); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s: got\n%s\nwant\n%s", f, buf.Bytes(), want)
			}
		})
	}
}
