package migrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render"
)

// The three GPUStack seed pages, as published (testdata/seed-*.md are
// shared/seeds/*, unedited: no "# perflab:" line, one page without its
// line breaks), and the bundled reports made from them by hand.
var seeds = []struct {
	file     string
	campaign string // content/<campaign>/campaign.yaml
	results  int
}{
	{"seed-000-qwen3.5-35b-a3b-h200.md", "qwen3.5-35b-a3b/h200", 13},
	{"seed-001-qwen3-235b-a22b-h100.md", "qwen3-235b-a22b/h100", 17},
	{"seed-002-qwen3-32b-h100.md", "qwen3-32b/h100", 13},
}

// runKey names a run independently of ids: the serving command (with its
// environment) and the profile's dataset and lengths.
func runKey(c *schema.Campaign, expID, profID string) string {
	x, ok := c.Experiment(expID)
	if !ok {
		return "unknown experiment " + expID
	}
	var env []string
	for k, v := range x.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	p, ok := c.Profile(profID)
	if !ok {
		return "unknown profile " + profID
	}
	return fmt.Sprintf("%s | %s %d/%d", cmdKey(strings.Join(append(env, x.Command), " ")), p.Dataset, p.InputLen, p.OutputLen)
}

// TestSeedsMigrateToBundledRuns is the must-show: each seed,
// migrated from its original text, gives the runs of the bundled report
// (same experiment/profile pairs, matched by serving command and profile
// lengths since ids differ; same numbers and status), and the migrated
// project builds.
func TestSeedsMigrateToBundledRuns(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, sd := range seeds {
		t.Run(sd.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", sd.file))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "perflab:") {
				t.Fatal("the seed must be the original, unannotated page")
			}
			pg, err := Migrate(sd.file, data, "migrated", "results/migrated/src/"+sd.file)
			if err != nil {
				t.Fatal(err)
			}
			bundled, err := ingest.ReadCampaign(filepath.Join(root, "content", sd.campaign, "campaign.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := schema.ReadDir(filepath.Join(root, "results", bundled.ID))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != sd.results || len(pg.Results) != sd.results {
				t.Fatalf("results: migrated %d, bundled %d, want %d each", len(pg.Results), len(want), sd.results)
			}
			if pg.Unassigned != 0 {
				t.Errorf("%d outputs unassigned: %v", pg.Unassigned, pg.Ambiguities)
			}
			got := map[string]*schema.Result{}
			for _, r := range pg.Results {
				k := runKey(pg.Campaign, r.Experiment, r.Profile)
				if _, dup := got[k]; dup {
					t.Errorf("two migrated results for %s", k)
				}
				got[k] = r
			}
			for _, w := range want {
				k := runKey(bundled, w.Experiment, w.Profile)
				g, ok := got[k]
				if !ok {
					t.Errorf("bundled run %s/%s (%s) has no migrated counterpart", w.Experiment, w.Profile, k)
					continue
				}
				if g.Status != w.Status {
					t.Errorf("%s: status %s, bundled %s", k, g.Status, w.Status)
				}
				gs, _ := schema.Marshal(&schema.Result{Summary: g.Summary})
				ws, _ := schema.Marshal(&schema.Result{Summary: w.Summary})
				if string(gs) != string(ws) {
					t.Errorf("%s: numbers differ from the bundled result %s", k, w.ID)
				}
				if g.RawOutput != w.RawOutput {
					t.Errorf("%s: raw output differs from the bundled result %s", k, w.ID)
				}
			}
			// Baseline and optimized are the same runs.
			for _, role := range []struct{ got, want string }{{pg.Campaign.Baseline, bundled.Baseline}, {pg.Campaign.Optimized, bundled.Optimized}} {
				gx, _ := pg.Campaign.Experiment(role.got)
				wx, _ := bundled.Experiment(role.want)
				if gx == nil || wx == nil || cmdKey(gx.Command) != cmdKey(wx.Command) {
					t.Errorf("baseline/optimized %q is not the bundled %q", role.got, role.want)
				}
			}
			if pg.Campaign.Model.ID != bundled.Model.ID || pg.Campaign.Hardware.GPU != bundled.Hardware.GPU || pg.Campaign.Hardware.Count != bundled.Hardware.Count {
				t.Errorf("model/hardware %+v %+v, bundled %+v %+v", pg.Campaign.Model, pg.Campaign.Hardware, bundled.Model, bundled.Hardware)
			}
			// The steps, in order, choose the same runs.
			if len(pg.Campaign.Steps) != len(bundled.Steps) {
				t.Fatalf("%d steps, bundled %d", len(pg.Campaign.Steps), len(bundled.Steps))
			}
			for i, s := range pg.Campaign.Steps {
				w := bundled.Steps[i]
				if len(s.Experiments) != len(w.Experiments) {
					t.Errorf("step %d (%s): %d experiments, bundled %d", i, s.Title, len(s.Experiments), len(w.Experiments))
				}
				chosen := func(c *schema.Campaign, id string) string {
					if x, ok := c.Experiment(id); ok {
						return cmdKey(x.Command)
					}
					return ""
				}
				if chosen(pg.Campaign, s.Chosen) != chosen(bundled, w.Chosen) {
					t.Errorf("step %d (%s): chosen %q, bundled %q", i, s.Title, s.Chosen, w.Chosen)
				}
			}
			buildProject(t, pg, sd.file)
		})
	}
}

// buildProject writes the migrated page as a project and builds it.
func buildProject(t *testing.T, pg *Page, rel string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := pg.Files(rel)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Pages: []*Page{pg}}
	if err := Write(dir, rep, files); err != nil {
		t.Fatal(err)
	}
	err = render.Build(context.Background(), render.Options{
		Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")})
	if err != nil {
		t.Fatalf("the migrated project does not build: %v", err)
	}
	return dir
}

// BenchmarkMigrateSeeds migrates the three seed pages (parse, infer,
// import, rewrite; no writing).
func BenchmarkMigrateSeeds(b *testing.B) {
	var pages [][]byte
	for _, sd := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", sd.file))
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, data)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, data := range pages {
			if _, err := Migrate(seeds[i].file, data, "x", "results/x/src/x.md"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
