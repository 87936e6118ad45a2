package ingest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, name string, data []byte) []Entry {
	t.Helper()
	es, err := Parse(name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return es
}

func ptr(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestParseFragments parses real fragments of the three seed pages and
// checks what each entry carries: how many entries, their format, label,
// command, and a few values.
func TestParseFragments(t *testing.T) {
	tests := []struct {
		file      string
		n         int
		formats   []string
		labels    []string
		commands  []string // prefix of each entry's command ("" for none)
		completed []int    // -1 for entries without a summary
		total     []float64
		check     func(t *testing.T, es []Entry)
	}{
		{
			file: "vllm_header.txt", n: 1, formats: []string{FormatVLLMText},
			labels: []string{""}, commands: []string{""}, completed: []int{1000}, total: []float64{2352.82},
			check: func(t *testing.T, es []Entry) {
				s := es[0].Summary
				if s.DurationS != 178.01 || s.TotalInputTokens != 217393 || s.TotalOutputTokens != 201422 ||
					s.RequestThroughput != 5.62 || s.OutputThroughput != 1131.55 || ptr(s.MaxOutputTokensPerS) != 2360 ||
					*s.MaxConcurrentRequests != 1000 {
					t.Errorf("main rows: %+v", s)
				}
				if ptr(s.TTFT.MeanMs) != 78118.74 || ptr(s.TTFT.MedianMs) != 77291.46 {
					t.Errorf("TTFT %+v", s.TTFT)
				}
				if v, ok := s.TTFT.Get(99); !ok || v != 153161.51 {
					t.Errorf("TTFT p99 = %v %v", v, ok)
				}
				if ptr(s.TPOT.MeanMs) != 88.09 || ptr(s.ITL.MeanMs) != 69.76 {
					t.Errorf("TPOT/ITL %+v %+v", s.TPOT, s.ITL)
				}
				// rows the block does not have stay nil
				if s.E2EL != nil || s.MaxConcurrency != nil || s.RequestGoodput != nil || s.TTFT.StdMs != nil {
					t.Errorf("absent rows are not nil: %+v", s)
				}
			},
		},
		{
			// the same block without its header line
			file: "vllm_noheader.txt", n: 1, formats: []string{FormatVLLMText},
			labels: []string{""}, commands: []string{""}, completed: []int{1000}, total: []float64{2352.82},
		},
		{
			// MkDocs page: bare engine names, admonitions, indented fences,
			// one serving command before each block
			file: "markdown_engines.md", n: 2, formats: []string{FormatVLLMText, FormatVLLMText},
			labels:    []string{"", ""},
			commands:  []string{"vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507 -tp 8", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-Instruct-2507 --tp-size 8"},
			completed: []int{984, 984}, total: []float64{8424.86, 7671.31},
			check: func(t *testing.T, es []Entry) {
				// the admonition's four-space indentation is removed
				if !strings.HasPrefix(es[0].Raw, "============ Serving Benchmark Result") ||
					!strings.Contains(es[0].Raw, "\nSuccessful requests:                     984\n") ||
					!strings.HasSuffix(es[0].Raw, "==================================================") {
					t.Errorf("raw not dedented verbatim:\n%s", es[0].Raw)
				}
			},
		},
		{
			// four results in one fence, each labelled by a comment
			file: "labelled_blocks.md", n: 4, formats: []string{FormatVLLMText, FormatVLLMText, FormatVLLMText, FormatVLLMText},
			labels:    []string{"random 32K input", "random 4K input", "random 2K input", "random 128 input"},
			commands:  []string{"vllm serve Qwen/Qwen3-32B", "vllm serve Qwen/Qwen3-32B", "vllm serve Qwen/Qwen3-32B", "vllm serve Qwen/Qwen3-32B"},
			completed: []int{100, 500, 500, 1000}, total: []float64{2771.81, 2148.69, 3195.30, 4005.62},
			check: func(t *testing.T, es []Entry) {
				if strings.Contains(es[1].Raw, "random") || strings.Contains(es[0].Raw, "4K") {
					t.Errorf("label or next block leaked into a raw output:\n%s", es[0].Raw)
				}
			},
		},
		{
			// crash markers; a label comment before a block; the 32768 crash
			// inherits the 16384 command (a directive can drop it)
			file: "crashes.md", n: 4, formats: []string{FormatCrash, FormatCrash, FormatVLLMText, FormatCrash},
			labels:    []string{"", "", "--max-num-batched-tokens 16384", "--max-num-batched-tokens 32768"},
			commands:  []string{"VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve", "VLLM_ATTENTION_BACKEND=XFORMERS vllm serve", "vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --max-num-batched-tokens 16384", "vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --max-num-batched-tokens 16384"},
			completed: []int{-1, -1, 984, -1}, total: []float64{0, 0, 7787.17, 0},
			check: func(t *testing.T, es []Entry) {
				if es[0].Crash != "Crash" || es[1].Crash != "Crash on inference" || es[3].Crash != "Crash on inference" {
					t.Errorf("crash texts: %q %q %q", es[0].Crash, es[1].Crash, es[3].Crash)
				}
			},
		},
		{
			// GPUStack's generated variant with its line breaks lost
			file: "gpustack_collapsed.md", n: 2, formats: []string{FormatGPUStackText, FormatGPUStackText},
			labels: []string{"", ""}, commands: []string{"", ""}, completed: []int{1000, 1000}, total: []float64{9632.01, 4995.66},
			check: func(t *testing.T, es []Entry) {
				s := es[0].Summary
				if s.MaxConcurrency == nil || *s.MaxConcurrency != 512 || es[0].Load.MaxConcurrency != 0 {
					t.Errorf("GPUStack concurrency: summary %v load %d", s.MaxConcurrency, es[0].Load.MaxConcurrency)
				}
				// Latency (s) becomes E2EL in ms, exactly
				if ptr(s.E2EL.MeanMs) != 30190 || ptr(s.E2EL.MedianMs) != 27480 {
					t.Errorf("E2EL %+v", s.E2EL)
				}
				if v, _ := s.E2EL.Get(95); v != 60730 {
					t.Errorf("E2EL p95 = %v", v)
				}
				if v, _ := s.TTFT.Get(95); v != 9276.23 {
					t.Errorf("TTFT p95 = %v", v)
				}
				if ptr(s.MaxOutputTokensPerS) != 30810010.86 {
					t.Errorf("peak not kept as printed: %v", ptr(s.MaxOutputTokensPerS))
				}
				if n := strings.Count(es[0].Raw, "\n"); n != 31 {
					t.Errorf("re-broken raw has %d line breaks, want 31:\n%s", n, es[0].Raw)
				}
				if !strings.Contains(es[0].Raw, "\n----------------------Latency---------------------\n") ||
					!strings.Contains(es[0].Raw, "\nMean Latency(s):                         30.19\n") {
					t.Errorf("re-broken raw:\n%s", es[0].Raw)
				}
				if len(es[0].Notes) == 0 || !strings.Contains(es[0].Notes[0], "line breaks") {
					t.Errorf("no note about lost line breaks: %v", es[0].Notes)
				}
			},
		},
		{
			// the same GPUStack block with its line breaks
			file: "gpustack_lines.txt", n: 1, formats: []string{FormatGPUStackText},
			labels: []string{""}, commands: []string{""}, completed: []int{200}, total: []float64{10455.38},
			check: func(t *testing.T, es []Entry) {
				if len(es[0].Notes) != 0 {
					t.Errorf("notes on a well-formed block: %v", es[0].Notes)
				}
			},
		},
		{
			// vLLM --save-result JSON: full precision, std and "inf" rate
			file: "vllm_result.json", n: 1, formats: []string{FormatVLLMJSON},
			labels: []string{""}, commands: []string{""}, completed: []int{1000}, total: []float64{2352.8203},
			check: func(t *testing.T, es []Entry) {
				e := es[0]
				if e.Model != "Qwen/Qwen3-32B" || e.Load.NumPrompts != 1000 || e.Load.RequestRate != 0 || e.Load.Backend != "openai-chat" {
					t.Errorf("load/model: %+v %q", e.Load, e.Model)
				}
				s := e.Summary
				if ptr(s.TTFT.StdMs) != 44211.5 || s.RequestGoodput != nil || s.MaxConcurrency != nil || s.DurationS != 178.0123 {
					t.Errorf("summary %+v ttft %+v", s, s.TTFT)
				}
				if e.Metadata["date"] != "20251030-101500" {
					t.Errorf("metadata %v", e.Metadata)
				}
			},
		},
		{
			// --append-result: one record per line
			file: "vllm_append.jsonl", n: 2, formats: []string{FormatVLLMJSON, FormatVLLMJSON},
			labels: []string{"c16", "c32"}, commands: []string{"", ""}, completed: []int{98, 100}, total: []float64{1505.28, 1745.45},
			check: func(t *testing.T, es []Entry) {
				s := es[0].Summary
				if es[1].Line != 2 || s.Failed != 2 || ptr(s.RequestGoodput) != 7.5 || es[0].Load.MaxConcurrency != 16 || es[0].Load.RequestRate != 10 {
					t.Errorf("entry 0 %+v %+v line2=%d", s, es[0].Load, es[1].Line)
				}
				if v, ok := s.TTFT.Get(99.9); !ok || v != 33.25 {
					t.Errorf("p99.9 = %v %v", v, ok)
				}
				if s.E2EL == nil || ptr(s.E2EL.MeanMs) != 800 {
					t.Errorf("e2el %+v", s.E2EL)
				}
				ps := s.TTFT.Percentiles
				if len(ps) != 3 || ps[0].P != 50 || ps[2].P != 99.9 {
					t.Errorf("percentiles not sorted: %+v", ps)
				}
			},
		},
		{
			// --save-detailed: per-request records rebuilt on one clock
			file: "vllm_detailed.json", n: 1, formats: []string{FormatVLLMJSON},
			labels: []string{""}, commands: []string{""}, completed: []int{2}, total: []float64{52},
			check: func(t *testing.T, es []Entry) {
				rs := es[0].Requests
				if len(rs) != 3 {
					t.Fatalf("%d requests", len(rs))
				}
				near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
				eq := func(a, b []float64) bool {
					if len(a) != len(b) {
						return false
					}
					for i := range a {
						if !near(a[i], b[i]) {
							return false
						}
					}
					return true
				}
				// the second request started first: it is t=0
				if r := rs[1]; !near(r.SendS, 0) || !eq(r.EventS, []float64{0.125, 0.14, 0.155}) || !near(r.EndS, 0.155) || !r.Success || r.OutputTokens != 3 {
					t.Errorf("request 1 %+v", r)
				}
				if r := rs[0]; !near(r.SendS, 0.25) || !eq(r.EventS, []float64{0.35, 0.36, 0.38}) || !near(r.EndS, 0.38) || r.PromptTokens != 10 {
					t.Errorf("request 0 %+v", r)
				}
				if r := rs[2]; r.Success || r.Error != "Bad Request" || len(r.EventS) != 0 || !near(r.EndS, 0.5) {
					t.Errorf("failed request %+v", r)
				}
			},
		},
		{
			// guidellm's report: one entry per benchmark of the sweep
			file: "guidellm.json", n: 2, formats: []string{FormatGuideLLMJSON, FormatGuideLLMJSON},
			labels: []string{"constant@4", "constant@8"}, commands: []string{"", ""}, completed: []int{40, 78}, total: []float64{768, 1497.6},
			check: func(t *testing.T, es []Entry) {
				s := es[1].Summary
				if s.Failed != 1 || s.TotalInputTokens != 9984 || s.TotalOutputTokens != 4992 || s.DurationS != 10 ||
					ptr(s.MaxOutputTokensPerS) != 5000 || *s.MaxConcurrentRequests != 7 || es[1].Load.RequestRate != 8 {
					t.Errorf("summary %+v load %+v", s, es[1].Load)
				}
				// request_latency is in seconds: E2EL in ms
				if ptr(s.E2EL.MeanMs) != 1250 || ptr(s.TTFT.StdMs) != 5 || ptr(s.ITL.MeanMs) != 18.75 || ptr(s.TPOT.MeanMs) != 19.5 {
					t.Errorf("stats e2el %+v ttft %+v", s.E2EL, s.TTFT)
				}
				ps := s.TTFT.Percentiles
				if len(ps) != 11 || ps[0].P != 0.1 || ps[1].P != 1 || ps[10].P != 99.9 || ps[10].ValueMs != 80 {
					t.Errorf("percentiles %+v", ps)
				}
				if !strings.Contains(strings.Join(es[1].Notes, "\n"), "1 requests were incomplete") {
					t.Errorf("notes %v", es[1].Notes)
				}
			},
		},
		{
			// a GPUStack benchmark export: the report under raw_metrics
			file: "gpustack_export.json", n: 1, formats: []string{FormatGuideLLMJSON},
			labels: []string{"constant@4"}, commands: []string{""}, completed: []int{40}, total: []float64{768},
			check: func(t *testing.T, es []Entry) {
				if es[0].Model != "Qwen/Qwen3.5-35B-A3B" || es[0].Metadata["gpu_summary"] != "NVIDIA H200" {
					t.Errorf("entry %+v", es[0])
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			es := mustParse(t, tt.file, readFixture(t, tt.file))
			if len(es) != tt.n {
				t.Fatalf("%d entries, want %d", len(es), tt.n)
			}
			for i, e := range es {
				if e.Format != tt.formats[i] {
					t.Errorf("entry %d format %q, want %q", i, e.Format, tt.formats[i])
				}
				if e.Label != tt.labels[i] {
					t.Errorf("entry %d label %q, want %q", i, e.Label, tt.labels[i])
				}
				if !strings.HasPrefix(e.Command, tt.commands[i]) || (tt.commands[i] == "" && e.Command != "") {
					t.Errorf("entry %d command %q, want prefix %q", i, e.Command, tt.commands[i])
				}
				if tt.completed[i] < 0 {
					if e.Summary != nil {
						t.Errorf("entry %d: crash with a summary", i)
					}
					continue
				}
				if e.Summary == nil || e.Summary.Completed != tt.completed[i] || e.Summary.TotalTokenThroughput != tt.total[i] {
					t.Errorf("entry %d summary %+v, want completed %d total %v", i, e.Summary, tt.completed[i], tt.total[i])
				}
			}
			if tt.check != nil {
				tt.check(t, es)
			}
		})
	}
}

// TestCollapsedEqualsLines: a block that lost its line breaks parses to the
// same numbers as the same block with them.
func TestCollapsedEqualsLines(t *testing.T) {
	lines := mustParse(t, "a", readFixture(t, "gpustack_lines.txt"))[0]
	flat := strings.Join(strings.Fields(lines.Raw), " ")
	col := mustParse(t, "b", []byte("```\n"+flat+"\n```\n"))[0]
	if !reflect.DeepEqual(lines.Summary, col.Summary) {
		t.Fatalf("summaries differ:\n%+v\n%+v", lines.Summary, col.Summary)
	}
	if col.Raw != lines.Raw {
		t.Fatalf("re-broken raw differs from the original layout:\n%s\n---\n%s", col.Raw, lines.Raw)
	}
}

// rowValue formats the summary field behind a text row the way vLLM prints
// it; ok is false for rows the schema does not hold.
func rowValue(s *schema.Summary, label string) (string, bool) {
	f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	fp := func(p *float64) (string, bool) {
		if p == nil {
			return "<nil>", true
		}
		return f2(*p), true
	}
	switch strings.ToLower(label) {
	case "successful requests":
		return fmt.Sprint(s.Completed), true
	case "failed requests":
		return fmt.Sprint(s.Failed), true
	case "maximum request concurrency":
		return fmt.Sprint(*s.MaxConcurrency), true
	case "benchmark duration (s)":
		return f2(s.DurationS), true
	case "total input tokens":
		return fmt.Sprint(s.TotalInputTokens), true
	case "total generated tokens":
		return fmt.Sprint(s.TotalOutputTokens), true
	case "request throughput (req/s)":
		return f2(s.RequestThroughput), true
	case "output token throughput (tok/s)":
		return f2(s.OutputThroughput), true
	case "peak output token throughput (tok/s)":
		return fp(s.MaxOutputTokensPerS)
	case "peak concurrent requests":
		return f2(float64(*s.MaxConcurrentRequests)), true
	case "total token throughput (tok/s)":
		return f2(s.TotalTokenThroughput), true
	}
	stat := func(st *schema.Stats, kind, pct string, scale float64) (string, bool) {
		if st == nil {
			return "<nil stats>", true
		}
		var v *float64
		switch kind {
		case "Mean":
			v = st.MeanMs
		case "Median":
			v = st.MedianMs
		default:
			var p float64
			fmt.Sscan(pct, &p)
			if x, ok := st.Get(p); ok {
				v = &x
			}
		}
		if v == nil {
			return "<nil>", true
		}
		return f2(*v / scale), true
	}
	if m := reStatRow.FindStringSubmatch(label); m != nil {
		st := map[string]*schema.Stats{"TTFT": s.TTFT, "TPOT": s.TPOT, "ITL": s.ITL, "E2EL": s.E2EL}[m[3]]
		return stat(st, m[1], m[2], 1)
	}
	if m := reLatencyRow.FindStringSubmatch(label); m != nil {
		return stat(s.E2EL, m[1], m[2], 1000)
	}
	return "", false
}

var reTextRow = regexp.MustCompile(`^([A-Za-z][^:]*?):\s+(\S+)\s*$`)

// checkRoundTrip compares every row of raw with the summary.
func checkRoundTrip(t *testing.T, where, raw string, s *schema.Summary) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(raw, "\n") {
		m := reTextRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		got, ok := rowValue(s, m[1])
		if !ok {
			continue
		}
		n++
		if got != m[2] {
			t.Errorf("%s: row %q is %s in the text, %s in the result", where, m[1], m[2], got)
		}
	}
	return n
}

// TestRoundTripFixtures: import → Result → the numbers equal the text, for
// every text fixture.
func TestRoundTripFixtures(t *testing.T) {
	for _, f := range []string{"vllm_header.txt", "vllm_noheader.txt", "markdown_engines.md", "labelled_blocks.md", "crashes.md", "gpustack_collapsed.md", "gpustack_lines.txt"} {
		for i, e := range mustParse(t, f, readFixture(t, f)) {
			if e.Summary == nil {
				continue
			}
			if n := checkRoundTrip(t, fmt.Sprintf("%s#%d", f, i), e.Raw, e.Summary); n < 15 {
				t.Errorf("%s#%d: only %d rows compared", f, i, n)
			}
		}
	}
}

// TestParseErrors: bad input names file:line and what was expected.
func TestParseErrors(t *testing.T) {
	good := string(readFixture(t, "vllm_header.txt"))
	cut := good[:strings.Index(good, "Median TPOT")]
	tests := []struct {
		name, in, want string
	}{
		// the file ends inside the block
		{"truncated at EOF", cut, `x.txt:17: truncated benchmark block (it starts at line 1): expected a "label: value" row or the closing "=====" line, found the end of the file`},
		// a Markdown fence closes before the closing line
		{"truncated in fence", "```\n" + cut + "```\nmore text\n", "x.txt:18: benchmark block (it starts at line 2) is cut short: expected a \"label: value\" row or the closing \"=====\" line, found \"```\""},
		// a new header starts before the closing line
		{"header inside block", cut + good, `x.txt:17: truncated benchmark block (it starts at line 1): a new "Serving Benchmark Result" header begins`},
		{"non-number", strings.Replace(good, "178.01", "17x.01", 1), `x.txt:3: row "Benchmark duration (s):": value "17x.01" is not a number`},
		{"fraction for a count", strings.Replace(good, "217393", "217393.5", 1), `x.txt:4: row "Total input tokens:": value "217393.5" is not a whole number`},
		{"inf", strings.Replace(good, "5.62", "inf", 1), `x.txt:6: row "Request throughput (req/s):": value "inf" is not a number`},
		{"missing row", strings.Replace(good, "Total input tokens:                      217393\n", "", 1), `x.txt:1: benchmark block is missing its "Total input tokens:" row`},
		{"duplicate row", strings.Replace(good, "Total input tokens:", "Total generated tokens:", 1), `x.txt:5: row "Total generated tokens:" appears twice in one block (first at line 4)`},
		{"bad directive key", "# perflab: experiment=a flavour=b\n" + good, `x.txt:1: "# perflab:" line: unknown key "flavour"`},
		{"bad directive syntax", "# perflab: experiment a\n" + good, `x.txt:1: "# perflab:" line: expected key=value`},
		{"dangling directive", good + "\n# perflab: experiment=a profile=b\n", `x.txt:25: a "# perflab:" line must be followed by a benchmark block`},
		{"two directives", "# perflab: experiment=a\n# perflab: experiment=b\n" + good, `x.txt:2: a second "# perflab:" line`},
		{"command value", "# perflab: command=vllm\n" + good, `command can only be "none"`},
		{"json syntax", "{\"duration\": 1,\n \"completed\": }", `x.txt:2: malformed JSON`},
		{"json truncated", "{\"duration\": 1,\n \"completed\": 3", `x.txt:1: truncated JSON record`},
		{"json wrong type", "{\"duration\": \"slow\", \"completed\": 1, \"total_input_tokens\": 1, \"request_throughput\": 1}", `x.txt:1: field "duration": expected a number, found slow`},
		{"json not vllm", `{"foo": 1}`, `x.txt:1: missing field "duration": not vLLM --save-result JSON`},
		{"guidellm without benchmarks", `{"benchmarks": []}`, `x.txt:1: guidellm report has no benchmarks`},
		{"guidellm without totals", `{"benchmarks": [{"duration": 1, "metrics": {}}]}`, `x.txt:1: benchmarks[0]: missing metrics.request_totals`},
		{"detailed lists disagree", `{"duration": 1, "completed": 1, "total_input_tokens": 1, "request_throughput": 1, "ttfts": [0.1], "itls": [[]], "input_lens": [1, 2], "output_lens": [1], "errors": [""], "start_times": [5]}`, `x.txt:1: field "input_lens": 2 entries, ttfts has 1`},
		{"json lines truncated third", "{\"duration\": 1, \"completed\": 1, \"total_input_tokens\": 1, \"request_throughput\": 1}\n{\"duration\": 1, \"completed\": 1, \"total_input_tokens\": 1, \"request_throughput\": 1}\n{\"duration\": ", `x.txt:3: truncated JSON record`},
		// results are JSON: other bytes would come back as U+FFFD (found
		// by FuzzParseText)
		{"not utf-8", "# Crash\n# CrAsh caf\xe9\n", `x.txt:2: not text (bytes that are not UTF-8)`},
		{"json second record", "{\"duration\": 1, \"completed\": 1, \"total_input_tokens\": 1, \"request_throughput\": 1}\n{\"duration\": 1}\n", `x.txt:2: missing field "completed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.txt", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant containing %q", err, tt.want)
			}
		})
	}
}

// TestProseIsNotABlock: words of a row in running text start no block.
func TestProseIsNotABlock(t *testing.T) {
	es, err := Parse("x.md", []byte("The table counts Successful requests: those that returned 200.\n\nSuccessful requests: see below.\n"))
	if err != nil || len(es) != 0 {
		t.Fatalf("entries %v, err %v", es, err)
	}
}

// TestNotMeasuredValues: "N/A" and "nan" leave optional values nil and say so.
func TestNotMeasuredValues(t *testing.T) {
	good := string(readFixture(t, "vllm_header.txt"))
	in := strings.Replace(good, "9638.00", "N/A", 1)
	in = strings.Replace(in, "2360.00", "N/A", 1)
	in = strings.Replace(in, "88.09", "nan", 1)
	es := mustParse(t, "x.txt", []byte(in))
	s := es[0].Summary
	if s.MaxOutputTokensPerS != nil || s.TPOT.MeanMs != nil || s.TPOT.MedianMs == nil {
		t.Fatalf("summary %+v tpot %+v", s, s.TPOT)
	}
	if len(es[0].Notes) != 1 || !strings.Contains(es[0].Notes[0], `"Mean TPOT (ms)" is "nan"`) {
		t.Fatalf("notes %v", es[0].Notes)
	}
}

// TestUnknownRowsAndSections are kept in the raw output with a note.
func TestUnknownRowsAndSections(t *testing.T) {
	good := string(readFixture(t, "vllm_header.txt"))
	in := strings.Replace(good, "Total input tokens:", "Frobs per second:                        3\nTotal input tokens:", 1)
	in = strings.Replace(in, "==================================================\n", "---------------Speculative Decoding---------------\nAcceptance rate (%):                     71.00\n-------------------Mystery Stats------------------\nMean Mystery (ms):                       1.00\n==================================================\n", 1)
	es := mustParse(t, "x.txt", []byte(in))
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	notes := strings.Join(es[0].Notes, "\n")
	if !strings.Contains(notes, `row "Frobs per second:" is not known`) || !strings.Contains(notes, `section "Mystery Stats" is not known`) || strings.Contains(notes, "Acceptance") {
		t.Fatalf("notes:\n%s", notes)
	}
	if !strings.Contains(es[0].Raw, "Mean Mystery (ms)") {
		t.Fatal("unknown section dropped from the raw output")
	}
}

// TestShellPromptCommand: "$ vllm serve …" (a shell prompt before the
// command) is the serving command of the block after it, without the prompt.
func TestShellPromptCommand(t *testing.T) {
	block, err := os.ReadFile("testdata/vllm_noheader.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := "```console\n$ vllm serve Qwen/Qwen3-8B -tp 2\n```\n\n```\n" + string(block) + "```\n"
	es, err := Parse("p.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Command != "vllm serve Qwen/Qwen3-8B -tp 2" || es[0].CommandLine != 2 {
		t.Fatalf("entries %d, command %q at line %d", len(es), es[0].Command, es[0].CommandLine)
	}
}

// TestModelOfLlamaAlias: llama-server serves its model under -a/--alias;
// perflab check flagged a llama.cpp campaign's every result ("ran model
// /path/tiny.gguf, but the campaign is about tiny-qwen").
func TestModelOfLlamaAlias(t *testing.T) {
	for cmd, want := range map[string]string{
		"llama-server -m /models/tiny.gguf -a tiny-qwen -np 4":            "tiny-qwen",
		"/opt/llama/llama-server --alias tiny-qwen -m ./tiny.gguf":        "tiny-qwen",
		"llama-server -m /models/tiny.gguf -np 4":                         "/models/tiny.gguf",
		"vllm serve Qwen/Qwen3-8B -a something-else --max-model-len 1024": "Qwen/Qwen3-8B",
	} {
		if got := ModelOf(cmd); got != want {
			t.Errorf("ModelOf(%q) = %q, want %q", cmd, got, want)
		}
	}
}
