package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestDiffGateNothingShared: a gate that compared nothing (the sides
// share no run) fails and says so instead of passing; a run that
// finished in OLD and crashed in NEW fails it too.
func TestDiffGateNothingShared(t *testing.T) {
	res := func(exp string, st schema.Status) *schema.Result {
		r := &schema.Result{SchemaVersion: schema.Version, Campaign: "c", Experiment: exp, Profile: "chat", Status: st,
			Load: schema.Load{Sweep: schema.SweepConcurrency, MaxConcurrency: 4}}
		if st == schema.StatusOK {
			r.Summary = &schema.Summary{OutputThroughput: 100, TotalTokenThroughput: 1000}
		}
		return r
	}
	old, other, crashed := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, r := range map[string]*schema.Result{old: res("a", schema.StatusOK), other: res("b", schema.StatusOK), crashed: res("a", schema.StatusCrashed)} {
		if err := schema.WriteFile(filepath.Join(dir, r.Experiment+"--chat--c4.json"), r); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"diff", old, other, "--fail-on", "regression"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "share no run") {
		t.Errorf("no shared run: %v", err)
	}
	if err := run(context.Background(), []string{"diff", old, other}, &out, &errb); err != nil {
		t.Errorf("without a gate: %v", err)
	}
	err = run(context.Background(), []string{"diff", old, crashed, "--fail-on", "regression:5%"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "a/chat c=4 (crashed)") {
		t.Errorf("crashed in new: %v\n%s", err, out.String())
	}
}

// TestDiffWarnsOtherCampaign: two sides of different campaigns are
// compared (an H100 and an H200 campaign of the same experiments) with a
// warning naming both.
func TestDiffWarnsOtherCampaign(t *testing.T) {
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for i, c := range []string{"h100", "h200"} {
		r := &schema.Result{SchemaVersion: schema.Version, Campaign: c, Experiment: "a", Profile: "chat", Status: schema.StatusOK,
			Summary: &schema.Summary{OutputThroughput: 100, TotalTokenThroughput: 1000}}
		if err := schema.WriteFile(filepath.Join(dirs[i], "a--chat.json"), r); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"diff", dirs[0], dirs[1]}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if w := errb.String(); !strings.Contains(w, "campaign h100") || !strings.Contains(w, "campaign h200") || !strings.Contains(w, dirs[0]) {
		t.Errorf("stderr: %q", w)
	}
	errb.Reset()
	if err := run(context.Background(), []string{"diff", dirs[0], dirs[0]}, &out, &errb); err != nil || errb.Len() != 0 {
		t.Errorf("one campaign: %v, stderr %q", err, errb.String())
	}
}

// TestDiffExitStatus: a CI gate tells a regression (1) from a command
// line it cannot use (2) and from sides it cannot read or compare (3);
// a margin that no change can exceed (NaN, Inf) is refused, not a gate
// that always passes.
func TestDiffExitStatus(t *testing.T) {
	demo := filepath.Join("..", "..", "results", "demo-mock-rounds")
	other := t.TempDir()
	r := &schema.Result{SchemaVersion: schema.Version, Campaign: "c", Experiment: "b", Profile: "chat", Status: schema.StatusOK,
		Summary: &schema.Summary{OutputThroughput: 100, TotalTokenThroughput: 1000}}
	if err := schema.WriteFile(filepath.Join(other, "b--chat.json"), r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{demo + "@3", demo + "@4"}, 0},
		{[]string{demo + "@3", demo + "@4", "--fail-on", "regression"}, 1},
		{[]string{demo + "@3", demo + "@4", "--fail-on=regression:5"}, 1},
		{[]string{demo + "@3", demo + "@4", "--fail-on", "regression:50%"}, 0},
		{[]string{demo + "@3", demo + "@4", "--fail-on", "improvement"}, 2},
		{[]string{demo + "@3", demo + "@4", "--fail-on", "regression:nan"}, 2},
		{[]string{demo + "@3", demo + "@4", "--fail-on", "regression:Inf%"}, 2},
		{[]string{demo + "@3", demo + "@4", "--format", "html"}, 2},
		{[]string{demo + "@3", filepath.Join(other, "missing.json"), "--fail-on", "regression"}, 3},
		{[]string{demo + "@3", demo + "@99", "--fail-on", "regression"}, 3},
		{[]string{demo + "@3", other, "--fail-on", "regression"}, 3},
		{[]string{"--campaign", filepath.Join(other, "nope"), "3", "4", "--fail-on", "regression"}, 3},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"diff"}, c.args...), &out, &errb)
		if got := exitCode(err, &errb); got != c.want {
			t.Errorf("diff %s: exit status %d, want %d (%v)", strings.Join(c.args, " "), got, c.want, err)
		}
	}
}

// TestDiffGateWarnsUntested: a gate on single runs (one vllm bench serve
// output a side) cannot find a regression, however large: it passes, and
// says on stderr that it could not test.
func TestDiffGateWarnsUntested(t *testing.T) {
	dir := t.TempDir()
	files := [2]string{filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")}
	for i, tput := range []float64{1000, 500} {
		r := &schema.Result{SchemaVersion: schema.Version, Label: "vllm", Status: schema.StatusOK,
			Summary: &schema.Summary{Completed: 100, OutputThroughput: tput, TotalTokenThroughput: 2 * tput}}
		if err := schema.WriteFile(files[i], r); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"diff", files[0], files[1], "--fail-on", "regression"}, &out, &errb); err != nil {
		t.Fatalf("single runs: %v", err)
	}
	if w := errb.String(); !strings.Contains(w, "none of the 2 comparisons could be tested") {
		t.Errorf("stderr %q, want the untested warning\n%s", w, out.String())
	}
	errb.Reset()
	if err := run(context.Background(), []string{"diff", files[0], files[1]}, &out, &errb); err != nil || errb.Len() != 0 {
		t.Errorf("without a gate: %v, stderr %q", err, errb.String())
	}
}

// TestDiffGateNothingTested: a gate over single runs (or 2+2, 3+3) can
// never fail on a change, however large: the U test cannot reach 0.05.
// It passes, as documented, but says on stderr that it tested nothing
// (before, a 45 % drop passed a green gate without a word); a gate with
// enough repeats says nothing of the kind.
func TestDiffGateNothingTested(t *testing.T) {
	write := func(dir string, repeats int, tps float64) {
		for i := range repeats {
			r := &schema.Result{SchemaVersion: schema.Version, Campaign: "c", Experiment: "a", Profile: "chat", Status: schema.StatusOK, Repeat: i,
				Summary: &schema.Summary{OutputThroughput: tps / 10, TotalTokenThroughput: tps + float64(i)}}
			name := "a--chat.json"
			if i > 0 {
				name = fmt.Sprintf("a--chat--r%d.json", i)
			}
			if err := schema.WriteFile(filepath.Join(dir, name), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		repeats int
		warn    string
	}{{1, "these have 1+1"}, {3, "these have 3+3"}, {6, ""}} {
		old, nw := t.TempDir(), t.TempDir()
		write(old, tc.repeats, 1000)
		write(nw, tc.repeats, 550) // 45 % slower
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"diff", old, nw, "--fail-on", "regression"}, &out, &errb)
		w := errb.String()
		if tc.warn == "" {
			if err == nil || strings.Contains(w, "could be tested") {
				t.Errorf("%d+%d: gate %v, stderr %q: want a failed gate and no warning", tc.repeats, tc.repeats, err, w)
			}
			continue
		}
		if err != nil || !strings.Contains(w, "none of the 2 comparisons could be tested") || !strings.Contains(w, tc.warn) || !strings.Contains(w, "repeats") {
			t.Errorf("%d+%d: gate %v, stderr %q", tc.repeats, tc.repeats, err, w)
		}
	}
}
