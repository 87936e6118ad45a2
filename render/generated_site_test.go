package render

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/bytediff"
	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/corpus"
	"github.com/perflab/perflab/render/layout"
)

// hostileYAML is a YAML double-quoted scalar holding what an escaper for
// the wrong context gets wrong: markup, quotes, a javascript: URL, the end
// of a script, template delimiters, U+2028, a direction mark, + and %.
const hostileYAML = `"<b>&amp;'\" javascript:alert(1) </script> {{.}} +1%=` + "`" + ` \u2028 \u200f \0 x"`

// writeHostileSite writes a one-report synthetic site whose names, notes,
// step titles, model name, errors and raw outputs are hostile, with a
// failed run (a caveat note and a missing cell) among them.
func writeHostileSite(t *testing.T, dir string) {
	t.Helper()
	writeSyntheticSite(t, dir, 1)
	camp := filepath.Join(dir, "content", "model-0000", "h100", "campaign.yaml")
	b, err := os.ReadFile(camp)
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	for _, old := range []string{"Experiment 0a", "Experiment 0b", "Experiment 1a", "Experiment 2a", "Profile 0", "Profile 3", "Model-0000}", "Step 1"} {
		y = strings.Replace(y, old, hostileYAML, 1)
	}
	y = strings.Replace(y, "gpus: 4}", "gpus: 4, note: "+hostileYAML+"}", 1)
	y = strings.Replace(y, "model: {id: Org/Model-0000, name: "+hostileYAML, "model: {id: Org/Model-0000, name: "+hostileYAML+"}", 1)
	if err := os.WriteFile(camp, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	h := "<i>&'\" javascript:alert(1) </script> {{.}} +1%=` \u2028 \u200f \x00 \xff"
	for file, edit := range map[string]func(m map[string]any){
		"e0-b--sharegpt.json": func(m map[string]any) {
			m["status"], m["error"], m["raw_output"] = "failed", h, h
			delete(m, "summary")
		},
		"e1-b--sharegpt.json": func(m map[string]any) { m["raw_output"] = h + "\n" + h },
		"e2-a--short.json":    func(m map[string]any) { m["raw_output"] = "" },
	} {
		p := filepath.Join(dir, "results", "model-0000-h100", file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGeneratedSites builds sites with the embedded templates (pages
// written by the generated writers) and with the same templates read
// from disk (every template executed by html/template), and requires every output file to be
// byte-identical: the fixture site (failed, skipped and caveated runs),
// the bundled seed reports, a lab of the issue-11 corpus and synthetic
// reports.
func TestGeneratedSites(t *testing.T) {
	root := repoRoot(t)
	tdir := filepath.Join(root, "templates")
	if tm, _, err := layout.ParseTemplates(""); err != nil || !layout.UsesGenerated(tm) {
		t.Fatalf("the generated writers are not used with the embedded templates (%v): run go generate ./render", err)
	} else if !blocks.UsesGenerated(tm) {
		t.Fatal("the blocks' generated writers are not used with the embedded templates: run go generate ./render/blocks")
	}
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
	hostile := t.TempDir()
	writeHostileSite(t, hostile)
	sites = append(sites, site{"hostile", filepath.Join(hostile, "content"), filepath.Join(hostile, "results")})
	// What the generated writers put on the pages compared, to show that
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
				if d := bytediff.At(got, want, 80); d != "" {
					t.Errorf("%s differs from html/template's %s", rel, d)
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
