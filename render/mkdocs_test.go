package render

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var markerLine = regexp.MustCompile(`(?m)^ *(\?\?\?\+?|!!!) ?[\w"-]`)

// TestMkDocsPagesRenderUnedited renders GPUStack's own pages (the seeds the
// importer keeps in results/*/src/seed.md) as plain pages: no front matter,
// titled by their first heading, every `???`/`!!!` turned into a details
// or admonition block, none left as text.
func TestMkDocsPagesRenderUnedited(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join(repoRoot(t), "results", "*", "src", "seed.md"))
	if len(seeds) == 0 {
		t.Skip("SKIP: no results/*/src/seed.md in this checkout")
	}
	dir := t.TempDir()
	tested := 0
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(src), "\n") < 100 {
			continue // a seed whose line breaks were lost is not Markdown any more
		}
		name := filepath.Base(filepath.Dir(filepath.Dir(s)))
		writeFile(t, filepath.Join(dir, "content", name+".md"), string(src))
		tested++
	}
	if tested == 0 {
		t.Skip("SKIP: no seed with its line breaks")
	}
	out := filepath.Join(dir, "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
		t.Fatal(err)
	}
	for _, s := range seeds {
		name := filepath.Base(filepath.Dir(filepath.Dir(s)))
		page, err := os.ReadFile(filepath.Join(out, name, "index.html"))
		if err != nil {
			continue // skipped above
		}
		src, _ := os.ReadFile(s)
		body := string(page)
		markers := len(markerLine.FindAllString(string(src), -1))
		blocks := strings.Count(body, "<details") + strings.Count(body, `<div class="admonition`)
		if markers == 0 || blocks != markers {
			t.Errorf("%s: %d ???/!!! markers in the source, %d details/admonition blocks rendered", name, markers, blocks)
		}
		if m := markerLine.FindString(body); m != "" {
			t.Errorf("%s: marker left as text: %q", name, m)
		}
		first := strings.TrimPrefix(strings.SplitN(string(src), "\n", 2)[0], "# ")
		if !strings.Contains(body, "<title>"+first+" · ") {
			t.Errorf("%s: not titled by its first heading %q", name, first)
		}
		if !strings.Contains(body, `<span style="background-color:lightgreen;">`) || !strings.Contains(body, "<table>") {
			t.Errorf("%s: tables with inline HTML not rendered", name)
		}
	}
}
