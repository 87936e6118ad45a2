package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		sameBytes(t, name, string(got), string(want))
	}
}

// goldenCases are the text block layouts: vLLM's defaults, every optional
// row and group, the older spellings, and no tokenizer.
func goldenCases() []struct {
	name string
	reqs []schema.Request
	opt  Options
} {
	return []struct {
		name string
		reqs []schema.Request
		opt  Options
	}{
		{"defaults", genRecords(11, 200, 120), Options{}},
		{"capped-rate-goodput-all", genRecords(12, 100, 80), Options{
			Metrics:     []string{"e2el_including_client_queue", "ttft", "tpot", "itl", "e2el", "client_queue_time"},
			Percentiles: []float64{50, 90, 99, 99.9}, MaxConcurrency: 10, RequestRate: 20,
			Goodput: map[string]float64{"ttft": 200, "tpot": 30},
		}},
		{"old-spelling-no-tokenizer", genRecords(13, 50, 60), Options{
			Metrics: []string{"ttft", "e2el"}, SkipTokenizer: true, CapitalTokenLabel: true,
			BucketedPeakConcurrency: true,
		}},
		{"hand", handRecords(), Options{CapitalTokenLabel: true, Metrics: []string{"ttft", "tpot", "itl", "e2el"}}},
	}
}

func TestWriteTextGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			s := mustSummarize(t, gc.reqs, gc.opt)
			var b bytes.Buffer
			if err := WriteFailures(&b, gc.reqs); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&b, s, gc.opt); err != nil {
				t.Fatal(err)
			}
			golden(t, "text-"+gc.name+".txt", b.Bytes())
			checkLayout(t, b.String())
		})
	}
}

// checkLayout checks the block's invariants independently of the golden
// file: every row is exactly 51 characters or longer only when the label
// or value overflows, headers are 50 wide, and the block is framed.
func checkLayout(t *testing.T, out string) {
	t.Helper()
	start := strings.Index(out, "============ Serving Benchmark Result ============\n")
	if start < 0 || !strings.HasSuffix(out, strings.Repeat("=", 50)+"\n") {
		t.Fatalf("block not framed:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out[start:], "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "=") || strings.HasPrefix(line, "-"):
			if len(line) != 50 {
				t.Errorf("header %q is %d wide, want 50", line, len(line))
			}
		default:
			label, value := line[:40], line[41:]
			if line[40] != ' ' || !strings.HasSuffix(strings.TrimRight(label, " "), ":") {
				t.Errorf("row %q: label not padded to 40", line)
			}
			if len(value) < 10 {
				t.Errorf("row %q: value %q not padded to 10", line, value)
			}
		}
	}
}

func TestCentre(t *testing.T) {
	tests := []struct{ s, want string }{
		// 19 characters: 31 fill, 15 left and 16 right (Python puts the
		// odd one on the right).
		{"Time to First Token", "---------------Time to First Token----------------"},
		{"Time per Output Token (excl. 1st token)", "-----Time per Output Token (excl. 1st token)------"},
		{"Inter-token Latency", "---------------Inter-token Latency----------------"},
		{"End-to-end Latency", "----------------End-to-end Latency----------------"},
		{strings.Repeat("x", 60), strings.Repeat("x", 60)}, // wider than 50: unchanged
	}
	for _, tt := range tests {
		if got := centre(tt.s, '-', 50); got != tt.want {
			t.Errorf("centre(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestWriteTextNilFields(t *testing.T) {
	// An imported summary with only some fields: missing rows are left out.
	s := &schema.Summary{DurationS: 12.345, Completed: 5, TotalInputTokens: 100,
		TTFT: &schema.Stats{MeanMs: schema.F(1.005), Percentiles: []schema.Percentile{{P: 99.9, ValueMs: 2}}}}
	var b bytes.Buffer
	if err := WriteText(&b, s, Options{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"============ Serving Benchmark Result ============",
		"Successful requests:                     5         ",
		"Failed requests:                         0         ",
		"Benchmark duration (s):                  12.35     ", // 12.345 is 12.34500000000000064 in binary
		"Total input tokens:                      100       ",
		"Total generated tokens:                  0         ",
		"Request throughput (req/s):              0.00      ",
		"Output token throughput (tok/s):         0.00      ",
		"Total token throughput (tok/s):          0.00      ",
		"---------------Time to First Token----------------",
		"Mean TTFT (ms):                          1.00      ", // 1.005 is 1.00499999… in binary
		"P99.9 TTFT (ms):                         2.00      ",
		"==================================================",
		""}, "\n")
	if b.String() != want {
		sameBytes(t, "partial summary", b.String(), want)
	}
	if err := WriteText(&b, nil, Options{}); err == nil {
		t.Error("nil summary: no error")
	}
}

func TestPyFixed2(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{12.345, "12.35"}, // 12.3450000000000006394884621841 in binary: rounds up, as Python
		{1.005, "1.00"},   // 1.00499999999999989341858963598: rounds down, as Python
		{0.125, "0.12"},   // exact tie: round half to even, as Python
		{0.375, "0.38"},
		{-0.001, "-0.00"}, // Python keeps the sign
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{1e20, "100000000000000000000.00"},
	}
	for _, tt := range tests {
		if got := pyFixed2(tt.v); got != tt.want {
			t.Errorf("pyFixed2(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestPercentileWord(t *testing.T) {
	tests := []struct {
		p    float64
		want string
	}{
		{99, "99"}, {99.9, "99.9"}, {99.99, "99.99"}, {0, "0"}, {math.Copysign(0, -1), "0"},
		{100, "100"}, {0.1, "0.1"}, {33.333, "33.333"}, {1e-05, "1e-05"},
	}
	for _, tt := range tests {
		if got := percentileWord(tt.p); got != tt.want {
			t.Errorf("percentileWord(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestPyFloatRepr(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{1e-05, "1e-05"},   // exponent −5 < −4: exponent form, two-digit exponent
		{0.0001, "0.0001"}, // exponent −4: still fixed
		{1e16, "1e+16"},    // exponent 16: exponent form
		{1e15, "1000000000000000.0"},
		{1.5e16, "1.5e+16"},
		{0.1, "0.1"},
		{100.0, "100.0"}, // integral floats keep ".0"
		{1, "1.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{-2.5, "-2.5"},
		{123456789.125, "123456789.125"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{0.30000000000000004, "0.30000000000000004"}, // 0.1+0.2 at run time: shortest round-trip digits
		{2.5e-7, "2.5e-07"},
		{1234.9999999999998, "1234.9999999999998"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
	}
	for _, tt := range tests {
		if got := pyFloatStr(tt.v); got != tt.want {
			t.Errorf("pyFloatStr(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	// json.dump spells the non-finite values like JavaScript.
	for v, want := range map[float64]string{math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 1e-05: "1e-05"} {
		if got := string(appendPyFloat(nil, v)); got != want {
			t.Errorf("appendPyFloat(%v) = %q, want %q", v, got, want)
		}
	}
	if got := string(appendPyFloat(nil, math.NaN())); got != "NaN" {
		t.Errorf("appendPyFloat(NaN) = %q", got)
	}
}

func TestPyString(t *testing.T) {
	tests := []struct{ s, want string }{
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"a\nb\tc\r\b\f", `"a\nb\tc\r\b\f"`},
		{"\x01\x1f\x7f", `"\u0001\u001f\u007f"`}, // DEL is escaped too (not printable ASCII)
		{"é日", `"\u00e9\u65e5"`},                 // ensure_ascii
		{"🚀", `"\ud83d\ude80"`},                  // astral: surrogate pair, lower-case hex
		{"<&>'/", `"<&>'/"`},                     // no HTML escaping, unlike Go's encoding/json
		{"bad\xffbyte", `"bad\ufffdbyte"`},       // invalid UTF-8 becomes U+FFFD
	}
	for _, tt := range tests {
		if got := string(appendPyString(nil, tt.s)); got != tt.want {
			t.Errorf("appendPyString(%q) = %s, want %s", tt.s, got, tt.want)
		}
	}
}

func TestVLLMFileName(t *testing.T) {
	h := VLLMHeader{Backend: "openai", ModelID: "Qwen/Qwen3-8B", Date: VLLMDate(time.Date(2026, 11, 22, 9, 3, 7, 0, time.UTC))}
	tests := []struct {
		label string
		rate  float64
		conc  int
		want  string
	}{
		{"", 0, 0, "openai-infqps-Qwen3-8B-20261122-090307.json"},
		{"", math.Inf(1), 0, "openai-infqps-Qwen3-8B-20261122-090307.json"},
		{"run1", 10, 0, "run1-10.0qps-Qwen3-8B-20261122-090307.json"},
		{"", 2.5, 64, "openai-2.5qps-concurrency64-Qwen3-8B-20261122-090307.json"},
	}
	for _, tt := range tests {
		h.Label, h.Options.RequestRate, h.Options.MaxConcurrency = tt.label, tt.rate, tt.conc
		if got := VLLMFileName(h); got != tt.want {
			t.Errorf("VLLMFileName(%q, %v, %d) = %q, want %q", tt.label, tt.rate, tt.conc, got, tt.want)
		}
	}
}

// TestVLLMJSONKeyOrder checks the key order independently of the golden
// files, with a streaming decoder.
func TestVLLMJSONKeyOrder(t *testing.T) {
	reqs := handRecords()
	opt := Options{MaxConcurrency: 2, RequestRate: 4, Metrics: []string{"itl", "ttft", "client_queue_time"}, Percentiles: []float64{50, 99.9}}
	s := mustSummarize(t, reqs, opt)
	h := VLLMHeader{Date: "20261122-090307", Backend: "openai-chat", ModelID: "m", NumPrompts: 4,
		Metadata: []KeyValue{{"tp", "2"}}, Options: opt}
	for _, tt := range []struct {
		detailed bool
		layout   VLLMLayout
		want     string
	}{
		{false, LayoutNewest, "date endpoint_type backend label model_id tokenizer_id num_prompts tp request_rate burstiness max_concurrency " +
			"duration completed failed total_input_tokens total_output_tokens request_throughput request_goodput output_throughput total_token_throughput " +
			"latencies queue_times max_output_tokens_per_s max_concurrent_requests rtfx " +
			"mean_ttft_ms median_ttft_ms std_ttft_ms p50_ttft_ms p99.9_ttft_ms mean_itl_ms median_itl_ms std_itl_ms p50_itl_ms p99.9_itl_ms " +
			"mean_client_queue_time_ms median_client_queue_time_ms std_client_queue_time_ms p50_client_queue_time_ms p99.9_client_queue_time_ms"},
		{true, LayoutNewest, "date endpoint_type backend label model_id tokenizer_id num_prompts tp request_rate burstiness max_concurrency " +
			"duration completed failed total_input_tokens total_output_tokens request_throughput request_goodput output_throughput total_token_throughput " +
			"input_lens output_lens ttfts itls latencies start_times queue_times generated_texts errors max_output_tokens_per_s max_concurrent_requests rtfx " +
			"mean_ttft_ms median_ttft_ms std_ttft_ms p50_ttft_ms p99.9_ttft_ms mean_itl_ms median_itl_ms std_itl_ms p50_itl_ms p99.9_itl_ms " +
			"mean_client_queue_time_ms median_client_queue_time_ms std_client_queue_time_ms p50_client_queue_time_ms p99.9_client_queue_time_ms"},
		{true, LayoutMid, "date endpoint_type backend label model_id tokenizer_id num_prompts tp request_rate burstiness max_concurrency " +
			"duration completed failed total_input_tokens total_output_tokens request_throughput request_goodput output_throughput total_token_throughput " +
			"input_lens output_lens ttfts itls generated_texts errors max_output_tokens_per_s max_concurrent_requests " +
			"mean_ttft_ms median_ttft_ms std_ttft_ms p50_ttft_ms p99.9_ttft_ms mean_itl_ms median_itl_ms std_itl_ms p50_itl_ms p99.9_itl_ms"},
	} {
		h.Layout = tt.layout
		var b bytes.Buffer
		if err := WriteVLLMJSON(&b, reqs, s, h, tt.detailed); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(topKeys(t, b.Bytes()), " "); got != tt.want {
			t.Errorf("detailed %v layout %d keys:\n got %s\nwant %s", tt.detailed, tt.layout, got, tt.want)
		}
	}
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestVLLMJSONValues(t *testing.T) {
	reqs := handRecords()
	s := mustSummarize(t, reqs, Options{})
	h := VLLMHeader{Date: "20261122-090307", Backend: "openai", ModelID: "Qwen/Qwen3-8B", NumPrompts: 4,
		Metadata: []KeyValue{{" k ", " v "}, {"duration", "ignored"}}}
	var b bytes.Buffer
	if err := WriteVLLMJSON(&b, reqs, s, h, true); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"label": nil, "tokenizer_id": nil, "max_concurrency": nil, "request_goodput": nil,
		"request_rate": "inf", "burstiness": 1.0, "k": "v",
		"duration": 3.0, // the benchmark's value replaces the metadata's, at the metadata's place
		// The failed request: dataset prompt length, 0 output, ttft 0.0,
		// no ITLs, latency 0.0, text "" and its error.
		"input_lens": []any{12.0, 20.0, 30.0, 40.0}, "output_lens": []any{4.0, 1.0, 0.0, 0.0},
		"ttfts": []any{0.5, 0.25, 0.0, 0.25}, "latencies": []any{1.25, 0.25, 0.0, 0.5},
		"itls":        []any{[]any{0.25, 0.25, 0.25}, []any{}, []any{}, []any{0.25}},
		"start_times": []any{0.0, 1.25, 0.25, 2.0}, "queue_times": []any{0.0, 0.25, 0.25, 0.5},
		"generated_texts": []any{"", "", "", "a b c"}, "errors": []any{"", "", "Service Unavailable", ""},
		"max_concurrent_requests": 1.0, "rtfx": 0.0, "p99_ttft_ms": s.TTFT.Percentiles[0].ValueMs,
	}
	for k, v := range want {
		got, _ := json.Marshal(m[k])
		exp, _ := json.Marshal(v)
		if !bytes.Equal(got, exp) {
			t.Errorf("%s = %s, want %s", k, got, exp)
		}
	}
	if _, ok := m["mean_e2el_ms"]; ok {
		t.Error("e2el written though not selected")
	}
	if keys := topKeys(t, b.Bytes()); keys[7] != "k" || keys[8] != "duration" {
		t.Errorf("metadata keys not in place: %v", keys[:10])
	}
	if !bytes.Contains(b.Bytes(), []byte(`"burstiness": 1.0, `)) || bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		t.Errorf("not json.dump's spacing: %s", b.Bytes()[:200])
	}
}

func TestVLLMJSONGolden(t *testing.T) {
	reqs := genRecords(21, 6, 5)
	opt := Options{Metrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{50, 99}, RequestRate: 8, MaxConcurrency: 3, CountTokens: wordCount}
	s := mustSummarize(t, reqs, opt)
	h := VLLMHeader{Date: "20261122-090307", Backend: "openai-chat", Label: "perflab", ModelID: "Qwen/Qwen3-8B",
		TokenizerID: "Qwen/Qwen3-8B", NumPrompts: 6, Metadata: []KeyValue{{"engine", "vllm"}}, Options: opt}
	for _, detailed := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteVLLMJSON(&b, reqs, s, h, detailed); err != nil {
			t.Fatal(err)
		}
		name := "vllm.json"
		if detailed {
			name = "vllm-detailed.json"
		}
		golden(t, name, b.Bytes())
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("disk full") }

func TestWritersReportErrorsInOneWrite(t *testing.T) {
	s := mustSummarize(t, handRecords(), Options{})
	for name, write := range map[string]func(w *failWriter) error{
		"text":     func(w *failWriter) error { return WriteText(w, s, Options{}) },
		"json":     func(w *failWriter) error { return WriteVLLMJSON(w, handRecords(), s, VLLMHeader{}, true) },
		"failures": func(w *failWriter) error { return WriteFailures(w, handRecords()) },
	} {
		w := &failWriter{}
		err := write(w)
		if err == nil || !strings.Contains(err.Error(), "disk full") || w.n != 1 {
			t.Errorf("%s: err %v after %d writes; want the wrapped error after one", name, err, w.n)
		}
	}
}

func TestWriteFailures(t *testing.T) {
	var reqs []schema.Request
	for i := range 12 {
		reqs = append(reqs, schema.Request{Error: "boom " + strings.Repeat("!", i)})
	}
	reqs = append(reqs, schema.Request{Success: true, EventS: []float64{1}})
	var b bytes.Buffer
	if err := WriteFailures(&b, reqs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 11 || lines[0] != "Failed requests during benchmark run detected (capping to 10):" ||
		lines[1] != "Error 0: boom " || lines[10] != "Error 9: boom !!!!!!!!!" {
		t.Errorf("failure lines:\n%s", b.String())
	}
	b.Reset()
	if err := WriteFailures(&b, reqs[12:]); err != nil || b.Len() != 0 {
		t.Errorf("no failures: wrote %q, %v", b.String(), err)
	}
}
