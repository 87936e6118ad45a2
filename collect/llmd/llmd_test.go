package llmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/llmd"
	"github.com/perflab/perflab/collect/schema"
)

const examples = "testdata/llm-d-benchmark"

// unitRules are schema_v0_2.py's units validators, which its JSON schema
// cannot express: the units each Statistics of the aggregate may have.
var unitRules = map[string][]string{
	"requests.input_length":                    {"count", "pixels"},
	"requests.output_length":                   {"count", "pixels"},
	"latency.time_to_first_token":              {"ms", "s"},
	"latency.request_latency":                  {"ms", "s"},
	"latency.normalized_time_per_output_token": {"ms/token", "s/token"},
	"latency.time_per_output_token":            {"ms/token", "s/token"},
	"latency.inter_token_latency":              {"ms/token", "s/token"},
	"throughput.input_token_rate":              {"tokens/s"},
	"throughput.output_token_rate":             {"tokens/s"},
	"throughput.total_token_rate":              {"tokens/s"},
	"throughput.request_rate":                  {"queries/s"},
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join(examples, "br_v0_2_json_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// checkReport applies llm-d-benchmark's checks to a report as JSON: its
// JSON schema, then the units rules and the concurrency rule of
// schema_v0_2.py (an integer or .inf).
func checkReport(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	agg, _ := dig(m, "results", "request_performance", "aggregate").(map[string]any)
	for path, allowed := range unitRules {
		parts := strings.Split(path, ".")
		st, ok := dig(agg, parts...).(map[string]any)
		if !ok {
			continue
		}
		u, _ := st["units"].(string)
		found := false
		for _, a := range allowed {
			found = found || a == u
		}
		if !found {
			return fmt.Errorf("%s: units %q, must be one of %v", path, u, allowed)
		}
	}
	if c, ok := dig(m, "scenario", "load", "standardized", "concurrency").(float64); ok && c != math.Trunc(c) {
		return fmt.Errorf("concurrency %v: must be an integer or .inf", c)
	}
	return nil
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// results are perflab results of every kind perflab imports: vLLM's text
// block and JSON, SGLang's bench_serving, guidellm's report (a sweep),
// GPUStack's block; a random profile with a range ratio, capped and
// uncapped loads.
func results(t *testing.T) []*schema.Result {
	t.Helper()
	var out []*schema.Result
	for _, f := range []string{"vllm_header.txt", "vllm_result.json", "sglang_bench_serving.md", "guidellm_sweep.json", "gpustack_lines.txt", "labelled_blocks.md"} {
		path := filepath.Join("..", "ingest", "testdata", f)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		es, err := ingest.Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ingest.Results(es, ingest.Options{Engine: "vllm", Model: "Qwen/Qwen3-8B"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Summary != nil {
				out = append(out, r)
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d results to export", len(out))
	}
	// A profile with a range ratio, a rate and a cap.
	r := *out[0]
	r.ID, r.Load.Dataset, r.Load.InputLen, r.Load.OutputLen, r.Load.RangeRatio = "ranged", "random", 1024, 128, 0.25
	r.Load.RequestRate, r.Load.MaxConcurrency = 8, 64
	r.Hardware = &schema.Hardware{GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 2}
	r.Engine.Command = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-num-seqs 256"
	return append(out, &r)
}

// TestExportPassesLLMDChecks: every kind of perflab result, exported,
// passes llm-d-benchmark's JSON schema for v0.2 and its units rules; the
// checks do catch a report that breaks them.
func TestExportPassesLLMDChecks(t *testing.T) {
	sch := compileSchema(t)
	for _, r := range results(t) {
		rep, err := llmd.Export(r)
		if err != nil {
			t.Fatal(err)
		}
		data, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := checkReport(sch, data); err != nil {
			t.Errorf("%s: %v\n%s", r.ID, err, data)
		}
	}
	// The checks can fail: a wrong unit, a missing uid, a field llm-d
	// does not know.
	first, _ := llmd.Export(results(t)[0])
	good, _ := first.JSON()
	for _, bad := range []struct{ from, to string }{
		{`"units": "ms/token"`, `"units": "ms"`},
		{`"uid"`, `"id"`},
		{`"replicas"`, `"replica_count"`},
	} {
		b := strings.Replace(string(good), bad.from, bad.to, 1)
		if b == string(good) {
			t.Fatalf("%q not in the report", bad.from)
		}
		if checkReport(sch, []byte(b)) == nil {
			t.Errorf("a report with %s → %s passes the checks", bad.from, bad.to)
		}
	}
	// A crashed run has no request performance: a valid report all the
	// same, read back as the crashed run it was.
	crash := &schema.Result{ID: "vllm--sharegpt", Experiment: "vllm", Profile: "sharegpt", Status: schema.StatusCrashed, Error: "out of memory",
		Engine: schema.Engine{Name: "vllm", Command: "vllm serve Qwen/Qwen3-8B"}, Load: schema.Load{Dataset: "sharegpt", NumPrompts: 1000}}
	rep, err := llmd.Export(crash)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := rep.JSON()
	if err := checkReport(sch, data); err != nil || rep.Results.RequestPerformance != nil {
		t.Errorf("crashed run: %v\n%s", err, data)
	}
	y, _ := rep.YAML()
	back, err := llmd.Read("crash.yaml", y)
	if err != nil || len(back) != 1 || back[0].Perflab == nil || back[0].Perflab.Status != schema.StatusCrashed || back[0].Summary != nil {
		t.Errorf("crashed run read back: %+v, %v", back, err)
	}
}

// TestExamplesPassChecks: the checks accept llm-d-benchmark's own v0.2
// example, so a failure above is ours.
func TestExamplesPassChecks(t *testing.T) {
	sch := compileSchema(t)
	rs, err := llmd.Read(filepath.Join(examples, "br_v0_2_example.yaml"), mustRead(t, filepath.Join(examples, "br_v0_2_example.yaml")))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%d reports, %v", len(rs), err)
	}
	var v any
	if err := yamlToJSON(mustRead(t, filepath.Join(examples, "br_v0_2_example.yaml")), &v); err != nil {
		t.Fatal(err)
	}
	// The JSON schema file predates results.session_performance, which
	// schema_v0_2.py (and so llm-d's own validation) accepts.
	delete(v.(map[string]any)["results"].(map[string]any), "session_performance")
	b, _ := json.Marshal(v)
	if err := checkReport(sch, b); err != nil {
		t.Errorf("llm-d-benchmark's example fails the checks: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadExamples: the README's v0.1 and v0.2 examples, their numbers
// intact in perflab's units.
func TestReadExamples(t *testing.T) {
	v1, err := llmd.Read("v01.yaml", mustRead(t, filepath.Join(examples, "br_v0_1_example.yaml")))
	if err != nil || len(v1) != 1 {
		t.Fatalf("v0.1: %d reports, %v", len(v1), err)
	}
	r := v1[0]
	s := r.Summary
	if s.Completed != 31 || s.Failed != 1 || s.DurationS != 16.531641244888306 || s.OutputThroughput != 32.544923821416 ||
		s.TotalTokenThroughput != 676.121568007739 || s.RequestThroughput != 1.0238155253639 ||
		s.TotalInputTokens != int(math.Round(628.606060606061*31)) || s.TotalOutputTokens != int(math.Round(31.7878787878788*31)) {
		t.Errorf("v0.1 summary %+v", s)
	}
	if *s.TTFT.MeanMs != 0.800974442732916 || *s.TTFT.MedianMs != 0.203539535985328 || *s.E2EL.MeanMs != 3.31325431142327 || *s.ITL.MeanMs != 0.0836929455635872 {
		t.Errorf("v0.1 latencies TTFT %+v E2EL %+v", s.TTFT, s.E2EL)
	}
	if p90, ok := s.TTFT.Get(90); !ok || p90 != 2.26959549135063 {
		t.Errorf("v0.1 TTFT p90 %v", p90)
	}
	if r.Engine.Name != "vllm" || r.Engine.Version != "0.9.0.1" || r.Model != "deepseek-ai/DeepSeek-R1-0528" || r.Hardware.GPUCount != 17 || r.Tool.Name != "inference-perf" {
		t.Errorf("v0.1 stack %+v %q %+v %+v", r.Engine, r.Model, r.Hardware, r.Tool)
	}
	if r.Load.RequestRate != 1.34 {
		t.Errorf("v0.1 load %+v", r.Load)
	}

	v2, err := llmd.Read("v02.yaml", mustRead(t, filepath.Join(examples, "br_v0_2_example.yaml")))
	if err != nil || len(v2) != 1 {
		t.Fatalf("v0.2: %d reports, %v", len(v2), err)
	}
	r = v2[0]
	s = r.Summary
	// Seconds become milliseconds; s/token ms/token.
	if s.Completed != 500 || s.TotalInputTokens != int(math.Round(2262.448*500)) || s.RequestThroughput != 2262.448 ||
		math.Abs(*s.TTFT.MeanMs-36.8578234128654) > 1e-9 || math.Abs(*s.ITL.MeanMs-36.8578234128654) > 1e-9 {
		t.Errorf("v0.2 summary %+v TTFT %+v", s, s.TTFT)
	}
	if math.Abs(s.DurationS-49.97206788184121) > 1e-9 {
		t.Errorf("v0.2 duration %v", s.DurationS)
	}
	if r.Engine.Name != "llm-d" || r.Model != "Qwen/Qwen3-0.6B" || r.Hardware.GPUCount != 8 || r.Load.InputLen != 2148 || r.Load.OutputLen != 1000 ||
		r.Load.RequestRate != 10 || r.Load.MaxConcurrency != 0 || r.Tool.Name != "inference-perf" || r.Stage != 3 {
		t.Errorf("v0.2 stack/load %+v %+v %+v stage %d", r.Engine, r.Load, r.Tool, r.Stage)
	}
}

// TestRoundTrip: export → YAML → import keeps every number: through
// perflab's own record exactly, and through llm-d's standard fields alone
// every number they have a place for.
func TestRoundTrip(t *testing.T) {
	for _, r := range results(t) {
		rep, err := llmd.Export(r)
		if err != nil {
			t.Fatal(err)
		}
		y, err := rep.YAML()
		if err != nil {
			t.Fatal(err)
		}
		got, err := llmd.Read(r.ID+".yaml", y)
		if err != nil || len(got) != 1 || got[0].Perflab == nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		// YAML writes a negative zero as 0 (SGLang prints "-0.00"): equal
		// numbers, compared as such.
		a, _ := json.Marshal(r.Summary)
		b, _ := json.Marshal(got[0].Perflab.Summary)
		a = bytes.ReplaceAll(a, []byte(":-0,"), []byte(":0,"))
		if string(a) != string(b) {
			t.Errorf("%s: summary through perflab's record\n%s\n%s", r.ID, a, b)
		}
		if !loadsEqual(got[0].Perflab.Load, r.Load) {
			t.Errorf("%s: load %+v, want %+v", r.ID, got[0].Perflab.Load, r.Load)
		}
		// Without perflab's record: the standard fields.
		rep.Results.Profiling = nil
		y, _ = rep.YAML()
		std, err := llmd.Read(r.ID+".yaml", y)
		if err != nil || len(std) != 1 {
			t.Fatalf("%s: %v", r.ID, err)
		}
		s, g := r.Summary, std[0].Summary
		if g.Completed != s.Completed || g.Failed != s.Failed || g.TotalInputTokens != s.TotalInputTokens || g.TotalOutputTokens != s.TotalOutputTokens ||
			g.DurationS != s.DurationS || g.RequestThroughput != s.RequestThroughput || g.OutputThroughput != s.OutputThroughput ||
			g.TotalTokenThroughput != s.TotalTokenThroughput || !sameF(g.MaxOutputTokensPerS, s.MaxOutputTokensPerS) {
			t.Errorf("%s: standard fields\n%+v\n%+v", r.ID, g, s)
		}
		for _, m := range []struct {
			name string
			a, b *schema.Stats
		}{{"TTFT", s.TTFT, g.TTFT}, {"TPOT", s.TPOT, g.TPOT}, {"ITL", s.ITL, g.ITL}, {"E2EL", s.E2EL, g.E2EL}} {
			if m.a == nil || m.a.MeanMs == nil {
				continue
			}
			if m.b == nil || !sameF(m.a.MeanMs, m.b.MeanMs) || !sameF(m.a.MedianMs, m.b.MedianMs) || !sameF(m.a.StdMs, m.b.StdMs) {
				t.Errorf("%s: %s %+v, want %+v", r.ID, m.name, m.b, m.a)
				continue
			}
			for _, p := range m.a.Percentiles {
				if !llmdPercentile(p.P) {
					continue // no llm-d key: kept in perflab's record only
				}
				if v, ok := m.b.Get(p.P); !ok || v != p.ValueMs {
					t.Errorf("%s: %s p%v = %v, want %v", r.ID, m.name, p.P, v, p.ValueMs)
				}
			}
		}
		l, gl := r.Load, std[0].Load
		if gl.InputLen != l.InputLen || gl.OutputLen != l.OutputLen || gl.RequestRate != l.RequestRate || gl.MaxConcurrency != l.MaxConcurrency {
			t.Errorf("%s: load %+v, want %+v", r.ID, gl, l)
		}
	}
}

func loadsEqual(a, b schema.Load) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func llmdPercentile(p float64) bool {
	for _, q := range []float64{0, 0.1, 1, 5, 10, 25, 75, 90, 95, 99, 99.9, 100} {
		if p == q {
			return true
		}
	}
	return false
}

func sameF(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// yamlToJSON reads YAML into JSON-able values: .inf (which JSON cannot
// write) becomes the largest float, as "more than any bound" to a schema.
func yamlToJSON(data []byte, v *any) error {
	if err := yaml.Unmarshal(data, v); err != nil {
		return err
	}
	*v = jsonable(*v)
	return nil
}

func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
	case float64:
		if math.IsInf(x, 1) {
			return math.MaxFloat64
		}
	}
	return v
}

// TestDetect: reports are told from pages that quote one.
func TestDetect(t *testing.T) {
	report := mustRead(t, filepath.Join(examples, "br_v0_2_example.yaml"))
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"v0.2 YAML", string(report), true},
		{"v0.1 YAML", string(mustRead(t, filepath.Join(examples, "br_v0_1_example.yaml"))), true},
		{"JSON", `{"version": "0.2", "run": {"uid": "x"}, "results": {}}`, true},
		{"JSON array", `[{"version": "0.1", "scenario": {}, "metrics": {}}]`, true},
		{"a page quoting a report", "# Results\n\n```yaml\n" + string(report) + "\n```\n", false},
		{"front matter", "---\ntitle: x\n---\nversion: 0.2\nresults:\n", false},
		{"vLLM JSON", `{"completed": 10, "duration": 1.0}`, false},
	} {
		if got := llmd.Detect([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: Detect = %v", tc.name, got)
		}
	}
}

// TestV01TimesAsPrinted: a v0.1 report's start and stop (UTC seconds
// since the epoch) are read to the digits it printed: 1761840041.25 is
// 16:00:41.25, not 16:00:41.249999872 (seconds × 1e9 in float64).
func TestV01TimesAsPrinted(t *testing.T) {
	data, err := os.ReadFile("testdata/v01-hand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ start, stop, wantStart, wantEnd string }{
		{"1761840000.0", "1761840041.25", "2025-10-30T16:00:00Z", "2025-10-30T16:00:41.25Z"},
		{"1749570580.1030924", "1749570583.5714512", "2025-06-10T15:49:40.1030924Z", "2025-06-10T15:49:43.5714512Z"},
	} {
		page := strings.NewReplacer("start: 1761840000.0", "start: "+c.start, "stop: 1761840041.25", "stop: "+c.stop).Replace(string(data))
		rs, err := llmd.Read("v01-hand.yaml", []byte(page))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%d reports, %v", len(rs), err)
		}
		if rs[0].Start != c.wantStart || rs[0].End != c.wantEnd {
			t.Errorf("start %s, end %s; want %s, %s", rs[0].Start, rs[0].End, c.wantStart, c.wantEnd)
		}
	}
}

// TestMalformedReportNamed: a report with a value that is no number, a
// negative one or units perflab cannot convert is an error naming the
// file, the value's line and the field (it was read as absent: "total:
// lots" made 0 requests and "no request succeeded"; a JSON report's
// "ten" too; units named line 1); a report of another version or one
// that is no YAML is said to be so at its line, not "no benchmark output
// found".
func TestMalformedReportNamed(t *testing.T) {
	data, err := os.ReadFile("testdata/v01-hand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for _, c := range []struct{ name, from, to, want string }{
		{"word", "    total: 640", "    total: lots", `r.yaml:40: llm-d benchmark report: metrics.requests.total: "lots" is not a number`},
		{"negative", "      mean: 0.0875", "      mean: -0.0875", "r.yaml:62: llm-d benchmark report: metrics.latency.time_to_first_token.mean: -0.0875 is negative"},
		{"units", "      units: s/token", "      units: fortnights", `r.yaml:66: llm-d benchmark report: metrics.latency.time_per_output_token.units: units "fortnights"`},
		{"version", "version: '0.1'", "version: '0.9'", "r.yaml:1: not an llm-d benchmark report: version 0.9"},
		{"not yaml", "  throughput:", " throughput:", "r.yaml:74: llm-d benchmark report: not YAML"},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the report", c.name, c.from)
		}
		if !llmd.Detect([]byte(bad)) {
			t.Errorf("%s: not detected as a report", c.name)
		}
		_, err := llmd.Read("r.yaml", []byte(bad))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v\nwant %s…", c.name, err, c.want)
		}
	}
	arr := `[
  {"version": "0.2", "run": {"uid": "a"}, "results": {"request_performance": {"aggregate": {"requests": {"total": 10, "failures": 0}}}}},
  {"version": "0.2", "run": {"uid": "b"},
   "results": {"request_performance": {"aggregate": {"requests": {"total": "ten", "failures": 0}}}}}
]`
	_, err = llmd.Read("r.json", []byte(arr))
	if want := `r.json:4: llm-d benchmark report: results.request_performance.aggregate.requests.total: "ten" is not a number`; err == nil || err.Error() != want {
		t.Errorf("JSON array: error %v\nwant %s", err, want)
	}
}

// TestOutputRateDerived: a report that states no output token rate gets
// it from its output tokens over its duration, with a note (it read as 0
// tok/s); the total token rate it states is kept.
func TestOutputRateDerived(t *testing.T) {
	data, err := os.ReadFile("testdata/v01-hand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(data), "    output_tokens_per_sec: 3962.57\n", "", 1)
	if page == string(data) {
		t.Fatal("no output_tokens_per_sec line")
	}
	rs, err := llmd.Read("r.yaml", []byte(page))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%d reports, %v", len(rs), err)
	}
	s := rs[0].Summary
	// 640 requests × 255.4 mean output tokens = 163456 over 41.25 s.
	if math.Abs(s.OutputThroughput-163456/41.25) > 1e-9 || s.TotalTokenThroughput != 19850.09 {
		t.Errorf("output %v tok/s, total %v tok/s", s.OutputThroughput, s.TotalTokenThroughput)
	}
	if !strings.Contains(strings.Join(rs[0].Notes, "\n"), "output token throughput derived") {
		t.Errorf("notes %v", rs[0].Notes)
	}
}
