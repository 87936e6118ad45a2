package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestShownRoundDroppedExperiment: a lab takes an experiment out of its
// campaign (and renames a profile) after the latest round ran. The site
// still builds, as it does when a sweep point is taken out: the latest
// round's results of the experiment and profile the campaign no longer
// has are left out of the page with the warning, and kept in the round's
// data files. (Before, the build failed with `field experiment:
// "gone-batch" is not an experiment of campaign.yaml` until the next
// round was collected: a lab could not build or serve between editing
// its campaign and its next round.) An imported output tied to an
// experiment the campaign never had stays an error (TestBuildErrors).
func TestShownRoundDroppedExperiment(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	res := filepath.Join(dir, "results", "demo-mock-rounds")
	copyDir(t, filepath.Join(root, "results", "demo-mock-rounds"), res)
	r6 := filepath.Join(res, schema.RoundsDir, "6")
	// Round 6 ran an experiment gone-batch and a profile old-chat that
	// the campaign has since lost.
	for i, name := range []string{"gone-batch--chat--c4.json", "small-batch--old-chat--c4.json"} {
		r, err := schema.ReadFile(filepath.Join(r6, "small-batch--chat--c4.json"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			r.Experiment, r.ID = "gone-batch", "gone0000000000001"
		} else {
			r.Profile, r.ID = "old-chat", "gone0000000000002"
		}
		if err := schema.WriteFile(filepath.Join(r6, name), r); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "site")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, NoCache: true}
	st, err := BuildStats(context.Background(), opt)
	if err != nil {
		t.Fatalf("a campaign that no longer has an experiment of its latest round does not build: %v", err)
	}
	page := readFile(t, filepath.Join(out, "mock-rounds", "index.html"))
	for _, want := range []string{
		`<p class="admonition-title">2 results left out</p>`,
		`gone-batch--chat--c4.json</code>: experiment gone-batch is no longer in the campaign`,
		`small-batch--old-chat--c4.json</code>: profile old-chat is no longer in the campaign`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Outside the warning's list, the page does not show them.
	i, j := strings.Index(page, "<summary>Files left out</summary>"), strings.Index(page, "</details></div>")
	if i < 0 || j < i {
		t.Fatal("no list of the files left out")
	}
	if rest := page[:i] + page[j:]; strings.Contains(rest, "gone-batch") || strings.Contains(rest, "old-chat") {
		t.Error("the page shows an experiment or profile the campaign no longer has")
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "2 result(s)") {
		t.Errorf("build warnings: %q", st.Warnings)
	}
	checkRoundFiles(t, out, "mock-rounds/", res) // round 6's files hold every result of the round
	csv := readFile(t, filepath.Join(out, "mock-rounds", "rounds", "6.csv"))
	if !strings.Contains(csv, "\n6,gone-batch,chat,") || !strings.Contains(csv, "\n6,small-batch,old-chat,") {
		t.Errorf("rounds/6.csv lacks the results the campaign no longer defines:\n%.600s", csv)
	}

	// Another tool's output tied to that experiment is a mistake to fix.
	imp, err := schema.ReadFile(filepath.Join(r6, "gone-batch--chat--c4.json"))
	if err != nil {
		t.Fatal(err)
	}
	imp.Tool.Name = "vllm bench serve"
	if err := schema.WriteFile(filepath.Join(r6, "gone-batch--chat--c4.json"), imp); err != nil {
		t.Fatal(err)
	}
	err = Build(context.Background(), opt)
	if err == nil || !strings.Contains(err.Error(), `gone-batch--chat--c4.json:1: field experiment: "gone-batch" is not an experiment of`) {
		t.Errorf("an imported result of an unknown experiment: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(out, "mock-rounds", "index.html")); serr != nil {
		t.Errorf("the failed build removed the site: %v", serr)
	}
}

// TestRedefinedRunsWarned: a campaign edit that changes what a run
// measures (the profile's output length here; an engine's command or
// version alike) leaves the results of the older definition on the page
// until the runs are measured again, and `collect --new-round --only X`
// re-measures only some, so the page compared runs of two workloads as
// one benchmark case without a word. The page and the build now name
// them; an edit of display text only (a name, a description) changes no
// run and warns of nothing.
func TestRedefinedRunsWarned(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(root, "content", "demo", "mock-rounds"), filepath.Join(dir, "content", "mock-rounds"))
	copyDir(t, filepath.Join(root, "results", "demo-mock-rounds"), filepath.Join(dir, "results", "demo-mock-rounds"))
	camp := filepath.Join(dir, "content", "mock-rounds", "campaign.yaml")
	orig := readFile(t, camp)
	out := filepath.Join(dir, "site")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, NoCache: true}
	build := func(y string) (string, Stats) {
		t.Helper()
		if err := os.WriteFile(camp, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		return readFile(t, filepath.Join(out, "mock-rounds", "index.html")), st
	}
	if page, st := build(orig); strings.Contains(page, "older definition") || len(st.Warnings) > 0 {
		t.Fatalf("the demo as collected warns: %q", st.Warnings)
	}
	display := strings.Replace(orig, "name: Chat\n", "name: Chat Workload\n", 1)
	if display == orig {
		t.Fatal("the demo campaign has no `name: Chat` line")
	}
	if page, st := build(display); strings.Contains(page, "older definition") || len(st.Warnings) > 0 {
		t.Errorf("a new display name warns: %q", st.Warnings)
	}
	work := strings.Replace(orig, "output_len: 16\n", "output_len: 32\n", 1)
	if work == orig {
		t.Fatal("the demo campaign has no `output_len: 16` line")
	}
	page, st := build(work)
	for _, want := range []string{
		`<p class="admonition-title">24 runs of an older definition</p>`,
		`results/demo-mock-rounds/rounds/6/large-batch--chat--c16--r5.json</code>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "shows 24 run(s) measured under an older definition") {
		t.Errorf("build warnings: %q", st.Warnings)
	}
}

// TestCarriedNoteCrashedRound: a round whose runs all crashed (an engine
// that never got healthy) is the round shown, crashes being finished
// results; the line atop the page said it "measured 2 of the 6 runs",
// as if it had numbers. It now says how they ended.
func TestCarriedNoteCrashedRound(t *testing.T) {
	crash := func(r *schema.Result) *schema.Result {
		r.Status, r.Error, r.Summary = schema.StatusCrashed, "vllm-base: wait healthy: not healthy before the deadline", nil
		return r
	}
	page, _ := carriedFixture(t, crash(fixtureRun(t, "vllm-base", "sharegpt")), crash(fixtureRun(t, "vllm-base", "long")))
	if want := "The latest round, <code>2026-11-28</code>, measured 2 of the 6 runs on this page (all crashed); the others"; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	ok := fixtureRun(t, "vllm-base", "sharegpt")
	page, _ = carriedFixture(t, ok, crash(fixtureRun(t, "vllm-base", "long")))
	if want := "measured 2 of the 6 runs on this page (1 crashed); the others"; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}
