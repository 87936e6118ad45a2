package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// reStatKey matches the per-metric keys of vLLM's --save-result JSON:
// mean_ttft_ms, median_tpot_ms, std_itl_ms, p99_e2el_ms, p99.9_ttft_ms.
var reStatKey = regexp.MustCompile(`^(mean|median|std|p(\d+(?:\.\d+)?))_(ttft|tpot|itl|e2el)_ms$`)

// maxRawJSON bounds the JSON record kept verbatim as a result's raw
// output; --save-detailed records with per-request lists are larger.
const maxRawJSON = 64 << 10

// parseJSON reads vLLM --save-result JSON: one object, or one object per
// line (--append-result); or a guidellm report (a "benchmarks" array, also
// inside a GPUStack export's raw_metrics).
//
// Python's bare NaN, Infinity and -Infinity are read as Python reads them
// (pythonJSON): a NaN figure is not measured, an infinite one an error
// naming its field (request_rate's is an unlimited rate, as "inf" is).
func parseJSON(name string, source []byte) ([]Entry, error) {
	py := pythonJSON(source)
	data := py.clean
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []Entry
	lastLine, lastOff := 1, 0
	for {
		start := dec.InputOffset()
		var rec map[string]any
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		// Skip whitespace to find the record's first line (InputOffset
		// is the end of the previous record, before its newline).
		off := int(start)
		for off < len(data) && (data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
			off++
		}
		if err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return nil, fmt.Errorf("%s:%d: malformed JSON: %v", name, lineAt(string(data), int(syn.Offset)), err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%s:%d: truncated JSON record: %v", name, lineAt(string(data), off), err)
			}
			return nil, fmt.Errorf("%s:%d: %v", name, lineAt(string(data), off), err)
		}
		line := lastLine + bytes.Count(data[lastOff:off], []byte("\n"))
		lastLine, lastOff = line, off
		raw := strings.TrimSpace(string(source[py.orig(int(start)):py.orig(int(dec.InputOffset()))]))
		_, guide := rec["benchmarks"]
		if _, ok := rec["raw_metrics"]; ok {
			guide = true
		}
		if guide {
			es, err := parseGuideLLM(name, line, bytes.TrimSpace(data[start:dec.InputOffset()]), rec)
			if err != nil {
				return nil, err
			}
			for i := range es {
				es[i].File, es[i].Line = name, line
				es[i].Notes = append(es[i].Notes, "the guidellm report itself is not kept as raw output (see the source file)")
			}
			out = append(out, es...)
			continue
		}
		e, err := vllmRecord(name, line, rec)
		if err != nil {
			return nil, err
		}
		if len(raw) <= maxRawJSON {
			e.Raw = raw
		} else {
			e.Notes = append(e.Notes, fmt.Sprintf("the %d-byte JSON record is not kept as raw output (see the source file)", len(raw)))
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no JSON record found", name)
	}
	return out, nil
}

// jrec reads typed fields out of one decoded record, remembering the first
// error.
type jrec struct {
	name string
	line int
	m    map[string]any
	err  error
}

func (j *jrec) fail(key, want string) {
	if j.err == nil {
		j.err = fmt.Errorf("%s:%d: field %q: expected %s, found %s", j.name, j.line, key, want, shown(j.m[key]))
	}
}

// num returns a numeric field; present is false when absent or null.
func (j *jrec) num(key string) (v float64, present bool) {
	raw, ok := j.m[key]
	if !ok || raw == nil {
		return 0, false
	}
	switch x := raw.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			j.fail(key, "a number")
			return 0, false
		}
		return f, true
	case string:
		// vLLM writes request_rate as "inf" when unlimited (a tool
		// writing the float gives Infinity).
		if key == "request_rate" && (x == "inf" || x == infToken) {
			return 0, true
		}
		if infinite(x) != "" {
			j.fail(key, "a finite number")
			return 0, false
		}
		if strings.EqualFold(x, "nan") {
			return 0, false
		}
	}
	j.fail(key, "a number")
	return 0, false
}

func (j *jrec) int(key string) (int, bool) {
	v, ok := j.num(key)
	if ok && v != math.Trunc(v) {
		j.fail(key, "a whole number")
		return 0, false
	}
	return int(v), ok
}

func (j *jrec) str(key string) string {
	raw, ok := j.m[key]
	if !ok || raw == nil {
		return ""
	}
	switch x := raw.(type) {
	case string:
		if infinite(x) == "" {
			return x
		}
	case json.Number:
		return x.String()
	}
	j.fail(key, "a string")
	return ""
}

func (j *jrec) need(key string) {
	if _, ok := j.m[key]; !ok && j.err == nil {
		j.err = fmt.Errorf("%s:%d: missing field %q: not vLLM --save-result JSON", j.name, j.line, key)
	}
}

// vllmRecord converts one --save-result record.
func vllmRecord(name string, line int, m map[string]any) (Entry, error) {
	j := &jrec{name: name, line: line, m: m}
	for _, k := range []string{"duration", "completed", "total_input_tokens", "request_throughput"} {
		j.need(k)
	}
	if j.err != nil {
		return Entry{}, j.err
	}
	s := &schema.Summary{}
	s.DurationS, _ = j.num("duration")
	s.Completed, _ = j.int("completed")
	s.Failed, _ = j.int("failed")
	s.TotalInputTokens, _ = j.int("total_input_tokens")
	s.TotalOutputTokens, _ = j.int("total_output_tokens")
	s.RequestThroughput, _ = j.num("request_throughput")
	if v, ok := j.num("request_goodput"); ok {
		s.RequestGoodput = schema.F(v)
	}
	s.OutputThroughput, _ = j.num("output_throughput")
	s.TotalTokenThroughput, _ = j.num("total_token_throughput")
	if v, ok := j.num("max_output_tokens_per_s"); ok {
		s.MaxOutputTokensPerS = schema.F(v)
	}
	if v, ok := j.int("max_concurrent_requests"); ok {
		s.MaxConcurrentRequests = schema.I(v)
	}
	e := Entry{File: name, Line: line, Format: FormatVLLMJSON, Summary: s, Metadata: map[string]string{}}
	if v, ok := j.int("max_concurrency"); ok {
		s.MaxConcurrency = schema.I(v)
		e.Load.MaxConcurrency = v
	}
	stats := map[string]*schema.Stats{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sm := reStatKey.FindStringSubmatch(k)
		if sm == nil {
			continue
		}
		v, ok := j.num(k)
		if !ok {
			continue
		}
		kind := map[string]string{"mean": "Mean", "median": "Median", "std": "Std"}[sm[1]]
		if kind == "" {
			kind = "P"
		}
		addStat(stats, strings.ToUpper(sm[3]), kind, sm[2], v)
	}
	for _, st := range stats {
		sort.Slice(st.Percentiles, func(a, b int) bool { return st.Percentiles[a].P < st.Percentiles[b].P })
	}
	s.TTFT, s.TPOT, s.ITL, s.E2EL = stats["TTFT"], stats["TPOT"], stats["ITL"], stats["E2EL"]

	e.Load.Backend = j.str("backend")
	if e.Load.Backend == "" {
		e.Load.Backend = j.str("endpoint_type")
	}
	e.Load.NumPrompts, _ = j.int("num_prompts")
	e.Load.RequestRate, _ = j.num("request_rate")
	e.Load.Burstiness, _ = j.num("burstiness")
	e.Model = j.str("model_id")
	e.Label = j.str("label")
	if t := j.str("tokenizer_id"); t != "" && t != e.Model {
		e.Metadata["tokenizer"] = t
	}
	if d := j.str("date"); d != "" {
		e.Metadata["date"] = d
	}
	if j.err != nil {
		return Entry{}, j.err
	}
	reqs, note, err := detailedRequests(j)
	if err != nil {
		return Entry{}, err
	}
	e.Requests = reqs
	if note != "" {
		e.Notes = append(e.Notes, note)
	}
	if len(e.Metadata) == 0 {
		e.Metadata = nil
	}
	return e, nil
}

// formatFloat prints v the shortest way, for messages.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// detailedRequests rebuilds the per-request records of a --save-detailed
// record: lengths, TTFT and ITLs (seconds), errors, and the start times
// (raw perf_counter values, made relative to the first start). Without
// start times there is no common clock, so no records are built; note says
// why when the record had per-request lists at all.
func detailedRequests(j *jrec) ([]schema.Request, string, error) {
	if _, ok := j.m["ttfts"]; !ok {
		return nil, "", nil
	}
	if _, ok := j.m["start_times"]; !ok {
		return nil, "per-request lists without start_times (older vLLM): requests not imported", nil
	}
	fail := func(key string, err error) error {
		return fmt.Errorf("%s:%d: field %q: %v", j.name, j.line, key, err)
	}
	var in, out []int
	var ttfts, starts, lat []float64
	var itls [][]float64
	var errs []string
	for _, f := range []struct {
		key string
		dst any
	}{{"ttfts", &ttfts}, {"itls", &itls}, {"input_lens", &in}, {"output_lens", &out}, {"start_times", &starts}, {"errors", &errs}} {
		key, dst := f.key, f.dst
		if at, tok := findInfinite(j.m[key], key); tok != "" {
			return nil, "", fmt.Errorf("%s:%d: field %q: expected a finite number, found %s", j.name, j.line, at, tok)
		}
		b, err := json.Marshal(j.m[key])
		if err == nil {
			err = json.Unmarshal(b, dst)
		}
		if err != nil {
			return nil, "", fail(key, err)
		}
	}
	if v, ok := j.m["latencies"]; ok && v != nil {
		if at, tok := findInfinite(v, "latencies"); tok != "" {
			return nil, "", fmt.Errorf("%s:%d: field %q: expected a finite number, found %s", j.name, j.line, at, tok)
		}
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &lat); err != nil {
			return nil, "", fail("latencies", err)
		}
	}
	n := len(ttfts)
	for _, f := range []struct {
		key string
		n   int
	}{{"itls", len(itls)}, {"input_lens", len(in)}, {"output_lens", len(out)}, {"start_times", len(starts)}, {"errors", len(errs)}} {
		if f.n != n {
			return nil, "", fail(f.key, fmt.Errorf("%d entries, ttfts has %d", f.n, n))
		}
	}
	if lat != nil && len(lat) != n {
		return nil, "", fail("latencies", fmt.Errorf("%d entries, ttfts has %d", len(lat), n))
	}
	if n == 0 {
		return nil, "", nil
	}
	t0 := starts[0]
	for _, s := range starts {
		t0 = math.Min(t0, s)
	}
	reqs := make([]schema.Request, n)
	for i := range reqs {
		send := starts[i] - t0
		r := schema.Request{Index: i, PromptTokens: in[i], OutputTokens: out[i], ArrivalS: send, SendS: send, EndS: send,
			Success: errs[i] == "", Error: errs[i]}
		if r.Success {
			t := send + ttfts[i]
			r.EventS = append(r.EventS, t)
			for _, d := range itls[i] {
				t += d
				r.EventS = append(r.EventS, t)
			}
			r.EndS = t
		}
		if lat != nil && lat[i] > 0 {
			r.EndS = send + lat[i]
		}
		reqs[i] = r
	}
	return reqs, "per-request records rebuilt from --save-detailed lists: send times from start_times, arrival times unknown (set to the send times)", nil
}
