package ingest

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestImportSweeps: the records of one JSON file for one experiment and
// profile become sweep points and repeats, named as collect names them.
func TestImportSweeps(t *testing.T) {
	ids := func(rs []*schema.Result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, " ")
	}
	// vLLM --append-result lines at max_concurrency 16 and 32.
	es := mustParse(t, "testdata/vllm_append.jsonl", readFixture(t, "vllm_append.jsonl"))
	rs, err := Results(es, Options{Experiment: "vllm", Profile: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(rs); got != "vllm--chat--c16 vllm--chat--c32" {
		t.Errorf("ids %s", got)
	}
	if rs[1].Load.Sweep != schema.SweepConcurrency || rs[1].Load.MaxConcurrency != 32 || rs[1].Repeat != 0 {
		t.Errorf("load %+v", rs[1].Load)
	}
	// Without a profile each record keeps its own profile (its label), as before.
	rs, err = Results(es, Options{Experiment: "vllm"})
	if err != nil || ids(rs) != "vllm--c16 vllm--c32" || rs[0].Load.Sweep != "" {
		t.Errorf("labels as profiles: %s %v", ids(rs), err)
	}

	// A guidellm sweep: synchronous, two constant rates (one run twice)
	// and throughput: a rate sweep, synchronous at the rate it reached,
	// throughput at inf, the repeated rate as a repeat.
	es = mustParse(t, "testdata/guidellm_sweep.json", readFixture(t, "guidellm_sweep.json"))
	rs, err = Results(es, Options{Experiment: "sglang", Profile: "sweep"})
	if err != nil {
		t.Fatal(err)
	}
	sync := schema.PointOf(rs[0].Load)
	want := "sglang--sweep--" + sync.Slug() + " sglang--sweep--rate4 sglang--sweep--rate8 sglang--sweep--rate8--r1 sglang--sweep--rateinf"
	if got := ids(rs); got != want {
		t.Errorf("ids %s, want %s", got, want)
	}
	if rs[0].Load.MaxConcurrency != 1 || sync.Value != rs[0].Summary.RequestThroughput || rs[3].Repeat != 1 || rs[4].Load.Sweep != schema.SweepRate {
		t.Errorf("points: %+v / %+v / %+v", rs[0].Load, rs[3], rs[4].Load)
	}
	if !strings.Contains(strings.Join(rs[0].Warnings, "\n"), "synchronous strategy") {
		t.Errorf("warnings %v", rs[0].Warnings)
	}
}
