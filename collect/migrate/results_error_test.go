package migrate

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// TestResultsErrorNamesThePage: when the results of a page cannot be
// made (two outputs of one experiment, profile and load with other
// numbers reach ingest), the error names the page migrated and its lines,
// not the verbatim copy results/<id>/src/… the report's reader never saw.
func TestResultsErrorNamesThePage(t *testing.T) {
	page := mustRead(t, "testdata/variants/simple.md")
	entries, err := ingest.Parse("results/p/src/p.md", []byte(page))
	if err != nil || len(entries) < 2 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	entries = entries[:2]
	x := &exp{}
	x.ID, x.Engine = "a", "vllm"
	m := &migration{p: newPage("lab/p.md", page), out: &Page{Source: "lab/p.md"}, srcRef: "results/p/src/p.md",
		entries: entries, places: []place{{exp: x, profile: "x"}, {exp: x, profile: "x"}}}
	c := &schema.Campaign{ID: "p", Model: schema.CampaignModel{ID: "Qwen/Qwen3-8B"}, Profiles: []schema.Profile{{ID: "x", Dataset: "random"}},
		Steps: []schema.Step{{ID: "s", Experiments: []schema.Experiment{x.Experiment}}}}
	err = m.results(c)
	want := "migrate: lab/p.md:" + itoa(entries[1].Line) + ": experiment \"a\" profile \"x\" was already imported from lab/p.md:" + itoa(entries[0].Line)
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "results/p/src") {
		t.Errorf("error %v\nwant %s…", err, want)
	}
}
