package ingest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// The fuzz targets feed Parse arbitrary text and JSON. Beyond not
// panicking, every input must either be rejected with an error naming the
// file and a line of it, or give entries whose numbers occur in the input
// (as written, or scaled between seconds and milliseconds) and whose
// results re-encode and decode to the same value.

// FuzzParseText: vLLM text blocks and their GPUStack, SGLang and TRT-LLM
// variants, in plain text and Markdown.
func FuzzParseText(f *testing.F) {
	for _, name := range []string{"vllm_header.txt", "vllm_noheader.txt", "markdown_engines.md", "labelled_blocks.md", "crashes.md", "gpustack_collapsed.md", "gpustack_lines.txt", "sglang_bench_serving.md"} {
		f.Add(readFuzzSeed(f, filepath.Join("testdata", name)))
	}
	f.Add([]byte("# perflab: experiment=a profile=b command=none\n============ Serving Benchmark Result ============\nSuccessful requests: 1\nBenchmark duration (s): 1.5\nTotal input tokens: 3\nTotal generated tokens: 4\nRequest throughput (req/s): 0.67\n==================================================\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "in.md", data) })
}

// FuzzParseVLLMJSON: vLLM --save-result JSON, one record or JSON lines,
// with and without --save-detailed.
func FuzzParseVLLMJSON(f *testing.F) {
	for _, name := range []string{"vllm_result.json", "vllm_append.jsonl", "vllm_detailed.json"} {
		f.Add(readFuzzSeed(f, filepath.Join("testdata", name)))
	}
	f.Add([]byte(`{"duration": 1, "completed": 1, "total_input_tokens": 1, "request_throughput": 1}`))
	// Python's json.dump writes a float nan or inf as a bare token.
	f.Add([]byte(`{"duration": 1, "completed": 1, "total_input_tokens": 1, "request_throughput": NaN, "mean_ttft_ms": NaN, "label": "NaN"}` + "\n" + `{"duration": 1, "completed": 1, "total_input_tokens": 1, "request_throughput": 1, "p99_itl_ms": -Infinity}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "in.json", data) })
}

// FuzzParseGuideLLM: guidellm's report and GPUStack's export of it.
func FuzzParseGuideLLM(f *testing.F) {
	for _, name := range []string{"guidellm.json", "guidellm_sweep.json", "gpustack_export.json"} {
		f.Add(readFuzzSeed(f, filepath.Join("testdata", name)))
	}
	f.Add([]byte(`{"benchmarks": [{"duration": 1, "metrics": {"request_totals": {"successful": 1}}}]}`))
	f.Add([]byte(`{"benchmarks": [{"duration": 1, "metrics": {"request_totals": {"successful": 1}, "time_to_first_token_ms": {"successful": {"mean": NaN, "percentiles": {"p50": NaN, "p99": Infinity}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "in.json", data) })
}

func readFuzzSeed(f *testing.F, path string) []byte {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// reErrAt is the start of an error that names the file and a line.
var reErrAt = regexp.MustCompile(`^in\.(?:md|json):([0-9]+): `)

// checkErrAt fails unless err names the file and one of data's lines.
func checkErrAt(t *testing.T, stage string, err error, data []byte) {
	t.Helper()
	m := reErrAt.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%s error does not name file:line: %v", stage, err)
	}
	line, _ := strconv.Atoi(m[1])
	if lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + 1; line < 1 || line > lines {
		t.Fatalf("%s error names line %d of a %d-line input: %v", stage, line, lines, err)
	}
}

func checkParse(t *testing.T, name string, data []byte) {
	es, err := Parse(name, data)
	if err != nil {
		checkErrAt(t, "parse", err, data)
		return
	}
	nums := inputNumbers(data)
	for i, e := range es {
		if e.File != name || e.Line < 1 {
			t.Fatalf("entry %d: located at %s:%d", i, e.File, e.Line)
		}
		if e.Summary == nil {
			continue
		}
		var tree any
		if b, err := json.Marshal(e.Summary); err != nil {
			t.Fatalf("entry %d: summary does not encode: %v", i, err)
		} else if err := json.Unmarshal(b, &tree); err != nil {
			t.Fatal(err)
		}
		walkNumbers(tree, "summary", func(path string, v float64) {
			// a percentile's rank comes from its label (P99, max, p999);
			// a guidellm report without duration gives it as
			// measure_end_time - measure_start_time
			if !strings.HasSuffix(path, "].p") && !nums.has(v) && !(path == "summary.duration_s" && nums.hasDifference(v)) {
				t.Fatalf("entry %d: %s = %v occurs nowhere in the input", i, path, v)
			}
		})
	}
	rs, err := Results(es, Options{})
	if err != nil {
		checkErrAt(t, "results", err, data)
		return
	}
	for _, r := range rs {
		b, err := schema.Marshal(r)
		if err != nil {
			t.Fatalf("result %s does not encode: %v", r.ID, err)
		}
		back, err := schema.Unmarshal("r.json", b)
		if err != nil {
			t.Fatalf("result %s does not decode: %v\n%s", r.ID, err, b)
		}
		if !reflect.DeepEqual(back, r) {
			b2, _ := schema.Marshal(back)
			t.Fatalf("result %s changes through JSON:\n%s\n---\n%s", r.ID, b, b2)
		}
	}
}

// numberSet holds the numbers written in an input.
type numberSet map[float64]bool

var reNumber = regexp.MustCompile(`[-+]?(?:[0-9][0-9_,]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?`)

func inputNumbers(data []byte) numberSet {
	s := numberSet{0: true} // a count of nothing, an empty list
	for _, w := range reNumber.FindAll(data, -1) {
		for _, text := range []string{string(w), strings.NewReplacer(",", "", "_", "").Replace(string(w))} {
			if v, err := strconv.ParseFloat(text, 64); err == nil {
				s[v], s[math.Abs(v)] = true, true
			}
		}
	}
	return s
}

// has reports whether v, or v in seconds where it is in milliseconds (or
// the other way round), is one of the numbers, to a float's rounding.
func (s numberSet) has(v float64) bool {
	for _, c := range []float64{v, v / 1000, v * 1000} {
		if s[c] {
			return true
		}
		for n := range s {
			if n != 0 && math.Abs(n-c) <= 1e-9*math.Abs(n) {
				return true
			}
		}
	}
	return false
}

// hasDifference reports whether v is the difference of two of the
// numbers.
func (s numberSet) hasDifference(v float64) bool {
	for a := range s {
		if s.has(a - v) {
			return true
		}
	}
	return false
}

// walkNumbers calls fn for every number in a decoded JSON tree.
func walkNumbers(v any, path string, fn func(string, float64)) {
	switch x := v.(type) {
	case float64:
		fn(path, x)
	case map[string]any:
		for k, c := range x {
			walkNumbers(c, path+"."+k, fn)
		}
	case []any:
		for i, c := range x {
			walkNumbers(c, path+"["+strconv.Itoa(i)+"]", fn)
		}
	}
}
