package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestImportIntoRound: a lab's older outputs go into a dated round beside
// round 1; the latest round is the newest by date, whatever the order
// of the imports.
func TestImportIntoRound(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "out.txt")
	writeFile(t, src, cliBlock)
	camp := filepath.Join(dir, "campaign.yaml")
	writeFile(t, camp, cliCampaign)
	into := filepath.Join(dir, "results", "demo")
	imp := func(extra ...string) {
		t.Helper()
		args := append([]string{"import", src, "--into", into, "--campaign-file", camp, "--experiment", "vllm", "--profile", "very-long"}, extra...)
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%v\n%s", err, errb.String())
		}
	}
	imp("--round", "2025-09-01")
	imp() // round 1, the directory itself
	imp("--round", "v0.10", "--round-date", "2025-06-01")
	rs, err := schema.Rounds(into)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if len(rs) != 3 || rs[0].ID != "1" || rs[1].ID != "v0.10" || rs[2].ID != "2025-09-01" {
		t.Fatalf("rounds %v", ids)
	}
	if rs[2].Record.Start != "2025-09-01T00:00:00Z" || rs[2].Record.Campaign != "demo" || len(rs[2].Record.CampaignSHA256) != 64 {
		t.Fatalf("record %+v", rs[2].Record)
	}
	res, err := schema.ReadRoundResults(rs[1])
	if err != nil || len(res) != 1 || res[0].Summary.TotalTokenThroughput != 2771.81 {
		t.Fatalf("round v0.10: %v %v", res, err)
	}
	var errb bytes.Buffer
	err = run(context.Background(), []string{"import", src, "--into", into, "--round", "Bad Round"}, &bytes.Buffer{}, &errb)
	if exitCode(err, &errb) != 2 {
		t.Fatalf("bad round id: %v", err)
	}
}
