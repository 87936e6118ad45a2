package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestReportShowsLatestRound: a campaign re-run as a new round keeps
// round 1's files beside it (results/<campaign>/ and rounds/<id>/); the
// page and its data show the latest round only, never a mix.
func TestReportShowsLatestRound(t *testing.T) {
	dir := copyFixture(t)
	camp := filepath.Join(dir, "results", "demo-h100")
	build := func() string {
		t.Helper()
		out := filepath.Join(dir, "site")
		if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, f := range []string{"index.html", "data.json"} {
			b, err := os.ReadFile(filepath.Join(out, "demo", "h100", f))
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
		return all.String()
	}
	if page := build(); !strings.Contains(page, "2352.82") {
		t.Fatal("round 1's vllm-base throughput is not on the page")
	}

	// Round 2: the same runs, vllm-base/sharegpt measured again.
	rd, err := schema.CreateRound(camp, &schema.Round{ID: "2026-11-27", Start: "2026-11-27T22:00:00Z", Campaign: "demo-h100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixtureResults() {
		if r.Experiment == "vllm-base" && r.Profile == "sharegpt" {
			r.Summary.TotalTokenThroughput = 2871.44
		}
		if err := schema.WriteFile(filepath.Join(rd.Dir, r.Experiment+"--"+r.Profile+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	page := build()
	if !strings.Contains(page, "2871.44") || strings.Contains(page, "2352.82") {
		t.Errorf("the page does not show round 2 alone: has 2871.44 %v, has round 1's 2352.82 %v",
			strings.Contains(page, "2871.44"), strings.Contains(page, "2352.82"))
	}

	// A round started but holding no result yet does not hide round 2.
	if _, err := schema.CreateRound(camp, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T22:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if page := build(); !strings.Contains(page, "2871.44") {
		t.Error("an empty new round hid the latest round with results")
	}
}
