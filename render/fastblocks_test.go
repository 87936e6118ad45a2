package render

import (
	"bytes"
	"context"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/render/corpus"
)

// TestEscapeText: escapeText writes what html/template writes for a
// string in text and in a quoted attribute value.
func TestEscapeText(t *testing.T) {
	tm := template.Must(template.New("").Parse(`<td title="{{.}}">{{.}}</td>`))
	for _, s := range []string{"", "plain", `a<b>&"c'+d`, "nul\x00x", "ünïcødé — µs", "bad\xffutf8", "&amp; already", "++", "\ufdd0\uffff"} {
		var want bytes.Buffer
		if err := tm.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		got.WriteString(`<td title="`)
		escapeText(&got, s)
		got.WriteString(`">`)
		escapeText(&got, s)
		got.WriteString(`</td>`)
		if got.String() != want.String() {
			t.Errorf("%q:\n got %q\nwant %q", s, got.String(), want.String())
		}
	}
}

// TestFastBlocks builds sites with the embedded templates (blocks written
// by Go code) and with the same templates read from disk (every block
// executed by html/template), and requires every output file to be
// byte-identical: the fixture site (failed, skipped and caveated runs),
// the bundled seed reports, a lab of the issue-11 corpus and synthetic
// reports.
func TestFastBlocks(t *testing.T) {
	root := repoRoot(t)
	tdir := filepath.Join(root, "templates")
	type site struct{ name, content, results string }
	sites := []site{{"fixture", fixtureSite + "/content", fixtureSite + "/results"}}
	if _, err := os.Stat(filepath.Join(root, "content")); err == nil {
		sites = append(sites, site{"bundled", filepath.Join(root, "content"), filepath.Join(root, "results")})
	}
	if files, _ := filepath.Glob(filepath.Join(root, "results", "*", "src", "seed.md")); len(files) > 0 {
		dir := t.TempDir()
		if _, err := corpus.Write(dir, 1, corpusSeeds(t)); err != nil {
			t.Fatal(err)
		}
		sites = append(sites, site{"corpus", filepath.Join(dir, "content"), filepath.Join(dir, "results")})
	}
	syn := t.TempDir()
	writeSyntheticSite(t, syn, 20)
	sites = append(sites, site{"synthetic", filepath.Join(syn, "content"), filepath.Join(syn, "results")})
	// What the Go-written blocks put on the pages compared, to show that
	// the comparison covers them: their tables and their rarer branches.
	markers := []string{`<table class="sortable runs">`, `<table class="sortable step">`, `<tr class="bad">`, `class="delta na"`,
		`<span class="missing">`, `<sup class="fn"`, `<p class="exp-name">`, `<p class="raw-note">`, `<ul class="caveats">`, `<p class="raw-label">`,
		`<table class="sortable comparison">`, `<p class="rule">`, `<p class="legend">Values are means`, `<p class="legend">1 run each`, `Baseline serving script (`,
		`<table class="sortable summary">`, `<tfoot>`, `<tr class="bad `, `skipped"><td>`, `<br><small>`}
	seen := map[string]int{}
	for _, s := range sites {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			fast, slow := filepath.Join(dir, "fast"), filepath.Join(dir, "slow")
			opt := Options{Content: s.content, Results: s.results, NoCache: true}
			opt.Out = fast
			if err := Build(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			opt.Out, opt.TemplatesDir = slow, tdir
			if err := Build(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			n := 0
			err := filepath.WalkDir(slow, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(slow, p)
				want, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				got, err := os.ReadFile(filepath.Join(fast, rel))
				if err != nil {
					t.Errorf("%s: %v", rel, err)
					return nil
				}
				n++
				for _, m := range markers {
					seen[m] += strings.Count(string(want), m)
				}
				if !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					lo := max(0, i-80)
					t.Errorf("%s differs from html/template's at byte %d:\n got …%q\nwant …%q", rel, i, got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d files compared", n)
		})
	}
	for _, m := range markers {
		if seen[m] == 0 {
			t.Errorf("no %s in any site: the test does not compare what it should", m)
		}
	}
	t.Logf("compared: %v", seen)
}
