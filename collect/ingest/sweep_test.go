package ingest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func resultIDs(rs []*schema.Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return strings.Join(out, " ")
}

// TestImportSweeps: the records of one JSON file for one experiment and
// profile become sweep points and repeats, named as collect names them.
func TestImportSweeps(t *testing.T) {
	// vLLM --append-result lines at max_concurrency 16 and 32.
	es := mustParse(t, "testdata/vllm_append.jsonl", readFixture(t, "vllm_append.jsonl"))
	rs, err := Results(es, Options{Experiment: "vllm", Profile: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultIDs(rs); got != "vllm--chat--c16 vllm--chat--c32" {
		t.Errorf("ids %s", got)
	}
	if rs[1].Load.Sweep != schema.SweepConcurrency || rs[1].Load.MaxConcurrency != 32 || rs[1].Repeat != 0 {
		t.Errorf("load %+v", rs[1].Load)
	}
	// Without a profile each record keeps its own profile (its label), as before.
	rs, err = Results(es, Options{Experiment: "vllm"})
	if err != nil || resultIDs(rs) != "vllm--c16 vllm--c32" || rs[0].Load.Sweep != "" {
		t.Errorf("labels as profiles: %s %v", resultIDs(rs), err)
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
	if got := resultIDs(rs); got != want {
		t.Errorf("ids %s, want %s", got, want)
	}
	if rs[0].Load.MaxConcurrency != 1 || sync.Value != rs[0].Summary.RequestThroughput || rs[3].Repeat != 1 || rs[4].Load.Sweep != schema.SweepRate {
		t.Errorf("points: %+v / %+v / %+v", rs[0].Load, rs[3], rs[4].Load)
	}
	if !strings.Contains(strings.Join(rs[0].Warnings, "\n"), "synchronous strategy") {
		t.Errorf("warnings %v", rs[0].Warnings)
	}
}

// TestImportSweepProfile: text outputs of one experiment on a campaign's
// sweep profile at different max concurrencies (two blocks of a page, not
// records of one JSON file) are its points, named as collect names them.
func TestImportSweepProfile(t *testing.T) {
	c, err := ParseCampaign("c.yaml", []byte("id: s\nmodel: {id: m}\nhardware: {gpu: H100, count: 1}\n"+
		"profiles:\n  - {id: p, name: P, dataset: random, input_len: 100, output_len: 50, num_prompts: 10, max_concurrency: [1, 8]}\n"+
		"steps:\n  - id: x\n    title: X\n    experiments:\n      - {id: a, name: A, engine: vllm}\nbaseline: a\noptimized: a\n"))
	if err != nil {
		t.Fatal(err)
	}
	block := func(conc int, tps string) string {
		return "# perflab: experiment=a profile=p\n```\n============ Serving Benchmark Result ============\nSuccessful requests:                     10\n" +
			"Maximum request concurrency:             " + strconv.Itoa(conc) + "\nBenchmark duration (s):                  2.00\n" +
			"Total input tokens:                      1000\nTotal generated tokens:                  500\nRequest throughput (req/s):              5.00\n" +
			"Output token throughput (tok/s):         " + tps + "\nTotal Token throughput (tok/s):          750.00\n==================================================\n```\n\n"
	}
	es := mustParse(t, "page.md", []byte(block(1, "250.00")+block(8, "260.00")))
	rs, err := Results(es, Options{Campaign: c})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultIDs(rs); got != "a--p--c1 a--p--c8" || rs[1].Load.Sweep != schema.SweepConcurrency || rs[1].Load.MaxConcurrency != 8 {
		t.Errorf("ids %s, load %+v", got, rs[1].Load)
	}
	// Without a sweep profile the second output is still a conflict.
	c.Profiles[0].Concurrencies, c.Profiles[0].MaxConcurrency = nil, 8
	if _, err := Results(es, Options{Campaign: c}); err == nil || !strings.Contains(err.Error(), "already imported") {
		t.Errorf("profile at one load: %v, want a conflict", err)
	}
}
