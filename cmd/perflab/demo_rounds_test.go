package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/diff"
	"github.com/perflab/perflab/collect/schema"
)

// TestDemoRounds checks the bundled living-lab demo
// (content/demo/mock-rounds, results/demo-mock-rounds): six rounds,
// round 1 the campaign directory itself; change-point detection over the
// rounds flags exactly large-batch in round 4 (its decode step 12 %
// slower) and small-batch in round 5 (its prefill 15 % faster), on the
// headline metric the history shows (total throughput, at each
// concurrency) and on every metric diff compares; perflab diff of rounds
// 3 and 4 prints the regression and exits 1 under --fail-on regression,
// and of two unchanged rounds exits 0.
func TestDemoRounds(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "demo-mock-rounds")
	rds, err := schema.Rounds(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var sides []diff.Side
	for _, rd := range rds {
		ids = append(ids, rd.ID)
		rs, err := schema.ReadRoundResults(rd)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, diff.NewSide(rd.ID, rs))
	}
	if strings.Join(ids, " ") != "1 2 3 4 5 6" || rds[0].Record != nil || rds[1].Record == nil {
		t.Fatalf("rounds %v", ids)
	}
	tput, _ := diff.MetricByKey("total_tok_per_s")
	for name, ms := range map[string][]diff.Metric{"headline": {tput}, "every metric": diff.Metrics} {
		flagged := map[string]bool{}
		for _, c := range diff.Changes(sides, ms) {
			exp, _, _ := strings.Cut(c.Run, "/")
			flagged[fmt.Sprintf("%s round %s", exp, ids[c.Round])] = true
			if len(ms) == 1 && c.Better != (exp == "small-batch") {
				t.Errorf("%s's throughput in round %s: %+.1f%%, the wrong way", exp, ids[c.Round], c.Pct)
			}
			t.Logf("%s: %s %s round %s %+.1f%% (p=%.4f q=%.4f)", name, c.Run, c.Metric.Key, ids[c.Round], c.Pct, c.P, c.Q)
		}
		var got []string
		for k := range flagged {
			got = append(got, k)
		}
		sort.Strings(got)
		if want := "large-batch round 4, small-batch round 5"; strings.Join(got, ", ") != want {
			t.Errorf("%s: changes flagged: %v, want %s", name, got, want)
		}
	}

	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"diff", "--campaign", "../../content/demo/mock-rounds", "--results", "../../results", "3", "4", "--fail-on", "regression"}, &out, &errb)
	if code := exitCode(err, &errb); code != 1 {
		t.Fatalf("diff 3 4: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "REGRESSION") && !strings.HasPrefix(line, "large-batch/") {
			t.Errorf("a regression outside large-batch: %s", line)
		}
	}
	if !strings.Contains(out.String(), "large-batch/chat c=4") || !regexp.MustCompile(`large-batch/chat c=\d+ median TPOT \+`).MatchString(errb.String()) {
		t.Errorf("diff 3 4 does not show large-batch's slower TPOT:\n%s%s", out.String(), errb.String())
	}
	for _, pair := range [][2]string{{"1", "2"}, {"2", "3"}, {"5", "6"}} {
		out.Reset()
		errb.Reset()
		err = run(context.Background(), []string{"diff", "--campaign", "../../content/demo/mock-rounds", "--results", "../../results", pair[0], pair[1], "--fail-on", "regression"}, &out, &errb)
		if code := exitCode(err, &errb); code != 0 {
			t.Errorf("diff %s %s (unchanged): exit %d\n%s%s", pair[0], pair[1], code, out.String(), errb.String())
		}
	}
}
