package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// TestImportIntoRound: a lab's older outputs go into a dated round beside
// round 1; the latest round is the newest by date, whatever the order
// of the imports.
func TestImportIntoRound(t *testing.T) {
	dir, src, camp := importFixture(t)
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

// TestImportRoundDateOfExistingRound: --round-date that would not date
// the round (round 1, dated by its results; a round whose record holds
// another start) is a usage error before anything is written, not a flag
// dropped without a word; the round's own date, or none, adds to it.
func TestImportRoundDateOfExistingRound(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "out.txt")
	writeFile(t, src, cliBlock)
	into := filepath.Join(dir, "results", "demo")
	imp := func(extra ...string) (error, string) {
		args := append([]string{"import", src, "--into", into, "--experiment", "vllm", "--profile", "very-long"}, extra...)
		var errb bytes.Buffer
		err := run(context.Background(), args, &bytes.Buffer{}, &errb)
		return err, errb.String()
	}
	if err, msg := imp("--round", "v0.10", "--round-date", "2025-06-01"); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	rec := filepath.Join(into, "rounds", "v0.10", "round.json")
	before, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(into, "rounds", "v0.10", "vllm--very-long.json")
	if err := os.Remove(res); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--round", "v0.10", "--round-date", "2025-07-01"}, "round v0.10 exists and started 2025-06-01T00:00:00Z"},
		{[]string{"--round", "1", "--round-date", "2025-07-01"}, "round 1 is"},
	} {
		err, msg := imp(c.args...)
		if code := exitCode(err, bytes.NewBufferString(msg)); code != 2 || !strings.Contains(err.Error()+msg, c.says) {
			t.Errorf("%v: status %d, %v %s; want 2 and %q", c.args, code, err, msg, c.says)
		}
	}
	if after, _ := os.ReadFile(rec); !bytes.Equal(before, after) {
		t.Errorf("the record changed:\n%s", after)
	}
	for _, p := range []string{res, filepath.Join(into, "vllm--very-long.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written by a refused import", p)
		}
	}
	for _, extra := range [][]string{{"--round", "v0.10"}, {"--round", "v0.10", "--round-date", "2025-06-01"}} {
		if err, msg := imp(extra...); err != nil {
			t.Errorf("%v: %v\n%s", extra, err, msg)
		}
	}
}

// TestImportNotOverMeasured: an output imported with the wrong --round
// (an existing collected round, or round 1's directory) is refused
// before anything is written, naming the file: it replaced the run
// collect had measured there with another run's numbers, without a word.
// Re-importing over an import, or over an interrupted run, goes on.
func TestImportNotOverMeasured(t *testing.T) {
	dir, src, camp := importFixture(t)
	into := filepath.Join(dir, "results", "demo")
	rd, err := schema.CreateRound(into, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T06:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	measured := &schema.Result{SchemaVersion: schema.Version, ID: "vllm--very-long", Campaign: "demo", Experiment: "vllm", Profile: "very-long",
		Status: schema.StatusOK, Start: "2026-11-28T06:00:01Z", Tool: schema.Tool{Name: "perflab bench"}, Summary: &schema.Summary{TotalTokenThroughput: 1234.5}}
	file := filepath.Join(rd.Dir, "vllm--very-long.json")
	if err := schema.WriteFile(file, measured); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	imp := func(extra ...string) error {
		args := append([]string{"import", src, "--into", into, "--campaign-file", camp, "--experiment", "vllm", "--profile", "very-long"}, extra...)
		return run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
	}
	err = imp("--round", "2026-11-28")
	if err == nil || !strings.Contains(err.Error(), file+" holds a run perflab collect measured") || !strings.Contains(err.Error(), "--round ID") {
		t.Fatalf("import over a measured run: %v", err)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(after, before) {
		t.Fatal("the measured result was replaced")
	}
	// An interrupted run: collect runs it again anyway.
	measured.Status, measured.Summary = schema.StatusInterrupted, nil
	if err := schema.WriteFile(file, measured); err != nil {
		t.Fatal(err)
	}
	if err := imp("--round", "2026-11-28"); err != nil {
		t.Fatalf("import over an interrupted run: %v", err)
	}
	// Over an import: replaced, as before.
	if err := imp("--round", "2026-11-28"); err != nil {
		t.Fatalf("re-import: %v", err)
	}
	res, err := schema.ReadFile(file)
	if err != nil || res.Summary == nil || res.Summary.TotalTokenThroughput != 2771.81 {
		t.Fatalf("re-imported result: %v %v", res, err)
	}
}

// TestImportRoundDateAhead: a round dated after today (a typo of the
// year, 2027 for 2025) is refused before anything is written: rounds
// are ordered by start, so the imported old output became the page's
// latest round, and every round collected until that date went before it.
func TestImportRoundDateAhead(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "out.txt")
	writeFile(t, src, cliBlock)
	into := filepath.Join(dir, "results", "demo")
	ahead := time.Now().UTC().AddDate(0, 2, 0).Format("2006-01-02")
	for _, args := range [][]string{{"--round", "v0.9", "--round-date", ahead}, {"--round", ahead}} {
		var errb bytes.Buffer
		err := run(context.Background(), append([]string{"import", src, "--into", into, "--experiment", "vllm", "--profile", "very-long"}, args...), &bytes.Buffer{}, &errb)
		if exitCode(err, &errb) != 2 || !strings.Contains(err.Error(), "is after today") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Errorf("something was written: %v", err)
	}
	// Today's date, as a lab west of UTC may give it: taken.
	today := time.Now().UTC().Format("2006-01-02")
	if err := run(context.Background(), []string{"import", src, "--into", into, "--experiment", "vllm", "--profile", "very-long", "--round", "v1", "--round-date", today}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Errorf("today: %v", err)
	}
}
